import type { Random } from './random.js';

/** Faults the simulator can inject into any GET. */
export const FAULT_KINDS = ['throttle', 'error500', 'html503', 'reset', 'truncate', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultOptions {
  /** Total probability of a fault per request, spread evenly over `kinds`. */
  rate?: number;
  kinds?: readonly FaultKind[];
  /** Seconds sent in Retry-After on a 429 (default 1). */
  retryAfterSeconds?: number;
  /** Send Retry-After as an HTTP date instead of seconds. */
  retryAfterAsDate?: boolean;
  /** Delay of a slow response in ms (default 300). */
  slowMs?: number;
  /** Answer 429 to any request beyond this many in flight per service. */
  maxInFlight?: number;
}

export interface ScriptedFault {
  kind: FaultKind;
  service?: 'giftcard' | 'dp';
  /** Only requests whose path starts with this. */
  pathPrefix?: string;
}

/**
 * Decides each request's fault: first any scripted fault queued by a test (deterministic),
 * then a random one at the configured rate from its own seeded source.
 */
export class FaultPlan {
  readonly queue: ScriptedFault[] = [];
  options: FaultOptions;

  constructor(
    options: FaultOptions,
    readonly random: Random,
  ) {
    this.options = options;
  }

  /** Queues faults for the next matching requests. */
  inject(kind: FaultKind, count = 1, match: Omit<ScriptedFault, 'kind'> = {}): void {
    for (let i = 0; i < count; i += 1) this.queue.push({ kind, ...match });
  }

  next(service: 'giftcard' | 'dp', path: string): FaultKind | undefined {
    const index = this.queue.findIndex(
      (f) =>
        (f.service === undefined || f.service === service) &&
        (f.pathPrefix === undefined || path.startsWith(f.pathPrefix)),
    );
    if (index >= 0) return this.queue.splice(index, 1)[0]?.kind;
    const rate = this.options.rate ?? 0;
    if (rate <= 0 || !this.random.chance(rate)) return undefined;
    return this.random.pick(this.options.kinds ?? FAULT_KINDS);
  }
}
