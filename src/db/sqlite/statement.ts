/**
 * Typed prepared statements for the stores' hand-written SQL (bulk loads, hot lookups, set-based
 * passes): a statement's row type is declared once, where it is prepared, from the schema
 * ({@link SqlRow}: a table's row as SQL names its columns), and preparing it on the migrated
 * mirror checks every table and column it names (test/db/stores.test.ts prepares each store's).
 * The one cast from the driver's untyped rows is here.
 */
import type Database from 'better-sqlite3';

export type { SqlRow } from '../tables.js';

/** A prepared read yielding rows of `Row`. */
export interface Read<Row> {
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
  iterate(...params: unknown[]): IterableIterator<Row>;
}

/** A prepared write. */
export interface Write {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

/** Prepares a read whose rows are `Row` (its SELECT names each column as `Row` does). */
export function read<Row>(sqlite: Database.Database, sql: string): Read<Row> {
  return sqlite.prepare(sql) as unknown as Read<Row>;
}

/** Prepares a read of one column, each row that column's value `V`. */
export function pluck<V>(sqlite: Database.Database, sql: string): Read<V> {
  return sqlite.prepare(sql).pluck() as unknown as Read<V>;
}

/** Prepares a write. */
export function write(sqlite: Database.Database, sql: string): Write {
  return sqlite.prepare(sql);
}

/** Rows handed out per batch by {@link inBatches}: a turn of the event loop per row would cost more than the row. */
export const BATCH_ROWS = 1_000;

/** A streaming read handed out asynchronously, in batches of rows. */
export async function* inBatches<T>(rows: Iterable<T>, size = BATCH_ROWS): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Prepares a read yielding each row as a positional tuple `Row`, in its SELECT list's order. */
export function readRaw<Row extends unknown[]>(sqlite: Database.Database, sql: string): Read<Row> {
  return sqlite.prepare(sql).raw(true) as unknown as Read<Row>;
}

/** The rows of a statement whose columns nobody declared (an investigator's own), keyed by column name. */
export function untypedRows(statement: Database.Statement): Record<string, unknown>[] {
  return statement.all() as Record<string, unknown>[];
}
