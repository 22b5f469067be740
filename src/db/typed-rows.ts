/**
 * Raw rows typed by the schema. Where a hot read must stay a raw, positional statement (the
 * walk over every card and entry streams tuples: objects per row cost a tenth of its time), its
 * SELECT list is built from the schema's columns and its row type derived from the same list, so
 * a column's type or nullability changing in the schema changes the row's type, and no reader
 * declares the row by hand.
 */
import type { AnyColumn } from 'drizzle-orm';

/** The tuple a raw SELECT of `columns` yields, typed from the schema: nullable columns may be null. */
export type RowOf<C extends readonly AnyColumn[]> = {
  -readonly [K in keyof C]: C[K] extends AnyColumn
    ? C[K]['_']['notNull'] extends true
      ? C[K]['_']['data']
      : C[K]['_']['data'] | null
    : never;
};

/** The SELECT list of `columns`, by their SQL names, in order. */
export function selectList(columns: readonly AnyColumn[]): string {
  return columns.map((column) => `"${column.name}"`).join(', ');
}
