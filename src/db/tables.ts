/**
 * The mirror's tables as the typed query layer (kysely) sees them, derived from the one schema
 * (schema.ts, drizzle's, which also makes the migrations): a row kind is declared once, there.
 * Keys are the SQL names (`gift_card_id`), values the column's type, NULL where the column
 * allows it; a column the database fills (an autoincrement key, a default) is optional on insert.
 * test/db/tables.test.ts proves the live schema has every table and column named here.
 */
import type { AnyColumn, Table } from 'drizzle-orm';
import type { Generated, Selectable } from 'kysely';
import type * as schema from './schema.js';

/**
 * A flag as a database stores it: SQLite keeps 0 or 1 (a column drizzle reads as a boolean),
 * PostgreSQL a boolean. Read it with `Boolean(value)`, write it as either.
 */
export type SqlFlag = number | boolean;

/** What a column stores for the schema's type `D`. */
type Stored<D> = [D] extends [boolean] ? SqlFlag : D;

/** A column's value as stored: its type, or null where the column allows NULL. */
type ValueOf<C extends AnyColumn> = C['_']['notNull'] extends true
  ? Stored<C['_']['data']>
  : Stored<C['_']['data']> | null;

/** A column as kysely types it: generated (optional on insert) where the database fills it. */
type ColumnOf<C extends AnyColumn> = C['_']['hasDefault'] extends true
  ? Generated<ValueOf<C>>
  : C['_']['isAutoincrement'] extends true
    ? Generated<ValueOf<C>>
    : ValueOf<C>;

/** A table's row, keyed by SQL column names. */
type RowOf<T extends Table> = {
  [K in keyof T['_']['columns'] as T['_']['columns'][K]['_']['name']]: ColumnOf<T['_']['columns'][K]>;
};

/** The schema's tables (its exports that are tables), by export name. */
type SchemaTables = { [K in keyof typeof schema as (typeof schema)[K] extends Table ? K : never]: (typeof schema)[K] };

/** Every table of the mirror by its SQL name, for `Kysely<MirrorTables>`. */
export type MirrorTables = {
  [K in keyof SchemaTables as SchemaTables[K] extends Table
    ? SchemaTables[K]['_']['name']
    : never]: SchemaTables[K] extends Table ? RowOf<SchemaTables[K]> : never;
};

/** A row of table `T` as SQL names its columns, limited to the columns `K` (all by default): a row kind is never declared by hand. */
export type SqlRow<
  T extends keyof MirrorTables,
  K extends keyof Selectable<MirrorTables[T]> = keyof Selectable<MirrorTables[T]>,
> = Pick<Selectable<MirrorTables[T]>, K>;
