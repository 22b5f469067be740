import type { Page } from '../api/pager.js';
import type { Resource } from '../api/wire-types.js';
import { CursorRejectedError } from '../errors.js';
import type { SyncContext, SyncResource } from './context.js';
import type { Checkpoint, WriteOutcome } from './mirror-writer.js';

export interface WalkSpec<T, P> {
  resource: SyncResource;
  quarantineAs: Resource;
  /** Opens the list at a cursor (undefined: the newest page). */
  list: (startCursor: string | undefined) => AsyncGenerator<Page<T>>;
  /** Async work for a page before its transaction, e.g. reading full records by ID. */
  prepare?: (page: Page<T>) => Promise<P>;
  /** Writes one record inside the page's transaction; `position` counts records in this walk. */
  write: (record: T, position: number, walkId: number, prepared: P | undefined) => WriteOutcome | undefined;
  /** For a new walk: the createdAt (ms) below which an incremental walk may stop. */
  stopBeforeMs?: () => number | null;
  /** Whether the walk has gone far enough after this page (incremental ledger). */
  stopAfter?: (page: Page<T>, checkpoint: Checkpoint) => boolean;
  /** Inside the last page's transaction, once the walk is complete. */
  onComplete?: (checkpoint: Checkpoint) => void;
}

/**
 * Walks one list to its end (or its stop), resuming from the resource's checkpoint when an
 * earlier walk did not finish. Each page's rows, its quarantined records and the checkpoint
 * commit in one transaction, so a sync killed at any moment resumes without loss or double.
 * A cursor the service refuses restarts the walk from the newest page (upserts make it safe).
 */
export async function walk<T, P = undefined>(context: SyncContext, spec: WalkSpec<T, P>): Promise<void> {
  const { writer, syncRunId } = context;
  const stats = context.stats[spec.resource];
  const started = Date.now();
  const saved = writer.checkpoint(spec.resource);
  let checkpoint: Checkpoint =
    saved && !saved.done
      ? saved
      : { resource: spec.resource, walkId: syncRunId, mode: context.mode, cursor: null, pages: 0, records: 0, stopBeforeMs: spec.stopBeforeMs?.() ?? null, done: false };
  if (saved && !saved.done) stats.notes['resumed'] = 1;
  writer.transaction(() => writer.saveCheckpoint(checkpoint));

  for (let restarts = 0; ; restarts += 1) {
    try {
      for await (const page of spec.list(checkpoint.cursor ?? undefined)) {
        const prepared = spec.prepare ? await spec.prepare(page) : undefined;
        writer.transaction(() => {
          page.records.forEach((record, i) => {
            const outcome = spec.write(record, checkpoint.records + i, checkpoint.walkId, prepared);
            if (outcome === 'new') stats.new += 1;
            else if (outcome === 'changed') stats.changed += 1;
          });
          for (const rejected of page.rejected) writer.quarantine(spec.quarantineAs, rejected, syncRunId);
          const stop = spec.stopAfter?.(page, checkpoint) ?? false;
          checkpoint = {
            ...checkpoint,
            cursor: page.nextCursor ?? null,
            pages: checkpoint.pages + 1,
            records: checkpoint.records + page.records.length + page.rejected.length,
            done: !page.hasMore || stop,
          };
          if (checkpoint.done) spec.onComplete?.(checkpoint);
          writer.saveCheckpoint(checkpoint);
        });
        stats.records += page.records.length;
        stats.quarantined += page.rejected.length;
        stats.pages += 1;
        context.progress.update(spec.resource, stats);
        if (checkpoint.done) break;
      }
      break;
    } catch (error) {
      if (!(error instanceof CursorRejectedError) || restarts >= 2) throw error;
      // The service no longer accepts the cursor: start again from the newest page.
      checkpoint = { ...checkpoint, cursor: null };
      stats.notes['cursorRestarts'] = (stats.notes['cursorRestarts'] ?? 0) + 1;
    }
  }
  if (!checkpoint.done) writer.transaction(() => writer.saveCheckpoint({ ...checkpoint, done: true }));
  stats.durationMs += Date.now() - started;
  context.progress.done(spec.resource, stats);
}
