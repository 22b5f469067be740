/**
 * The typed reads the ledger-state core and the checks' runner make: which sync a run checks and
 * its data edge, and the cards a sync found in flight. Row types come from the drizzle schema
 * through its typed query builder; nothing here casts a query's result.
 */
import type Database from 'better-sqlite3';
import { and, desc, eq, lt } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { giftCardsInFlight, syncRuns } from '../db/schema.js';

/** A sync as a check run reads it: its status, its start, and its data edge. */
export interface SyncEdge {
  syncRunId: number;
  status: (typeof syncRuns.$inferSelect)['status'];
  /** Why it did not complete (redacted), or null. */
  error: string | null;
  /** Our merchant as the sync resolved it by a lookup by ID, or null. */
  merchantId: string | null;
  startedAtMs: number;
  /** The sync's data edge: every ledger entry committed before it is mirrored. Every figure of a run is as of it. */
  cutOffMs: number;
}

const typed = (sqlite: Database.Database) => drizzle(sqlite);

const SYNC_FIELDS = { syncRunId: syncRuns.syncRunId, status: syncRuns.status, error: syncRuns.error, startedAtMs: syncRuns.startedAtMs, summaryJson: syncRuns.summaryJson };

function edgeOf(row: { syncRunId: number; status: SyncEdge['status']; error: string | null; startedAtMs: number; summaryJson: string | null }): SyncEdge {
  return { syncRunId: row.syncRunId, status: row.status, error: row.error, startedAtMs: row.startedAtMs, cutOffMs: ledgerEdgeOf(row.summaryJson, row.startedAtMs), merchantId: resolvedMerchantOf(row.summaryJson) };
}

/** The mirror's newest sync (whatever its status), or null when there is none. */
export function newestSync(sqlite: Database.Database): SyncEdge | null {
  const row = typed(sqlite).select(SYNC_FIELDS).from(syncRuns).orderBy(desc(syncRuns.syncRunId)).limit(1).get();
  return row ? edgeOf(row) : null;
}

/** The newest completed sync before `beforeSyncRunId` (every completed sync when absent), or null. */
export function newestCompletedSync(sqlite: Database.Database, beforeSyncRunId?: number): SyncEdge | null {
  const completed = eq(syncRuns.status, 'completed');
  const row = typed(sqlite)
    .select(SYNC_FIELDS)
    .from(syncRuns)
    .where(beforeSyncRunId === undefined ? completed : and(completed, lt(syncRuns.syncRunId, beforeSyncRunId)))
    .orderBy(desc(syncRuns.syncRunId))
    .limit(1)
    .get();
  return row ? edgeOf(row) : null;
}

/** A sync's data edge from its summary (the closing read of the ledger head), or its start when it kept none. */
export function ledgerEdgeOf(summaryJson: string | null, startedAtMs: number): number {
  if (summaryJson === null) return startedAtMs;
  const summary: unknown = JSON.parse(summaryJson);
  const until = typeof summary === 'object' && summary !== null && 'ledgerReadUntilMs' in summary ? summary.ledgerReadUntilMs : undefined;
  return typeof until === 'number' ? until : startedAtMs;
}

/** The merchant a sync's summary says the credentials resolve to, or null (none, or a sync of an earlier version). */
function resolvedMerchantOf(summaryJson: string | null): string | null {
  if (summaryJson === null) return null;
  const summary: unknown = JSON.parse(summaryJson);
  const merchantId = typeof summary === 'object' && summary !== null && 'merchantId' in summary ? summary.merchantId : null;
  return typeof merchantId === 'string' ? merchantId : null;
}

/** The cards a sync recorded in flight: their service figures and ledgers are not of one moment. */
export function cardsInFlight(sqlite: Database.Database, syncRunId: number): Set<string> {
  const rows = typed(sqlite).select({ giftCardId: giftCardsInFlight.giftCardId }).from(giftCardsInFlight).where(eq(giftCardsInFlight.syncRunId, syncRunId)).all();
  return new Set(rows.map((row) => row.giftCardId));
}
