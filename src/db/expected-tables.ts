/**
 * The tables every mirror holds, by name, from the one schema (schema.ts): what an integrity
 * check looks for, so that a table dropped or renamed by hand is named, never "integrity ok".
 */
import { getTableName, is, Table } from 'drizzle-orm';
import * as schema from './schema.js';

export const MIRROR_TABLES: readonly string[] = (Object.values(schema) as unknown[])
  .flatMap((value) => (is(value, Table) ? [getTableName(value)] : []))
  .sort();

/** The mirror's tables missing from `present`, as an integrity check's finding ('ok' when none). */
export function missingTables(present: Iterable<string>): string {
  const found = new Set(present);
  const missing = MIRROR_TABLES.filter((name) => !found.has(name));
  return missing.length === 0
    ? 'ok'
    : `the mirror lacks ${missing.length === 1 ? 'the table' : 'the tables'} ${missing.join(', ')} (dropped or renamed by hand?)`;
}

/**
 * A statement that failed because a mirror's table is gone (PostgreSQL's 42P01, SQLite's "no
 * such table"), as the sentence a person needs; undefined for any other error.
 */
export function missingTableMessage(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const table =
    /relation "([^"]+)" does not exist/.exec(message)?.[1] ?? /no such table: (?:main\.)?(\S+)/.exec(message)?.[1];
  if (table === undefined) return undefined;
  return `the mirror lacks its table ${table} (dropped or renamed by hand?): ledger-recon doctor names what is missing; restore the mirror from a backup, or sync into a new one`;
}
