import type { Page } from '../api/pager.js';
import type { Resource } from '../api/wire-types.js';
import { CursorRejectedError } from '../errors.js';
import type { SyncContext, SyncResource } from './context.js';
import type { Checkpoint, ListedTable, WriteOutcome } from './store.js';

/**
 * A batch commits at this many records, or after this long, whichever comes first. Walks read
 * at the same time each hold their batch's parsed records until it commits: at 5,000 records the
 * sync's peak RSS was 444–685 MB on the loopback bench's world, at 1,000 it is 394–410 MB (one
 * walk at a time: 335–392 MB); a shorter commit also stalls a walk's cursor pipeline less.
 */
const BATCH_RECORDS = 1_000;
const BATCH_MS = 1_000;

export interface WalkSpec<T, P> {
  resource: SyncResource;
  quarantineAs: Resource;
  /** Opens the list at a cursor (undefined: the newest page). */
  list: (startCursor: string | undefined) => AsyncGenerator<Page<T>>;
  /** Async work for a page before its transaction, e.g. reading full records by ID. */
  beforeWrite?: (page: Page<T>) => Promise<P>;
  /** Inside a batch's transaction, before its writes: what the mirror holds of its records, read at once. */
  lookUp?: (records: T[]) => Promise<void>;
  /**
   * Writes one record inside the page's transaction; `position` counts records in this walk,
   * and `walk` is its checkpoint before the page (the walk's ID and mode).
   */
  write: (record: T, position: number, walk: Checkpoint, prepared: P | undefined) => Promise<WriteOutcome | undefined>;
  /** For a new walk: the createdAt (ms) below which an incremental walk may stop. */
  stopBeforeMs?: () => number | null;
  /** Whether the walk has gone far enough after this page (incremental ledger). */
  stopAfter?: (page: Page<T>, checkpoint: Checkpoint) => boolean;
  /** Inside the last page's transaction, once the walk is complete. */
  onComplete?: (checkpoint: Checkpoint) => Promise<void>;
  /**
   * For a list read whole every run: once one walk has read all of it, the table's records it
   * did not return (valid or quarantined, matched by the field `idField`) are marked vanished.
   */
  unlisted?: { table: ListedTable; idField: string };
  /** After the walk, counted in its time and figures (e.g. index builds after a bulk load). */
  finish?: () => Promise<unknown> | void;
  /** How many records this walk expects (see ResourceStats.expected), asked once as it starts. */
  expected?: () => Promise<number | undefined>;
}

/** The walk's checkpoint: the unfinished one an earlier walk left (resumed), or a new one; saved. */
async function openCheckpoint<T, P>(
  { store, syncRunId, mode, stats, now }: SyncContext,
  spec: WalkSpec<T, P>,
): Promise<{ checkpoint: Checkpoint; resumed: boolean }> {
  const saved = await store.runs.checkpoint(spec.resource);
  const resumed = saved !== undefined && saved !== null && !saved.done;
  const checkpoint: Checkpoint = resumed
    ? saved
    : {
        resource: spec.resource,
        walkId: syncRunId,
        mode,
        cursor: null,
        pages: 0,
        records: 0,
        stopBeforeMs: spec.stopBeforeMs?.() ?? null,
        done: false,
      };
  if (resumed) stats[spec.resource].notes['resumed'] = 1;
  await store.batch(() => store.runs.saveCheckpoint(checkpoint, now()));
  return { checkpoint, resumed };
}

/** The IDs a list returned, while every record it returned had one; none known once one had not. */
class ListedIds {
  ids: Set<string> | undefined;

  constructor(
    private readonly idField: string,
    track: boolean,
  ) {
    this.ids = track ? new Set() : undefined;
  }

  seePage(page: Page<unknown>): void {
    if (!this.ids) return;
    for (const record of page.records) this.#see(record);
    for (const rejected of page.rejected) this.#see(rejected.raw);
  }

  #see(record: unknown): void {
    const id =
      record !== null && typeof record === 'object' ? (record as Record<string, unknown>)[this.idField] : undefined;
    if (typeof id === 'string') this.ids?.add(id);
    else this.ids = undefined;
  }
}

/** The checkpoint after a page: its cursor, the pages and records so far, and whether the walk is done. */
function advanced(checkpoint: Checkpoint, page: Page<unknown>, stop: boolean): Checkpoint {
  return {
    ...checkpoint,
    cursor: page.nextCursor ?? null,
    pages: checkpoint.pages + 1,
    records: checkpoint.records + page.records.length + page.rejected.length,
    done: !page.hasMore || stop,
  };
}

/**
 * Walks one list to its end (or its stop), resuming from the resource's checkpoint when an
 * earlier walk did not finish. Each page's rows, its quarantined records and the checkpoint
 * commit in one transaction, so a sync killed at any moment resumes without loss or double.
 * A cursor the service refuses restarts the walk from the newest page (upserts make it safe).
 */
export async function walk<T, P = undefined>(context: SyncContext, spec: WalkSpec<T, P>): Promise<void> {
  const { store, syncRunId, now } = context;
  const stats = context.stats[spec.resource];
  const started = now();
  const expected = await spec.expected?.();
  if (expected !== undefined && expected > 0) stats.expected = expected;
  context.progress.update(spec.resource, stats);
  const { checkpoint: opened, resumed } = await openCheckpoint(context, spec);
  let checkpoint = opened;
  // The IDs the list returned. A resumed walk read its first pages in an earlier process, and a
  // quarantined record without an ID could be any record: either way, no record is marked.
  const listed = new ListedIds(spec.unlisted?.idField ?? '', spec.unlisted !== undefined && !resumed);
  let listEnded = false;

  for (let restarts = 0; ; restarts += 1) {
    // Pages commit in batches: the pages read since the last commit are written, with the
    // checkpoint after the last of them, in one transaction, so no row is ever committed
    // without its checkpoint, and walks that run at the same time on the one connection never
    // share a transaction (the connection runs its transactions one after another).
    // Fewer, larger commits write each touched index page to the WAL once instead of per page.
    let pending: Array<{ page: Page<T>; prepared: P | undefined; before: Checkpoint }> = [];
    let batchRecords = 0;
    let batchStarted = now();
    const commit = async (): Promise<void> => {
      if (pending.length === 0) return;
      const pages = pending;
      pending = [];
      await store.batch(async () => {
        await spec.lookUp?.(pages.flatMap(({ page }) => page.records));
        for (const { page, prepared, before } of pages) {
          for (const [i, record] of page.records.entries()) {
            const outcome = await spec.write(record, before.records + i, before, prepared);
            if (outcome === 'new') stats.new += 1;
            else if (outcome === 'changed') stats.changed += 1;
          }
          for (const rejected of page.rejected) await store.runs.quarantine(spec.quarantineAs, rejected, syncRunId);
        }
        if (checkpoint.done) await spec.onComplete?.(checkpoint);
        if (checkpoint.done && listEnded && listed.ids && spec.unlisted)
          stats.notes['vanished'] = await store.lists.markUnlisted(spec.unlisted.table, listed.ids, syncRunId);
        await store.runs.saveCheckpoint(checkpoint, now());
      });
      context.checkpointer.afterCommit();
      batchRecords = 0;
      batchStarted = now();
      context.progress.update(spec.resource, stats);
    };
    /** Takes a page into the batch: its checkpoint moves on; its rows are written at the commit. */
    const takePage = (page: Page<T>, prepared: P | undefined): void => {
      pending.push({ page, prepared, before: checkpoint });
      listed.seePage(page);
      listEnded = !page.hasMore;
      checkpoint = advanced(checkpoint, page, spec.stopAfter?.(page, checkpoint) ?? false);
      stats.records += page.records.length;
      stats.quarantined += page.rejected.length;
      stats.pages += 1;
      batchRecords += page.records.length;
    };
    try {
      for await (const page of prefetch(spec.list(checkpoint.cursor ?? undefined))) {
        const prepared = spec.beforeWrite ? await spec.beforeWrite(page) : undefined;
        takePage(page, prepared);
        if (checkpoint.done || batchRecords >= BATCH_RECORDS || now() - batchStarted >= BATCH_MS) await commit();
        if (checkpoint.done) break;
        // Another walk of this sync failed: keep what was read, and stop.
        if (context.halted) throw context.halted;
      }
      await commit();
      break;
    } catch (error) {
      // The pages read whole stay, with their checkpoint.
      await commit();
      if (!(error instanceof CursorRejectedError) || restarts >= 2) throw error;
      // The service no longer accepts the cursor: start again from the newest page.
      checkpoint = { ...checkpoint, cursor: null };
      stats.notes['cursorRestarts'] = (stats.notes['cursorRestarts'] ?? 0) + 1;
    }
  }
  if (spec.unlisted && !listed.ids) stats.notes['vanishedUnchecked'] = 1;
  if (!checkpoint.done) await store.batch(() => store.runs.saveCheckpoint({ ...checkpoint, done: true }, now()));
  await spec.finish?.();
  stats.durationMs += now() - started;
  // A resumed walk read its first pages in an earlier process: what the list gained at its head
  // since (orders placed while the killed sync ran) is not among them. A list read whole every
  // run is read once more from its head, so the sync holds it as of its own time, as the wallets.
  if (resumed && spec.unlisted) {
    stats.notes['readAgainAfterResume'] = 1;
    await walk(context, spec);
    return;
  }
  context.progress.done(spec.resource, stats);
}

/**
 * Asks for the next page before handing out the current one, so the service serves page
 * N+1 while the mirror writes page N. Asking is not enough on its own: undici writes a
 * request on a reused keep-alive socket only on a later turn of the event loop (it first
 * checks the idle socket for stray bytes), and the caller's SQLite work is synchronous. So
 * the current page is handed out two turns later, once the next request is on the wire;
 * otherwise the service would wait for every page's writes (a full sync took 1.3x longer).
 */
export async function* prefetch<T>(source: AsyncIterator<T> & AsyncIterable<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = source.next();
      // A failure of the prefetched page surfaces when it is awaited, not before.
      next.catch(() => undefined);
      await nextTurn();
      await nextTurn();
      yield current.value;
    }
  } finally {
    await source.return?.(undefined);
  }
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
