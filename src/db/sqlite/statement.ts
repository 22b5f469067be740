/**
 * Typed prepared statements for this folder's own synchronous SQL (opening, index builds): a
 * statement's row type is declared once, where it is prepared. The stores' SQL goes through the
 * async connection (connection.ts). The casts from the driver's untyped rows are here.
 */
import type Database from 'better-sqlite3';

export type { SqlRow } from '../tables.js';

/** A prepared read yielding rows of `Row`. */
export interface Read<Row> {
  get(...params: unknown[]): Row | undefined;
  all(...params: unknown[]): Row[];
}

/** Prepares a read whose rows are `Row` (its SELECT names each column as `Row` does). */
export function read<Row>(sqlite: Database.Database, sql: string): Read<Row> {
  return sqlite.prepare(sql) as unknown as Read<Row>;
}

/** Prepares a read of one column, each row that column's value `V`. */
export function pluck<V>(sqlite: Database.Database, sql: string): Read<V> {
  return sqlite.prepare(sql).pluck() as unknown as Read<V>;
}

/** The rows of a statement whose columns nobody declared (an investigator's own), keyed by column name. */
export function untypedRows(statement: Database.Statement): Record<string, unknown>[] {
  return statement.all() as Record<string, unknown>[];
}
