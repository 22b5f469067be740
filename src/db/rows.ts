/**
 * The one mapper per row kind, generic: a row as SQL names its columns (what the typed query
 * layer returns and takes) to and from the row as the schema's keys name them (drizzle's
 * `$inferSelect`, what the stages use). Built from the schema's own column map, so a column
 * added or renamed there is mapped here without a line written by hand.
 */
import { getTableColumns, type Table } from 'drizzle-orm';
import type { Insertable, Selectable } from 'kysely';
import type { MirrorTables } from './tables.js';

/** The typed query layer's table for a schema table. */
export type SqlTableOf<T extends Table> = MirrorTables[T['_']['name'] & keyof MirrorTables];

const PAIRS = new WeakMap<Table, ReadonlyArray<readonly [key: string, name: string]>>();

function pairsOf(table: Table): ReadonlyArray<readonly [string, string]> {
  let pairs = PAIRS.get(table);
  if (!pairs)
    PAIRS.set(
      table,
      (pairs = Object.entries(getTableColumns(table)).map(([key, column]) => [key, column.name] as const)),
    );
  return pairs;
}

/** A row read through the query layer, as the schema's keys name it. */
export function fromSql<T extends Table>(table: T, row: Selectable<SqlTableOf<T>>): T['$inferSelect'] {
  const source = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, name] of pairsOf(table)) out[key] = source[name];
  return out as T['$inferSelect'];
}

/** A row to write through the query layer, as SQL names it. */
export function toSql<T extends Table>(table: T, row: T['$inferInsert']): Insertable<SqlTableOf<T>> {
  const source = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, name] of pairsOf(table)) if (source[key] !== undefined) out[name] = source[key];
  return out as Insertable<SqlTableOf<T>>;
}
