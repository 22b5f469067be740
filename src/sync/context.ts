import { AsyncLocalStorage } from 'node:async_hooks';
import type { DpClient } from '../api/dp-client.js';
import type { GiftCardClient } from '../api/giftcard-client.js';
import type { Checkpointer } from '../db/mirror.js';
import type { SyncStore } from './store.js';

/** The resources the sync walks, in its order; checkpoints and summaries use these names. */
export const SYNC_RESOURCES = [
  'giftCards',
  'giftCardTransactions',
  'settle',
  'coupons',
  'dpWallets',
  'dpProducts',
  'dpOrders',
] as const;
export type SyncResource = (typeof SYNC_RESOURCES)[number];

export interface ResourceStats {
  records: number;
  new: number;
  changed: number;
  pages: number;
  quarantined: number;
  durationMs: number;
  /** Requests for this resource that were retried (a sync's resources share each service's limiter). */
  retries: number;
  /**
   * How many records the walk expects to read, where that can be known: what the mirror held
   * of a list read whole (cards, coupons, products, orders; the ledger on a --full pass).
   * Undefined on a first sync and for an incremental ledger read. For progress only.
   */
  expected?: number;
  /** Resource-specific figures (e.g. cards re-read, in flight, vanished entries). */
  notes: Record<string, number>;
}

export function emptyStats(): ResourceStats {
  return { records: 0, new: 0, changed: 0, pages: 0, quarantined: 0, durationMs: 0, retries: 0, notes: {} };
}

/** The resource whose walk is running here (through every await), so a retry is counted against it. */
const workingOn = new AsyncLocalStorage<SyncResource>();

/** Runs `work` as the walk of `resource`: what it asks of the services counts against it. */
export function asResource<T>(resource: SyncResource, work: () => Promise<T>): Promise<T> {
  return workingOn.run(resource, work);
}

/** The resource whose walk asked, if any. */
export function resourceAsking(): SyncResource | undefined {
  return workingOn.getStore();
}

/** Where the sync reports its progress (the CLI draws it; the tests and the bench ignore it). */
export interface ProgressReporter {
  /** When a resource starts (its rate and retries count from here), and after each batch it commits. */
  update(resource: SyncResource, stats: ResourceStats): void;
  /** Once, when the resource is done. */
  done(resource: SyncResource, stats: ResourceStats): void;
}

export interface SyncContext {
  /** The sync's tables: every read and write the sync makes. */
  store: SyncStore;
  /** Copies the WAL into the database file on another thread; told after each batch commits. */
  checkpointer: Checkpointer;
  giftcard: GiftCardClient;
  dp: DpClient;
  syncRunId: number;
  mode: 'full' | 'incremental';
  /** How far below the newest mirrored entry an incremental ledger walk keeps reading. */
  overlapMs: number;
  /** By-ID reads in flight at once. */
  concurrency: number;
  progress: ProgressReporter;
  stats: Record<SyncResource, ResourceStats>;
  /** When the sync began: an entry committed before it is one every card read since reflects. */
  startedAtMs: number;
  /** The sync's clock (epoch ms): every instant it reads and records. */
  now: () => number;
  /** Cards the previous night left in flight, held or behind a gift card break: read again by ID, moved or not. */
  recheck: ReadonlySet<string>;
  /** When the last read of the ledger head began: every entry committed before it is mirrored. */
  ledgerReadUntilMs: number;
  /** Head top-ups done so far this run (each numbers its entries above the last). */
  topUps: number;
  /** The first failure of a walk: the walks running beside it commit what they read and stop. */
  halted?: unknown;
  /** Our merchant as the credentials resolve it (a lookup by ID), once the cards are read; null when nothing tells. */
  merchantId?: string | null;
}

/** Maps `items` through `work` with at most `limit` running at once, keeping their order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
