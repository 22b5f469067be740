import type { DpClient } from '../api/dp-client.js';
import type { GiftCardClient } from '../api/giftcard-client.js';
import type { HttpEvent } from '../api/http-client.js';
import type { Mirror } from '../db/mirror.js';
import { redact } from '../log.js';
import {
  asResource,
  emptyStats,
  resourceAsking,
  SYNC_RESOURCES,
  type ProgressReporter,
  type ResourceStats,
  type SyncContext,
  type SyncResource,
} from './context.js';
import { syncCoupons } from './coupons.js';
import { syncOrders, syncProducts, syncWallets } from './dp.js';
import { syncGiftCards } from './giftcards.js';
import { bindIdentity } from './identity.js';
import { syncLedger } from './ledger.js';
import { resolveMerchant } from './merchant.js';
import { SyncStore } from './store.js';
import { closeLedger, settle } from './settle.js';

export interface SyncOptions {
  mirror: Mirror;
  giftcard: GiftCardClient;
  dp: DpClient;
  /** Force a complete pass (also re-reads the whole ledger and finds changed or vanished entries). */
  full?: boolean;
  /** Overlap below the newest mirrored entry for incremental ledger walks (default 1 h). */
  overlapMs?: number;
  /** By-ID reads in flight at once (default 8). */
  concurrency?: number;
  progress?: ProgressReporter;
  /** Move a mirror bound to other services to these ones, on purpose (`--rebind`). */
  rebind?: boolean;
  /**
   * Cards the previous night left in flight, held or behind a gift card break (the findings
   * stage names them): the settle pass reads each again by ID whether or not it moved, so a
   * held break is judged, and a repaired one resolved, the next night.
   */
  recheckCards?: readonly string[];
  /** The clock every instant of the sync is read from: the job's. */
  clock: { now(): number };
  /** The operator's stop (Ctrl-C, SIGTERM): the walks halt at their next page, keeping what they read whole, and its reason is thrown. */
  signal?: AbortSignal;
}

export interface SyncSummary {
  syncRunId: number;
  mode: 'full' | 'incremental';
  completed: boolean;
  error: string | undefined;
  durationMs: number;
  retries: number;
  /** Of those, the ones asked for after every list's line was done (the merchant's lookup, the ledger's closing read). */
  retriesAfterLists: number;
  requests: number;
  quarantined: number;
  /** Every ledger entry committed before this instant is in the mirror. */
  ledgerReadUntilMs: number;
  /** Our merchant as the credentials resolve it (a lookup by ID); null when nothing could tell. */
  merchantId: string | null;
  resources: Record<SyncResource, ResourceStats>;
}

type Walk = (context: SyncContext) => Promise<void>;

/**
 * A list whose every record was quarantined leaves the mirror with nothing of it: zero findings
 * over it would prove nothing, so the sync does not complete (the night is INCOMPLETE, never
 * BREAKS or RECONCILED over an empty list). @returns why, or null.
 */
function listsMirroredEmpty(stats: Record<SyncResource, ResourceStats>): string | null {
  const empty = SYNC_RESOURCES.filter((resource) => stats[resource].records === 0 && stats[resource].quarantined > 0);
  if (empty.length === 0) return null;
  const lists = empty
    .map((resource) => `${resource} (${stats[resource].quarantined.toLocaleString('en-US')} records)`)
    .join(', ');
  return `every record the services listed of ${lists} failed validation and was quarantined: nothing of it is mirrored, so nothing of it can be checked; the reasons are in the quarantine table (ledger-recon sql "SELECT resource, reason, COUNT(*) FROM quarantine GROUP BY 1, 2")`;
}

/**
 * The sync's walks. Lists that do not depend on each other are read at the same time, each
 * with its own checkpoint, under each service's one limiter: the gift card list beside the
 * ledger (the settle pass, which needs both, after them), the coupons, and the DP wallets,
 * products and orders. The closing read of the ledger head comes last of all.
 */
const WALKS: readonly Walk[] = [
  async (context) => {
    await together(context, [as('giftCards', syncGiftCards), as('giftCardTransactions', syncLedger)]);
    if (context.halted !== undefined) throw context.halted;
    await asResource('settle', () => settle(context));
    context.merchantId = await resolveMerchant(context);
  },
  as('coupons', syncCoupons),
  as('dpWallets', syncWallets),
  as('dpProducts', syncProducts),
  as('dpOrders', syncOrders),
];

/** `walk` as the walk of `resource` (its retries count against it). */
function as(resource: SyncResource, walk: Walk): Walk {
  return (context) => asResource(resource, () => walk(context));
}

/**
 * Runs `walks` at the same time. The first to fail halts the others (each commits the pages it
 * read whole, then stops); once all have stopped, the failure of the first walk in `walks` that
 * failed is what this throws.
 */
async function together(context: SyncContext, walks: readonly Walk[]): Promise<void> {
  const outcomes = await Promise.allSettled(
    walks.map(async (walk) => {
      if (context.halted !== undefined) throw context.halted;
      try {
        await walk(context);
      } catch (error) {
        context.halted ??= error;
        throw error;
      }
    }),
  );
  // Several walks may fail on their own (both services refusing the credentials): the first in
  // the sync's order is reported, whichever answered first, so one night reads like the next.
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

const silent: ProgressReporter = { update() {}, done() {} };

/** `progress`, telling `onDone` of each resource whose line it closes. */
function reportingDone(progress: ProgressReporter, onDone: (resource: SyncResource) => void): ProgressReporter {
  return {
    update: (resource, stats) => progress.update(resource, stats),
    done: (resource, stats) => {
      onDone(resource);
      progress.done(resource, stats);
    },
  };
}

/**
 * The sync's run begun: a run still marked running failed (we hold the lock), the mirror's
 * binding to these services checked (or moved, with --rebind), and the mode chosen.
 */
async function startSyncRun(
  options: SyncOptions,
  started: number,
): Promise<{ store: SyncStore; rebound: boolean; mode: 'full' | 'incremental'; syncRunId: number }> {
  const store = new SyncStore(options.mirror, [
    options.giftcard.config.clientSecret.reveal(),
    options.dp.config.clientSecret.reveal(),
  ]);
  // We hold the lock: a run still marked running was stopped before it could finish.
  await store.runs.failInterruptedSyncs();
  const binding = await bindIdentity(
    store,
    {
      giftcardBaseUrl: options.giftcard.config.baseUrl,
      giftcardClientId: options.giftcard.config.clientId,
      dpBaseUrl: options.dp.config.baseUrl,
      dpClientId: options.dp.config.clientId,
    },
    options.rebind === true,
    started,
  );
  const completedBefore = await store.runs.completedSyncs();
  // Other services' credentials: nothing of the previous ones is current (retired by the caller).
  const rebound = binding === 'moved';
  // A rebind reads everything again, to another address of the same services too.
  const mode = options.full || binding !== 'same' || completedBefore === 0 ? 'full' : 'incremental';
  const syncRunId = await store.runs.startSync({
    mode,
    started_at: new Date(started).toISOString(),
    started_at_ms: started,
    pid: process.pid,
    giftcard_base_url: options.giftcard.config.baseUrl,
    dp_base_url: options.dp.config.baseUrl,
  });
  return { store, rebound, mode, syncRunId };
}

/**
 * Copies both services into the mirror, its independent lists at the same time (see WALKS).
 * The first run (or `full`) reads
 * everything; later runs read the ledger incrementally. Everything committed stays if a
 * phase fails; the run is then recorded as failed and the error rethrown.
 * @returns the run's summary; @throws what the clients throw (auth, unavailable, …).
 */
export async function runSync(options: SyncOptions): Promise<SyncSummary> {
  const { clock } = options;
  const now = (): number => clock.now();
  const started = now();
  const { store, rebound, mode, syncRunId } = await startSyncRun(options, started);
  const checkpointer = options.mirror.startCheckpointer();
  // The resources whose line is done, and the retries asked for once it was (see countRetry).
  const listed = new Set<SyncResource>();
  let retriesAfterLists = 0;
  if (rebound) await store.runs.retireBinding(syncRunId);
  const context: SyncContext = {
    store,
    checkpointer,
    giftcard: options.giftcard,
    dp: options.dp,
    syncRunId,
    mode,
    overlapMs: options.overlapMs ?? 3_600_000,
    concurrency: options.concurrency ?? 8,
    progress: reportingDone(options.progress ?? silent, (resource) => listed.add(resource)),
    stats: Object.fromEntries(SYNC_RESOURCES.map((r) => [r, emptyStats()])) as Record<SyncResource, ResourceStats>,
    startedAtMs: started,
    now,
    recheck: new Set(options.recheckCards ?? []),
    ledgerReadUntilMs: started,
    topUps: 0,
  };
  // Each retry counts against the resource whose walk asked, while its line is open; one asked
  // after (the merchant's lookup, the ledger's closing read) or by no walk counts apart, so the
  // lines and that figure add up to the total.
  const countRetry = (event: HttpEvent): void => {
    if (event.type !== 'retry') return;
    const resource = resourceAsking();
    if (resource !== undefined && !listed.has(resource)) context.stats[resource].retries += 1;
    else retriesAfterLists += 1;
  };
  options.giftcard.http.listeners.add(countRetry);
  options.dp.http.listeners.add(countRetry);
  const summarize = (completed: boolean, error?: string): SyncSummary => ({
    syncRunId,
    mode,
    completed,
    error,
    durationMs: now() - started,
    retries: SYNC_RESOURCES.reduce((sum, r) => sum + context.stats[r].retries, retriesAfterLists),
    retriesAfterLists,
    requests: options.giftcard.http.stats.requests + options.dp.http.stats.requests,
    quarantined: SYNC_RESOURCES.reduce((sum, r) => sum + context.stats[r].quarantined, 0),
    ledgerReadUntilMs: context.ledgerReadUntilMs,
    merchantId: context.merchantId ?? null,
    resources: context.stats,
  });
  const finish = (status: 'completed' | 'failed', summary: SyncSummary): Promise<void> =>
    store.runs.finishSync(syncRunId, {
      status,
      finished_at: new Date(now()).toISOString(),
      finished_at_ms: now(),
      error: summary.error ?? null,
      summary_json: JSON.stringify(summary),
    });
  // Stopped by the operator: every walk halts at its next page, keeping what it read whole.
  const halt = (): void => {
    context.halted ??= options.signal?.reason;
  };
  options.signal?.addEventListener('abort', halt, { once: true });
  try {
    options.signal?.throwIfAborted();
    await together(context, WALKS);
    await closeLedger(context);
  } catch (error) {
    await checkpointer.stop();
    // Whatever a message quotes (a refused cursor, a path), neither client secret is stored.
    const secrets = [options.giftcard.config.clientSecret.reveal(), options.dp.config.clientSecret.reveal()];
    const summary = summarize(false, redact(error instanceof Error ? error.message : String(error), secrets));
    await finish('failed', summary);
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', halt);
    options.giftcard.http.listeners.delete(countRetry);
    options.dp.http.listeners.delete(countRetry);
  }
  await checkpointer.stop();
  await store.compact();
  const empty = listsMirroredEmpty(context.stats);
  const summary = empty === null ? summarize(true) : summarize(false, empty);
  await finish(empty === null ? 'completed' : 'failed', summary);
  return summary;
}
