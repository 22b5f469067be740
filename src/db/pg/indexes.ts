/**
 * The ledger's indexes that a first sync's bulk load drops and builds after, on PostgreSQL, as
 * on SQLite (src/db/sqlite/indexes.ts): without its unique index the load inserts entries many
 * rows a statement, and an entry the list gave twice (it shifted under the walk) collapses onto
 * its first row when the index is built, a version kept where it came back different.
 */
import type { SqlConnection } from '../connection.js';
import type { SqlRow } from '../tables.js';

/** Exactly as drizzle/pg/0000_tables.sql defines them. */
const ENTRY_ID_INDEX = 'CREATE UNIQUE INDEX IF NOT EXISTS gift_card_transactions_id ON gift_card_transactions USING btree (transaction_id)';
const LEDGER_INDEXES = [
  'CREATE INDEX IF NOT EXISTS gift_card_transactions_card ON gift_card_transactions USING btree (gift_card_id, created_at_ms, list_order, vanished_sync_run_id, transaction_id, type, amount_cents, balance_before_cents, balance_after_cents, reference_id, idempotency_key, first_sync_run_id)',
  'CREATE INDEX IF NOT EXISTS gift_card_transactions_reference ON gift_card_transactions USING btree (reference_id)',
  'CREATE INDEX IF NOT EXISTS gift_card_transactions_idempotency ON gift_card_transactions USING btree (idempotency_key)',
];
const NAMES = ['gift_card_transactions_id', 'gift_card_transactions_card', 'gift_card_transactions_reference', 'gift_card_transactions_idempotency'];

/** Drops the ledger's indexes for a bulk load into an empty ledger. */
export async function dropLedgerIndexes(connection: SqlConnection): Promise<void> {
  await connection.exec(NAMES.map((name) => `DROP INDEX IF EXISTS ${name}`).join('; '));
}

/** Builds them again, collapsing entries loaded twice first. @returns how many rows collapsed. */
export async function createLedgerIndexes(connection: SqlConnection, syncRunId: number): Promise<number> {
  let collapsed = 0;
  try {
    await connection.exec(ENTRY_ID_INDEX);
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    collapsed = await connection.transaction(() => collapseDuplicateEntries(connection, syncRunId));
    await connection.exec(ENTRY_ID_INDEX);
  }
  await connection.exec(LEDGER_INDEXES.join('; '));
  return collapsed;
}

const ENTRY_FIELDS = ['gift_card_id', 'type', 'amount_cents', 'balance_before_cents', 'balance_after_cents', 'reference_id', 'idempotency_key', 'created_at', 'created_at_ms', 'raw_json'] as const;

/** Each entry loaded more than once keeps its first row, holding the last content read, and a version of each change. */
async function collapseDuplicateEntries(connection: SqlConnection, syncRunId: number): Promise<number> {
  const rows = await connection
    .read<SqlRow<'gift_card_transactions', 'entry_id' | 'transaction_id' | 'raw_json'>>(
      `SELECT entry_id, transaction_id, raw_json FROM gift_card_transactions
       WHERE transaction_id IN (SELECT transaction_id FROM gift_card_transactions GROUP BY transaction_id HAVING COUNT(*) > 1)
       ORDER BY transaction_id, entry_id`,
    )
    .all();
  const version = connection.write("INSERT INTO gift_card_transaction_versions (transaction_id, sync_run_id, change, previous_raw_json, new_raw_json) VALUES (?, ?, 'changed', ?, ?)");
  const fields = ENTRY_FIELDS.join(', ');
  const adopt = connection.write(`UPDATE gift_card_transactions SET (${fields}) = (SELECT ${fields} FROM gift_card_transactions WHERE entry_id = @later) WHERE entry_id = @kept`);
  const remove = connection.write('DELETE FROM gift_card_transactions WHERE entry_id = ?');
  let kept: (typeof rows)[number] | undefined;
  for (const row of rows) {
    if (kept?.transaction_id !== row.transaction_id) {
      kept = row;
      continue;
    }
    if (row.raw_json !== kept.raw_json) {
      await version.run(row.transaction_id, syncRunId, kept.raw_json, row.raw_json);
      await adopt.run({ later: row.entry_id, kept: kept.entry_id });
      kept = { ...kept, raw_json: row.raw_json };
    }
    await remove.run(row.entry_id);
  }
  return rows.length - new Set(rows.map((row) => row.transaction_id)).size;
}
