/**
 * The ledger's indexes that a first sync's bulk load drops and builds after, on PostgreSQL, as
 * on SQLite (src/db/sqlite/indexes.ts): without its unique index the load inserts entries many
 * rows a statement, and an entry the list gave twice (it shifted under the walk) collapses onto
 * its first row when the index is built, a version kept where it came back different.
 */
import type { SqlConnection } from '../connection.js';
import { COLLAPSE_SQL, collapsePlan, type LoadedTwice } from '../collapse.js';

/** Exactly as drizzle/pg/0000_tables.sql defines them. */
const ENTRY_ID_INDEX =
  'CREATE UNIQUE INDEX IF NOT EXISTS gift_card_transactions_id ON gift_card_transactions USING btree (transaction_id)';
const LEDGER_INDEXES = [
  'CREATE INDEX IF NOT EXISTS gift_card_transactions_card ON gift_card_transactions USING btree (gift_card_id, created_at_ms, list_order, vanished_sync_run_id, transaction_id, type, amount_cents, balance_before_cents, balance_after_cents, reference_id, idempotency_key, first_sync_run_id)',
  'CREATE INDEX IF NOT EXISTS gift_card_transactions_reference ON gift_card_transactions USING btree (reference_id)',
  'CREATE INDEX IF NOT EXISTS gift_card_transactions_idempotency ON gift_card_transactions USING btree (idempotency_key)',
];
const NAMES = [
  'gift_card_transactions_id',
  'gift_card_transactions_card',
  'gift_card_transactions_reference',
  'gift_card_transactions_idempotency',
];

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

/** Each entry loaded more than once keeps its first row, holding the last content read, and a version of each change. */
async function collapseDuplicateEntries(connection: SqlConnection, syncRunId: number): Promise<number> {
  const { steps, collapsed } = collapsePlan(await connection.read<LoadedTwice>(COLLAPSE_SQL.rows).all());
  const version = connection.write(COLLAPSE_SQL.version);
  const adopt = connection.write(COLLAPSE_SQL.adopt);
  const remove = connection.write(COLLAPSE_SQL.remove);
  for (const step of steps) {
    if (step.kind === 'version') await version.run(step.transactionId, syncRunId, step.previous, step.next);
    else if (step.kind === 'adopt') await adopt.run({ later: step.later, kept: step.kept });
    else await remove.run(step.entryId);
  }
  return collapsed;
}
