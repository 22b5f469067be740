/**
 * What a sync row means to a check run: which sync a run checks, its data edge (from its
 * summary) and the merchant it resolved. The rows come from the checks' store.
 */
import type { syncRuns } from '../db/schema.js';

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

/** A sync row as the checks' store reads it. */
export type SyncRow = {
  syncRunId: number;
  status: SyncEdge['status'];
  error: string | null;
  startedAtMs: number;
  summaryJson: string | null;
};

/** A sync row with its data edge and resolved merchant. */
export function edgeOf(row: SyncRow): SyncEdge {
  return {
    syncRunId: row.syncRunId,
    status: row.status,
    error: row.error,
    startedAtMs: row.startedAtMs,
    cutOffMs: ledgerEdgeOf(row.summaryJson, row.startedAtMs),
    merchantId: resolvedMerchantOf(row.summaryJson),
  };
}

/** A sync's data edge from its summary (the closing read of the ledger head), or its start when it kept none. */
export function ledgerEdgeOf(summaryJson: string | null, startedAtMs: number): number {
  if (summaryJson === null) return startedAtMs;
  const summary: unknown = JSON.parse(summaryJson);
  const until =
    typeof summary === 'object' && summary !== null && 'ledgerReadUntilMs' in summary
      ? summary.ledgerReadUntilMs
      : undefined;
  return typeof until === 'number' ? until : startedAtMs;
}

/** The merchant a sync's summary says the credentials resolve to, or null (none, or a sync of an earlier version). */
function resolvedMerchantOf(summaryJson: string | null): string | null {
  if (summaryJson === null) return null;
  const summary: unknown = JSON.parse(summaryJson);
  const merchantId =
    typeof summary === 'object' && summary !== null && 'merchantId' in summary ? summary.merchantId : null;
  return typeof merchantId === 'string' ? merchantId : null;
}
