import { Pool } from 'undici';
import { SERVICE_LABEL, ServiceUnavailableError, type ServiceName } from '../errors.js';
import {
  DEFAULT_RETRY,
  backoffDelay,
  isRetryableNetworkError,
  isRetryableStatus,
  parseRetryAfter,
  type RetryOptions,
} from './retry-policy.js';
import { ServiceLimiter, sleep } from './service-limiter.js';

/** What the HTTP layer tells its observer (progress bars, logs, tests). */
export type HttpEvent =
  | { type: 'response'; service: ServiceName; path: string; status: number; attempt: number; ms: number }
  | { type: 'retry'; service: ServiceName; path: string; attempt: number; delayMs: number; cause: string };

export interface HttpClientOptions {
  service: ServiceName;
  baseUrl: string;
  /** Sent on every request. Values are read at send time and never logged. */
  headers: () => Record<string, string>;
  /** Requests in flight to this service at once (default 8). */
  maxConnections?: number;
  /** Whole-request time-out in ms (default 30 s, the gift card spec's limit). */
  requestTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  onEvent?: (event: HttpEvent) => void;
  /** Injected for deterministic tests of the jitter; defaults to Math.random. */
  random?: () => number;
}

/** A response whose body parsed as JSON. */
export interface JsonResponse {
  status: number;
  body: unknown;
}

export interface HttpStats {
  requests: number;
  retries: number;
}

/**
 * GETs JSON from one service over a keep-alive undici Pool. Retries 408, 429, 5xx, network
 * failures, time-outs and unparseable bodies under one policy; returns every other response
 * (2xx and non-retryable 4xx) for the service client to interpret.
 * There is deliberately no method for any other HTTP verb: the tool only reads.
 */
export class HttpClient {
  readonly service: ServiceName;
  readonly limiter: ServiceLimiter;
  readonly stats: HttpStats = { requests: 0, retries: 0 };
  readonly #pool: Pool;
  readonly #options: HttpClientOptions;
  readonly #retry: RetryOptions;
  readonly #timeoutMs: number;
  readonly #basePath: string;

  constructor(options: HttpClientOptions) {
    this.service = options.service;
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
    const maxConnections = options.maxConnections ?? 8;
    this.limiter = new ServiceLimiter(maxConnections);
    const url = new URL(options.baseUrl);
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(url.origin, {
      connections: maxConnections,
      keepAliveTimeout: 10_000,
      connect: { timeout: Math.min(10_000, this.#timeoutMs) },
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    });
  }

  /**
   * GETs `path` (relative to the base URL, query included).
   * @returns the parsed JSON body with its status, for 2xx and non-retryable statuses.
   * @throws ServiceUnavailableError once the retries are spent.
   */
  async getJson(path: string): Promise<JsonResponse> {
    const label = SERVICE_LABEL[this.service];
    let lastCause = '';
    for (let attempt = 0; attempt <= this.#retry.maxRetries; attempt += 1) {
      const outcome = await this.limiter.run(() => this.#attempt(path, attempt));
      if (outcome.kind === 'done') return outcome.response;
      lastCause = outcome.cause;
      if (attempt === this.#retry.maxRetries) break;
      let delayMs = backoffDelay(attempt, this.#retry, this.#options.random);
      if (outcome.retryAfterMs !== undefined) {
        // Retry-After is a floor, not a licence to hammer: "0" still backs off.
        delayMs = Math.max(delayMs, Math.min(outcome.retryAfterMs, this.#retry.maxRetryAfterMs));
        this.limiter.pauseFor(delayMs);
      }
      this.stats.retries += 1;
      this.#options.onEvent?.({ type: 'retry', service: this.service, path, attempt: attempt + 1, delayMs, cause: lastCause });
      await sleep(delayMs);
    }
    const attempts = this.#retry.maxRetries + 1;
    throw new ServiceUnavailableError(
      this.service,
      attempts,
      `${label} is unavailable: ${lastCause} (GET ${this.#basePath}${path}, ${attempts} attempts)`,
    );
  }

  async #attempt(path: string, attempt: number): Promise<AttemptOutcome> {
    const started = Date.now();
    this.stats.requests += 1;
    let status: number;
    let retryAfter: string | undefined;
    let text: string;
    try {
      const response = await this.#pool.request({
        method: 'GET',
        path: this.#basePath + path,
        headers: { accept: 'application/json', ...this.#options.headers() },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      status = response.statusCode;
      const header = response.headers['retry-after'];
      retryAfter = Array.isArray(header) ? header[0] : header;
      text = await response.body.text();
    } catch (error) {
      if (isRetryableNetworkError(error)) return { kind: 'retry', cause: describeNetworkError(error) };
      throw error;
    }
    this.#options.onEvent?.({ type: 'response', service: this.service, path, status, attempt, ms: Date.now() - started });
    if (isRetryableStatus(status)) {
      return { kind: 'retry', cause: `HTTP ${status}`, retryAfterMs: status === 429 ? parseRetryAfter(retryAfter, Date.now()) : undefined };
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // A truncated or non-JSON body is a transport failure: read it again.
      return { kind: 'retry', cause: `HTTP ${status} with a body that is not JSON (${text.length} bytes)` };
    }
    return { kind: 'done', response: { status, body } };
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}

type AttemptOutcome =
  | { kind: 'done'; response: JsonResponse }
  | { kind: 'retry'; cause: string; retryAfterMs?: number | undefined };

function describeNetworkError(error: unknown): string {
  const err = error as { code?: string; name?: string; message?: string };
  if (err.name === 'TimeoutError') return 'request timed out';
  return `network error ${err.code ?? err.name ?? ''}`.trim();
}
