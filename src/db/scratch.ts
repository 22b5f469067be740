/**
 * A table of a scratch mirror filled for one reader: re-performance copies a past night's rows
 * into a freshly made SQLite mirror, where the schema's indexes the reader does not read by are
 * dropped first (a million entries kept in an index nothing reads cost about 50 s of a 111 s
 * re-performance: docs/performance.md).
 */
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { SqlConnection } from './connection.js';

/**
 * Inserts `batches` (rows of `columns`) into `table` of the scratch mirror behind `connection`,
 * in one transaction, after dropping every index the schema declares on it but those in `keep`.
 */
export async function fillScratchTable(
  connection: SqlConnection,
  table: SQLiteTable,
  columns: readonly string[],
  batches: AsyncIterable<unknown[][]>,
  keep: readonly string[] = [],
): Promise<void> {
  const { name, indexes } = getTableConfig(table);
  for (const index of indexes.map((declared) => declared.config.name))
    if (!keep.includes(index)) await connection.exec(`DROP INDEX IF EXISTS ${index}`);
  await connection.transaction(async () => {
    for await (const rows of batches) await connection.insertMany(name, columns, rows);
  });
}
