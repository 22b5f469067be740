/**
 * One limiter per service, shared by every request to it: it bounds the requests in flight
 * and holds all of them back while the service has asked us to wait (429 Retry-After), so
 * one throttled request slows every request to that service.
 */
export class ServiceLimiter {
  #inFlight = 0;
  /** On the monotonic clock (performance.now()): the time before which no new request to this service starts. */
  #pausedUntil = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly maxInFlight: number) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1)
      throw new RangeError('maxInFlight must be a positive integer');
  }

  /** Holds every request to the service back for at least `ms` from now. */
  pauseFor(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
  }

  /** Runs `task` once a slot is free and no pause is in force; `signal` ends a wait for a pause. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire();
    try {
      await this.#waitForPause(signal);
      return await task();
    } finally {
      this.#release();
    }
  }

  async #waitForPause(signal?: AbortSignal): Promise<void> {
    for (let wait = this.#pausedUntil - performance.now(); wait > 0; wait = this.#pausedUntil - performance.now()) {
      await sleep(wait, signal);
    }
  }

  #acquire(): Promise<void> {
    if (this.#inFlight < this.maxInFlight) {
      this.#inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next)
      next(); // the slot passes straight to the next waiter
    else this.#inFlight -= 1;
  }
}

/** Waits `ms`; a `signal` that aborts ends the wait at once, rejecting with its reason. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}
