/**
 * The merchant's books as a past night's matching read them, rebuilt from the mirror (`verify
 * --run N` matches them again): every row imported by the books file the night's matching read
 * last (its summary names it), withdrawn where a file imported by then had withdrawn it. A row
 * the books import added later is left out; one a later version withdrew is in, and one it
 * brought back still withdrawn, as they were then (books_row_changes).
 * They are written into a scratch mirror (SQLite), under the table's own name, with their own
 * IDs, so the matching numbers its groups as the night did and the books checks name the rows
 * the night named.
 */
import { getTableColumns } from 'drizzle-orm';
import type { Mirror } from '../db/mirror.js';
import { booksRows } from '../db/schema.js';
import { type RowOf, selectList } from '../db/typed-rows.js';
import { fillScratchTable } from '../db/scratch.js';

/** Every column of a books row, in the schema's order. */
const COLUMNS = Object.values(getTableColumns(booksRows));
const at = (name: string): number => COLUMNS.findIndex((column) => column.name === name);
const KIND = at('kind');
const AT_MS = at('at_ms');
const WITHDRAWN = at('withdrawn_file_id');

/**
 * A books row's columns as of file @through: its withdrawal from its first change by a later
 * version (`ch`, which keeps it as it was before), else as it is (a withdrawal by a later version
 * recorded before the changes were kept is not yet one). Its other columns as they are: a row's
 * meaning never changes, and its line (which only messages name) is the newest version's.
 */
function columnAsOf(name: string): string {
  if (name === 'withdrawn_file_id')
    return `CASE WHEN ch.change_id IS NOT NULL THEN ch.withdrawn_file_id
                 WHEN b.withdrawn_file_id <= @through THEN b.withdrawn_file_id END AS withdrawn_file_id`;
  return `b.${selectList([COLUMNS[at(name)]!])}`;
}

/** What was copied of the books as of a file. */
export interface BooksAsOf {
  rows: number;
  /** When the earliest tender held then was made: the matching reads the ledger from it (less its window); null without tenders. */
  firstTenderAtMs: number | null;
}

/**
 * Copies into `scratch` (a freshly made mirror) the books rows `source` held once file
 * `throughFileId` was imported.
 */
export async function copyBooksAsOf(source: Mirror, throughFileId: number, scratch: Mirror): Promise<BooksAsOf> {
  const rows = source.connection
    .readRaw<RowOf<typeof COLUMNS>>(
      `SELECT ${COLUMNS.map((column) => columnAsOf(column.name)).join(', ')}
       FROM books_rows b
       LEFT JOIN books_row_changes ch ON ch.change_id = (SELECT MIN(x.change_id) FROM books_row_changes x WHERE x.row_id = b.row_id AND x.file_id > @through)
       WHERE b.first_file_id <= @through ORDER BY b.row_id`,
    )
    .batches([{ through: throughFileId }]);
  const copied: BooksAsOf = { rows: 0, firstTenderAtMs: null };
  // The matching reads the rows whole, never by identity: the scratch table keeps no index.
  await fillScratchTable(
    scratch.connection,
    booksRows,
    COLUMNS.map((column) => column.name),
    counted(rows, copied),
  );
  return copied;
}

/** `rows` as they pass, counted into `copied` with the earliest tender among them still held. */
async function* counted(rows: AsyncIterable<unknown[][]>, copied: BooksAsOf): AsyncGenerator<unknown[][]> {
  for await (const batch of rows) {
    copied.rows += batch.length;
    for (const row of batch)
      if (row[KIND] === 'tenders' && row[WITHDRAWN] === null) {
        const atMs = Number(row[AT_MS]);
        if (copied.firstTenderAtMs === null || atMs < copied.firstTenderAtMs) copied.firstTenderAtMs = atMs;
      }
    yield batch;
  }
}
