/**
 * Entries a bulk load mirrored twice (the list shifted under the walk, or a refused cursor
 * restarted it), collapsed when the ledger's unique index is built: each keeps its first row,
 * holding the content read last, and a version of each change. The statements and the plan are
 * both backends'; each dialect folder runs the plan (SQLite at once, PostgreSQL awaited).
 */
import type { SqlRow } from './tables.js';

/** A row of an entry loaded more than once. */
export type LoadedTwice = SqlRow<'gift_card_transactions', 'entry_id' | 'transaction_id' | 'raw_json'>;

const ENTRY_FIELDS = [
  'gift_card_id',
  'type',
  'amount_cents',
  'balance_before_cents',
  'balance_after_cents',
  'reference_id',
  'idempotency_key',
  'created_at',
  'created_at_ms',
  'raw_json',
].join(', ');

/** The statements a collapse runs: its read, then a version, an adoption and a removal. */
export const COLLAPSE_SQL = {
  rows: `SELECT entry_id, transaction_id, raw_json FROM gift_card_transactions
         WHERE transaction_id IN (SELECT transaction_id FROM gift_card_transactions GROUP BY transaction_id HAVING COUNT(*) > 1)
         ORDER BY transaction_id, entry_id`,
  version:
    "INSERT INTO gift_card_transaction_versions (transaction_id, sync_run_id, change, previous_raw_json, new_raw_json) VALUES (?, ?, 'changed', ?, ?)",
  adopt: `UPDATE gift_card_transactions SET (${ENTRY_FIELDS}) = (SELECT ${ENTRY_FIELDS} FROM gift_card_transactions WHERE entry_id = @later) WHERE entry_id = @kept`,
  remove: 'DELETE FROM gift_card_transactions WHERE entry_id = ?',
} as const;

/** One step of a collapse, in order. */
export type CollapseStep =
  | { kind: 'version'; transactionId: string; previous: string; next: string }
  | { kind: 'adopt'; later: number; kept: number }
  | { kind: 'remove'; entryId: number };

/** The steps that collapse `rows` (ordered by entry, then row), and how many rows go. */
export function collapsePlan(rows: readonly LoadedTwice[]): { steps: CollapseStep[]; collapsed: number } {
  const steps: CollapseStep[] = [];
  let kept: LoadedTwice | undefined;
  for (const row of rows) {
    if (kept?.transaction_id !== row.transaction_id) {
      kept = row;
      continue;
    }
    if (row.raw_json !== kept.raw_json) {
      steps.push({ kind: 'version', transactionId: row.transaction_id, previous: kept.raw_json, next: row.raw_json });
      steps.push({ kind: 'adopt', later: row.entry_id, kept: kept.entry_id });
      kept = { ...kept, raw_json: row.raw_json };
    }
    steps.push({ kind: 'remove', entryId: row.entry_id });
  }
  return { steps, collapsed: rows.length - new Set(rows.map((row) => row.transaction_id)).size };
}
