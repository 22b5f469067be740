/**
 * What a store's hand-written SQL may not write for one database alone: JSON fields and arrays,
 * planner hints, temporary tables, string aggregation. Each dialect folder implements it
 * (src/db/sqlite/dialect.ts); a store builds its SQL from these fragments and plain SQL that
 * SQLite and PostgreSQL both read (ON CONFLICT upserts, CASE sums, window functions).
 */
export interface SqlDialect {
  /** A top-level field of a JSON text column, as text (a number's literal as written). */
  jsonField(column: string, field: string): string;
  /** A condition: `column` is one of the strings of a JSON array bound at `param` ('?' or '@name'). */
  inJsonArray(column: string, param: string): string;
  /** The index a read must go through, where the planner has to be told; empty where it needs no telling. */
  indexedBy(index: string): string;
  /** An ORDER BY term sorting a text column byte by byte, as JavaScript compares ASCII strings (never by a locale's collation). */
  binaryOrder(column: string): string;
  /**
   * A join that keeps the table before it as the outer loop, where the planner must be told
   * (SQLite's CROSS JOIN … ON); a plain JOIN where it need not.
   */
  joinInOrder: string;
  /** The column type of a temporary table's ID: text compared as the mirror's IDs are (byte by byte). */
  idText: string;
  /**
   * A condition: `outer` is none of the `inner` values of `from` (filtered by `where`, or `TRUE`).
   * SQLite's NOT IN builds a transient index of the list; PostgreSQL hashes a list only within
   * work_mem and otherwise scans it once per row, while its NOT EXISTS is one hash anti-join.
   */
  notIn(outer: string, inner: string, from: string, where?: string): string;
  /** A temporary table's name as a statement refers to it. */
  temporary(name: string): string;
  /**
   * The top-level keys of the JSON object `previous` whose values differ in `next` (null when
   * `next` is null), joined with ', ': what changed in a record that came back different.
   */
  changedJsonKeys(previous: string, next: string): string;
  /**
   * An insert of one row that is skipped, not an error, when it would repeat a unique key: the
   * bulk load's. SQLite's INSERT OR IGNORE, not its upsert syntax (ON CONFLICT DO NOTHING cost
   * the full sync bench 270 MB more peak RSS and 10 % more time).
   */
  insertOrSkip(table: string, columns: readonly string[]): string;
  /**
   * The statements to run before and after a read of a table its own transaction is filling
   * (the books import's lookup of identities), so that the read is planned for the table as it
   * is now; empty where nothing needs them. PostgreSQL keeps a prepared statement's generic
   * plan, made while the table was small: a lookup by a unique key planned as a scan of an
   * empty table scanned the whole table at every batch of a million-row import (8 ms a batch
   * at 200,000 rows, and growing). Around that read alone: planning every statement of the
   * import anew (its 500-row inserts) cost the tenders import 6 s of 30.
   */
  planForNow: { before: string; after: string };
}
