/**
 * Pure retry decisions for GET requests: which outcomes are retried, how long to wait.
 * No I/O here; the HTTP layer applies these.
 */

export interface RetryOptions {
  /** Retries after the first attempt; 0 disables retrying. */
  maxRetries: number;
  /** First backoff ceiling in ms; doubles each attempt (full jitter picks below it). */
  baseDelayMs: number;
  /** Upper bound of one backoff wait. */
  maxDelayMs: number;
  /** The longest Retry-After a run waits for (default 5 minutes); a longer one fails the resource with one line. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 6,
  baseDelayMs: 250,
  maxDelayMs: 15_000,
  maxRetryAfterMs: 300_000,
};

/** Statuses that say "try the same GET again later". */
const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status);
}

/** undici and Node error codes of a connection that failed, reset or timed out. */
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_ABORTED',
]);

/** Whether a thrown error is a network failure worth retrying (reset, refused, time-out). */
export function isRetryableNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code)) return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isRetryableNetworkError(cause);
}

/**
 * Parses a Retry-After header: delta-seconds or an HTTP date.
 * @returns the wait in ms (≥ 0), or undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base·2^attempt)). */
export function backoffDelay(attempt: number, options: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
