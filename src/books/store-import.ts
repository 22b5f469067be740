/**
 * A books file's import, written: a session of one transaction (see BooksStore.importing) that
 * records the file, adds its rows under their identities, keeps the rows an earlier version
 * holds, withdraws the ones it dropped, and records its rejections and counts.
 */
import type { SqlConnection, SqlRow } from '../db/connection.js';
import type { BooksRow } from './books-row.js';

/** The columns an imported row is written with, in the order {@link ImportSession} binds them. */
const BOOKS_ROW_COLUMNS = [
  'kind',
  'source',
  'identity',
  'first_file_id',
  'last_file_id',
  'line_no',
  'reference',
  'entry_type',
  'amount_cents',
  'currency',
  'at_ms',
  'at_text',
  'code_sha256',
  'gift_card_id',
  'external_ref',
  'raw_json',
] as const;

/** Rows a database server is sent in one insert ({@link ImportSession.addAll}): 16 values each. */
export const ADD_AT_ONCE = 500;

/** An imported row's values, bound by position in the order of BOOKS_ROW_COLUMNS. */
const paramsOf = (row: BooksRow, identity: string, source: string, fileId: number): unknown[] => [
  row.kind,
  source,
  identity,
  fileId,
  fileId,
  row.lineNo,
  row.reference,
  row.entryType,
  row.amountCents,
  row.currency,
  row.atMs,
  row.atText,
  row.codeSha256,
  row.giftCardId,
  row.externalRef,
  row.rawJson,
];

/** A file's import, inside its one transaction (see {@link BooksStore.importing}). */
export class ImportSession {
  readonly #s;
  readonly #c: SqlConnection;

  constructor(c: SqlConnection) {
    this.#c = c;
    const p = (text: string) => c.write(text);
    this.#s = {
      file: c.pluck<number>(
        'INSERT INTO books_files (kind, source, path, sha256, imported_at_ms, rows_read, rows_added, rows_withdrawn, rows_rejected) VALUES (?, ?, ?, ?, ?, 0, 0, 0, 0) RETURNING file_id',
      ),
      insert: p(c.dialect.insertOrSkip('books_rows', [...BOOKS_ROW_COLUMNS])),
      claimedBy: c.pluck<number>('SELECT last_file_id FROM books_rows WHERE identity = ?'),
      claims: c.read<{ identity: string; fileId: number }>(
        `SELECT identity, last_file_id AS "fileId" FROM books_rows WHERE ${c.dialect.inJsonArray('identity', '?')}`,
      ),
      live: c.pluck<number>(
        'SELECT COUNT(*) FROM books_rows WHERE kind = ? AND source = ? AND withdrawn_file_id IS NULL AND first_file_id <> ?',
      ),
      keep: p('UPDATE books_rows SET last_file_id = ?, line_no = ?, withdrawn_file_id = NULL WHERE identity = ?'),
      withdraw: p(
        'UPDATE books_rows SET withdrawn_file_id = ? WHERE kind = ? AND source = ? AND last_file_id <> ? AND withdrawn_file_id IS NULL AND at_ms >= ?',
      ),
      agedOut: c.pluck<number>(
        'SELECT COUNT(*) FROM books_rows WHERE kind = ? AND source = ? AND last_file_id <> ? AND withdrawn_file_id IS NULL AND at_ms < ?',
      ),
      reject: p('INSERT INTO books_rejections (file_id, line_no, reason, raw) VALUES (?, ?, ?, ?)'),
      counts: p(
        'UPDATE books_files SET rows_read = ?, rows_added = ?, rows_withdrawn = ?, rows_rejected = ? WHERE file_id = ?',
      ),
    };
  }

  /** Records the file. @returns its ID. */
  async file(
    file: Pick<SqlRow<'books_files'>, 'kind' | 'source' | 'path' | 'sha256' | 'imported_at_ms'>,
  ): Promise<number> {
    const id = await this.#s.file.get(file.kind, file.source, file.path, file.sha256, file.imported_at_ms);
    if (id === undefined) throw new Error('the books file was recorded without an ID');
    return Number(id);
  }

  /**
   * On a server, the rows kept since the last statement, by identity (the line each is kept at),
   * and the file keeping them: written as one statement before the next one runs.
   */
  #kept = new Map<string, number>();
  #keptBy = 0;

  /** Adds a row under `identity` unless a row holds it already. @returns whether it was added. */
  async #add(row: BooksRow, identity: string, source: string, fileId: number): Promise<boolean> {
    return (await this.#s.insert.run(...paramsOf(row, identity, source, fileId))) > 0;
  }

  /**
   * Adds each row under its identity unless a row holds it already, an earlier one of these
   * included. @returns for each, in order, whether it was added. On a database server the rows
   * go as multi-row inserts returning the identities they added (one statement a row is a round
   * trip each: a million-row file took 97 s); on SQLite, one statement a row is the fast way.
   */
  async addAll(
    rows: ReadonlyArray<{ row: BooksRow; identity: string }>,
    source: string,
    fileId: number,
  ): Promise<boolean[]> {
    if (!this.#c.remote) {
      const added: boolean[] = [];
      for (const { row, identity } of rows) added.push(await this.#add(row, identity, source, fileId));
      return added;
    }
    await this.#writeKept();
    const marks = `(${BOOKS_ROW_COLUMNS.map(() => '?').join(', ')})`;
    const inserted = new Set<string>();
    for (let at = 0; at < rows.length; at += ADD_AT_ONCE) {
      const chunk = rows.slice(at, at + ADD_AT_ONCE);
      const insert = this.#c.pluck<string>(
        `INSERT INTO books_rows (${BOOKS_ROW_COLUMNS.join(', ')}) VALUES ${chunk.map(() => marks).join(', ')} ON CONFLICT DO NOTHING RETURNING identity`,
      );
      for (const identity of await insert.all(
        ...chunk.flatMap(({ row, identity }) => paramsOf(row, identity, source, fileId)),
      ))
        inserted.add(identity);
    }
    // Of rows under one identity, the first in order was inserted and the others met it.
    return rows.map(({ identity }) => inserted.delete(identity));
  }

  /**
   * The file whose version holds the row of each of these identities (none: no row holds it).
   * On a server, one statement for them all; on SQLite, one lookup each.
   */
  async claimedBy(identities: readonly string[]): Promise<Map<string, number>> {
    const claims = new Map<string, number>();
    if (identities.length === 0) return claims;
    await this.#writeKept();
    if (!this.#c.remote) {
      for (const identity of identities) {
        const id = await this.#s.claimedBy.get(identity);
        if (id !== undefined) claims.set(identity, Number(id));
      }
      return claims;
    }
    // The import reads the rows it adds: a plan made for the table as it was would not do.
    const { before, after } = this.#c.dialect.planForNow;
    await this.#c.exec(before);
    for (const { identity, fileId } of await this.#s.claims.all(JSON.stringify(identities)))
      claims.set(identity, Number(fileId));
    await this.#c.exec(after);
    return claims;
  }

  /**
   * Keeps the row of this identity in this file's version, at this line. Its count is not read.
   * On SQLite it is written now; on a server, with the rows kept beside it, as one statement
   * before the session's next (a new version of a million-row file keeps nearly every row: one
   * round trip each took 22 s for 200,000 rows).
   */
  keep(fileId: number, lineNo: number, identity: string): void {
    if (!this.#c.remote) {
      this.#s.keep.later(fileId, lineNo, identity);
      return;
    }
    this.#keptBy = fileId;
    this.#kept.set(identity, lineNo);
  }

  /** Writes the rows kept on a server, ADD_AT_ONCE a statement. */
  async #writeKept(): Promise<void> {
    if (this.#kept.size === 0) return;
    const kept = [...this.#kept];
    this.#kept.clear();
    for (let at = 0; at < kept.length; at += ADD_AT_ONCE) {
      const chunk = kept.slice(at, at + ADD_AT_ONCE);
      // A VALUES list names its columns column1, column2 in both databases; the first row types them.
      const rows = chunk.map((_, i) => (i === 0 ? '(CAST(? AS TEXT), CAST(? AS BIGINT))' : '(?, ?)')).join(', ');
      await this.#c
        .write(
          `UPDATE books_rows SET last_file_id = ?, line_no = kept.column2, withdrawn_file_id = NULL FROM (VALUES ${rows}) AS kept WHERE books_rows.identity = kept.column1`,
        )
        .run(this.#keptBy, ...chunk.flat());
    }
  }

  /** The rows of the source's previous versions still held. */
  async held(kind: string, source: string, fileId: number): Promise<number> {
    await this.#writeKept();
    return Number((await this.#s.live.get(kind, source, fileId)) ?? 0);
  }

  /**
   * Withdraws the source's rows this version no longer holds, those at or after `fromMs` (a
   * rolling export's window: rows before it aged out of the file and stay). @returns how many
   * were withdrawn, and how many older rows this version no longer holds were kept.
   */
  async withdrawUnclaimed(
    kind: string,
    source: string,
    fileId: number,
    fromMs: number,
  ): Promise<{ withdrawn: number; agedOut: number }> {
    await this.#writeKept();
    const agedOut = Number((await this.#s.agedOut.get(kind, source, fileId, fromMs)) ?? 0);
    return { withdrawn: await this.#s.withdraw.run(fileId, kind, source, fileId, fromMs), agedOut };
  }

  async reject(fileId: number, line: number, reason: string, raw: string | null): Promise<void> {
    await this.#writeKept();
    await this.#s.reject.run(fileId, line, reason, raw);
  }

  async counts(
    fileId: number,
    counts: { read: number; added: number; withdrawn: number; rejected: number },
  ): Promise<void> {
    await this.#writeKept();
    await this.#s.counts.run(counts.read, counts.added, counts.withdrawn, counts.rejected, fileId);
  }
}
