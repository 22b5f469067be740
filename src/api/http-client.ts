import { Pool } from 'undici';
import { urlVariable } from '../config.js';
import { ConnectionError, SERVICE_LABEL, ServiceUnavailableError, type ServiceName } from '../errors.js';
import {
  DEFAULT_RETRY,
  backoffDelay,
  isRetryableNetworkError,
  isRetryableStatus,
  parseRetryAfter,
  type RetryOptions,
} from './retry-policy.js';
import { parseExact } from './json-text.js';
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
  /**
   * The largest response body read (default 64 MB, some 600 times a full page of 100 records):
   * a larger one is a fault, retried, then the resource fails; memory stays bounded.
   */
  maxBodyBytes?: number;
  retry?: Partial<RetryOptions>;
  onEvent?: (event: HttpEvent) => void;
  /** Stops every request and every wait when it aborts (the operator's Ctrl-C): its reason is thrown. */
  signal?: AbortSignal;
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
  /** Who else hears of each response and retry (the sync counts each retry against its resource). */
  readonly listeners = new Set<(event: HttpEvent) => void>();
  readonly #pool: Pool;
  readonly #options: HttpClientOptions;
  readonly #retry: RetryOptions;
  readonly #timeoutMs: number;
  readonly #basePath: string;
  readonly #url: URL;

  constructor(options: HttpClientOptions) {
    this.service = options.service;
    this.#options = options;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#timeoutMs = options.requestTimeoutMs ?? 30_000;
    const maxConnections = options.maxConnections ?? 8;
    this.limiter = new ServiceLimiter(maxConnections);
    const url = new URL(options.baseUrl);
    this.#url = url;
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
      this.#options.signal?.throwIfAborted();
      const outcome = await this.limiter.run(() => this.#attempt(path, attempt), this.#options.signal);
      if (outcome.kind === 'done') return outcome.response;
      lastCause = outcome.cause;
      if (attempt === this.#retry.maxRetries) break;
      let delayMs = backoffDelay(attempt, this.#retry, this.#options.random);
      if (outcome.retryAfterMs !== undefined) {
        // A wait longer than the bound would hold the mirror's lock for it in silence: say so and stop.
        if (outcome.retryAfterMs > this.#retry.maxRetryAfterMs) {
          throw new ServiceUnavailableError(
            this.service,
            attempt + 1,
            `${label} asks to be called again in ${Math.round(outcome.retryAfterMs / 1000)} s (Retry-After on HTTP 429, GET ${this.#basePath}${path}), longer than the ${Math.round(this.#retry.maxRetryAfterMs / 1000)} s a run waits: run again later`,
          );
        }
        // Retry-After is a floor, not a licence to hammer: "0" still backs off.
        delayMs = Math.max(delayMs, outcome.retryAfterMs);
        this.limiter.pauseFor(delayMs);
      }
      this.stats.retries += 1;
      this.#emit({
        type: 'retry',
        service: this.service,
        path,
        attempt: attempt + 1,
        delayMs,
        cause: lastCause,
      });
      await sleep(delayMs, this.#options.signal);
    }
    const attempts = this.#retry.maxRetries + 1;
    throw new ServiceUnavailableError(
      this.service,
      attempts,
      `${label} is unavailable at ${this.#url.host}: ${lastCause} (GET ${this.#basePath}${path}, ${attempts} attempts)${advice(lastCause, this.#url, this.service)}`,
    );
  }

  async #attempt(path: string, attempt: number): Promise<AttemptOutcome> {
    const started = performance.now();
    this.stats.requests += 1;
    let status: number;
    let retryAfter: string | undefined;
    let text: string;
    try {
      const response = await this.#pool.request({
        method: 'GET',
        path: this.#basePath + path,
        headers: { accept: 'application/json', ...this.#options.headers() },
        signal: this.#options.signal
          ? AbortSignal.any([AbortSignal.timeout(this.#timeoutMs), this.#options.signal])
          : AbortSignal.timeout(this.#timeoutMs),
      });
      status = response.statusCode;
      const header = response.headers['retry-after'];
      retryAfter = Array.isArray(header) ? header[0] : header;
      text = await readCapped(response.body, this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    } catch (error) {
      // Stopped by the operator: not a fault of the service, never retried.
      if (this.#options.signal?.aborted) throw this.#options.signal.reason;
      if (error instanceof BodyTooLarge) return { kind: 'retry', cause: error.message };
      if (isRetryableNetworkError(error)) return { kind: 'retry', cause: describeNetworkError(error, this.#timeoutMs) };
      const failure = connectionFailure(error, this.#url);
      if (failure)
        throw new ConnectionError(
          this.service,
          `${SERVICE_LABEL[this.service]} cannot be reached at ${this.#url.origin}: ${failure}; check ${urlSetting(this.service)}`,
        );
      throw error;
    }
    this.#emit({
      type: 'response',
      service: this.service,
      path,
      status,
      attempt,
      ms: Math.round(performance.now() - started),
    });
    if (isRetryableStatus(status)) {
      return {
        kind: 'retry',
        cause: `HTTP ${status}`,
        // An HTTP-date in Retry-After is the server's wall-clock time: read against ours.
        retryAfterMs: status === 429 ? parseRetryAfter(retryAfter, Date.now()) : undefined,
      };
    }
    let body: unknown;
    try {
      body = parseExact(text);
    } catch {
      // 401 and 403 say what they mean whatever their body (a proxy's HTML page): never retried.
      if (status === 401 || status === 403) return { kind: 'done', response: { status, body: null } };
      // A truncated or non-JSON body is a transport failure: read it again.
      return { kind: 'retry', cause: `HTTP ${status} with a body that is not JSON (${text.length} bytes)` };
    }
    return { kind: 'done', response: { status, body } };
  }

  #emit(event: HttpEvent): void {
    this.#options.onEvent?.(event);
    for (const listener of this.listeners) listener(event);
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
}

type AttemptOutcome =
  | { kind: 'done'; response: JsonResponse }
  | { kind: 'retry'; cause: string; retryAfterMs?: number | undefined };

function describeNetworkError(error: unknown, timeoutMs: number): string {
  const err = error as { code?: string; name?: string; message?: string };
  const code = err.code ?? (err as { cause?: { code?: string } }).cause?.code ?? '';
  if (err.name === 'TimeoutError' || code.endsWith('_TIMEOUT'))
    return `no answer within ${timeoutMs / 1000} s (timed out${code ? `, ${code}` : ''})`;
  if (err.code === 'ECONNREFUSED' || (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED')
    return 'connection refused (ECONNREFUSED)';
  return `network error ${err.code ?? err.name ?? ''}`.trim();
}

/** The variable (and flag) that sets a service's address: what to check when it cannot be reached. */
function urlSetting(service: ServiceName): string {
  return `${urlVariable(service)} (or ${service === 'giftcard' ? '--giftcard-url' : '--dp-url'})`;
}

/** What to do about the last cause of a service that stayed unavailable. */
function advice(cause: string, url: URL, service: ServiceName): string {
  if (cause.includes('ECONNREFUSED'))
    return `; nothing listens on port ${url.port || (url.protocol === 'https:' ? '443' : '80')} of ${url.hostname}: is the service running there? check ${urlSetting(service)}`;
  if (cause.includes('UND_ERR_SOCKET') && url.protocol === 'http:')
    return `; the peer closed the connection: if it speaks https, ${urlSetting(service)} must start with https://`;
  if (cause.startsWith('a response body larger than'))
    return "; if the service's answers are really this large, raise LEDGER_RECON_MAX_BODY_MB";
  if (cause.includes('timed out'))
    return '; the service did not answer in time: try again later, check the network between here and the service, or allow longer with LEDGER_RECON_TIMEOUT (or --timeout)';
  return '';
}

/** The errors retrying cannot mend, as a person would say them; undefined for the others. */
function connectionFailure(error: unknown, url: URL): string | undefined {
  const chain: { code?: string; name?: string; message?: string }[] = [];
  for (
    let e = error as { cause?: unknown } | undefined;
    e && typeof e === 'object' && chain.length < 5;
    e = e.cause as { cause?: unknown } | undefined
  )
    chain.push(e as { code?: string });
  const codes = chain.map((e) => e.code ?? '');
  const messages = chain.map((e) => e.message ?? '').join(' ');
  if (codes.some((c) => c === 'ENOTFOUND' || c === 'EAI_NONAME' || c === 'EAI_FAIL'))
    return `the host name ${url.hostname} does not resolve (DNS)`;
  if (
    codes.some((c) => c.startsWith('ERR_SSL_') || c === 'EPROTO') ||
    /wrong version number|packet length too long/i.test(messages)
  ) {
    return url.protocol === 'https:'
      ? 'the TLS handshake failed: the port speaks plain HTTP, so the URL may need http:// instead of https://'
      : `the TLS layer failed (${codes.find((c) => c) ?? 'TLS'})`;
  }
  if (codes.some((c) => /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT/.test(c)))
    return `its TLS certificate is not trusted (${codes.find((c) => /CERT|SIGNED|VERIFY/.test(c))})`;
  if (chain.some((e) => e.name === 'HTTPParserError' || e.code?.startsWith('HPE_')))
    return `the peer on port ${url.port || (url.protocol === 'https:' ? '443' : '80')} does not speak HTTP (${codes.find((c) => c.startsWith('HPE_')) ?? 'HTTPParserError'}): check the port`;
  if (codes.includes('ENETUNREACH') || codes.includes('EHOSTUNREACH'))
    return `no route to ${url.hostname} (${codes.find((c) => c.endsWith('UNREACH'))})`;
  return undefined;
}

const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

class BodyTooLarge extends Error {}

/** Reads a body as UTF-8 text, giving up (and dropping the connection's rest) past `max` bytes. */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
  max: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw new BodyTooLarge(`a response body larger than ${max.toLocaleString('en-US')} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
