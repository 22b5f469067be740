/**
 * The books stage's store: the only code that holds the mirror's connection for the books
 * tables (files, rows, rejections, the matching's rows). Typed reads of the latest matching
 * through the query layer ({@link BooksReads}); the import's and the matching's writes as
 * sessions of one transaction each ({@link BooksStore}), whose statements are prepared here with
 * their row types declared beside them.
 */
import { sql } from 'kysely';
import { rowsOf, type SqlConnection, type SqlRow } from '../db/connection.js';
import type { Mirror, MirrorQueries } from '../db/mirror.js';
import type { BooksRow } from './books-row.js';
import type { BooksTender, LedgerTender, MatchStatus } from './match.js';

/** One record of a match group: a books row (with its file and line) or a service record. */
export interface MatchRecord {
  side: 'books' | 'ledger' | 'coupon' | 'dp-order';
  recordId: string;
  reference: string | null;
  entryType: string | null;
  amountCents: number | null;
  currency: string | null;
  atMs: number | null;
  booksCount: number | null;
  serviceCount: number | null;
  /** A books row's file and line. */
  file: string | null;
  line: number | null;
  /** A ledger entry's card. */
  giftCardId: string | null;
}

export interface MatchGroup {
  groupId: number;
  kind: string;
  status: MatchStatus;
  rule: string | null;
  records: MatchRecord[];
}

const GROUP_ROWS = `SELECT m.group_id AS "groupId", m.kind, m.status, m.rule, m.side, m.record_id AS "recordId", m.reference, m.entry_type AS "entryType",
    m.amount_cents AS "amountCents", m.currency, m.at_ms AS "atMs", m.books_count AS "booksCount", m.service_count AS "serviceCount",
    b.source AS file, b.line_no AS line, t.gift_card_id AS "giftCardId"
  FROM books_match_rows m
  LEFT JOIN books_rows b ON b.row_id = CASE WHEN m.side = 'books' THEN CAST(m.record_id AS BIGINT) END
  LEFT JOIN gift_card_transactions t ON m.side = 'ledger' AND t.transaction_id = m.record_id`;

/**
 * The books stage's reads through the typed query layer (the matching's groups, for the books
 * checks); the report's reads below still use the connection (#31).
 */
export class BooksReads {
  constructor(private readonly db: MirrorQueries) {}

  /** The groups of these kinds in these states, in group order, books side first. */
  async matchGroups(kinds: readonly string[], statuses: readonly MatchStatus[]): Promise<MatchGroup[]> {
    const rows = await this.db
      .selectFrom('books_match_rows as m')
      // A books row's ID is a number only where the record is a books row: cast there alone.
      .leftJoin('books_rows as b', (join) =>
        join.on(sql<boolean>`b.row_id = CASE WHEN m.side = 'books' THEN CAST(m.record_id AS BIGINT) END`),
      )
      .leftJoin('gift_card_transactions as t', (join) =>
        join.on('m.side', '=', 'ledger').onRef('t.transaction_id', '=', 'm.record_id'),
      )
      .select([
        'm.group_id as groupId',
        'm.kind',
        'm.status',
        'm.rule',
        'm.side',
        'm.record_id as recordId',
        'm.reference',
        'm.entry_type as entryType',
        'm.amount_cents as amountCents',
        'm.currency',
        'm.at_ms as atMs',
        'm.books_count as booksCount',
        'm.service_count as serviceCount',
        'b.source as file',
        'b.line_no as line',
        't.gift_card_id as giftCardId',
      ])
      .where('m.kind', 'in', [...kinds])
      .where('m.status', 'in', [...statuses])
      .orderBy('m.group_id')
      .orderBy(sql`CASE m.side WHEN 'books' THEN 0 ELSE 1 END`)
      .orderBy('m.at_ms')
      .orderBy('m.record_id')
      .execute();
    return toGroups(rows);
  }
}

/** One record of the latest matching with its group's status and rule: a row of the Matching sheet. */
export type MatchRow = MatchRecord & { groupId: number; kind: string; status: MatchStatus; rule: string | null };

function toGroups(rows: MatchRow[]): MatchGroup[] {
  const groups: MatchGroup[] = [];
  for (const { groupId, kind, status, rule, ...record } of rows) {
    const last = groups.at(-1);
    if (last?.groupId === groupId) last.records.push(record);
    else groups.push({ groupId, kind, status, rule, records: [record] });
  }
  return groups;
}

/** Records of one kind, side, status and rule (null for none), with their amount per currency. */
export interface MatchRate {
  kind: string;
  side: string;
  status: MatchStatus;
  rule: string | null;
  currency: string | null;
  records: number;
  amountCents: number;
}

/** A books row's time span per kind: the scope of its matching. */
export interface BooksSpan {
  kind: string;
  firstMs: number;
  lastMs: number;
}

/** A row of the matching's result, as the matching writes it: a record of a group. */
export type MatchWrite = Pick<
  MatchRecord,
  'recordId' | 'reference' | 'entryType' | 'amountCents' | 'currency' | 'atMs'
> & {
  groupId: number;
  kind: string;
  status: MatchStatus;
  rule: string | null;
  side: MatchRecord['side'];
  booksCount?: number;
  serviceCount?: number;
};

/** A coupon use in the books. */
export interface BooksUse {
  rowId: number;
  reference: string | null;
  codeSha256: string | null;
  atMs: number;
}

/** One of our coupons, for its uses. */
export interface CouponUses {
  couponId: string;
  codeHash: string | null;
  redemptionCount: number;
  createdAt: string;
  updatedAtMs: number;
}

/** A DP purchase in the books. */
export interface BooksPurchase {
  rowId: number;
  externalRef: string;
  amountCents: number;
  currency: string;
  atMs: number;
}

/** A DP order placed (not FAILED). */
export interface PlacedOrder {
  orderId: string;
  externalRef: string;
  totalCents: number | null;
  currency: string;
  atMs: number;
}

/** A books tender not paired by the exact rule, with what names its card. */
export type UnpairedBooksTender = Omit<BooksTender, 'giftCardId'> & {
  codeSha256: string | null;
  giftCardId: string | null;
};

/** The books' tenders still held (payment as DEBIT, refund as REFUND). */
const BOOKS_TENDERS = `SELECT row_id AS "rowId", reference, CASE entry_type WHEN 'payment' THEN 'DEBIT' ELSE 'REFUND' END AS type, amount_cents AS "amountCents",
  currency, at_ms AS "atMs", code_sha256 AS "codeSha256", gift_card_id AS "giftCardId"
  FROM books_rows WHERE kind = 'tenders' AND withdrawn_file_id IS NULL AND amount_cents IS NOT NULL AND currency IS NOT NULL`;

/** Our cards' DEBIT and REFUND entries in scope (@merchant, from @from on), in their card's currency. */
const LEDGER_TENDERS = `SELECT t.transaction_id AS "transactionId", t.gift_card_id AS "giftCardId", t.type, t.amount_cents AS "amountCents", c.currency, t.reference_id AS reference, t.created_at_ms AS "atMs"
  FROM gift_card_transactions t JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
  WHERE t.type IN ('DEBIT', 'REFUND') AND t.vanished_sync_run_id IS NULL AND t.amount_cents > 0 AND t.created_at_ms >= @from AND (c.merchant_id = @merchant OR @merchant IS NULL)`;

/** The columns of a matching's row, in the order {@link MatchSession.row} binds them. */
const MATCH_COLUMNS = [
  'group_id',
  'kind',
  'status',
  'rule',
  'side',
  'record_id',
  'reference',
  'entry_type',
  'amount_cents',
  'currency',
  'at_ms',
  'books_count',
  'service_count',
  'matched_at_ms',
] as const;

/** Rows a matching holds before it writes them. */
const MATCH_ROWS_PER_WRITE = 500;

/**
 * The matching's one transaction: what it reads and writes while it replaces the stored result.
 * Group IDs are numbered after every books row ID, so that groups made in SQL (numbered by their
 * books row) never collide with those written one by one. Rows are written a few hundred at a
 * time, in order, behind the matching's back; each read waits for them first.
 */
export class MatchSession {
  groups = 0;
  #next = 1;
  #held: unknown[][] = [];
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly c: SqlConnection,
    private readonly nowMs: number,
  ) {}

  /** Numbers groups after every books row. */
  async start(): Promise<void> {
    this.#next = ((await this.c.pluck<number | null>('SELECT MAX(row_id) FROM books_rows').get()) ?? 0) + 1;
  }

  /** Allocates a group ID. */
  group(): number {
    this.groups += 1;
    return this.#next++;
  }

  row(row: MatchWrite): void {
    this.#held.push([
      row.groupId,
      row.kind,
      row.status,
      row.rule,
      row.side,
      row.recordId,
      row.reference,
      row.entryType,
      row.amountCents,
      row.currency,
      row.atMs,
      row.booksCount ?? null,
      row.serviceCount ?? null,
      this.nowMs,
    ]);
    if (this.#held.length >= MATCH_ROWS_PER_WRITE) this.#write();
  }

  #write(): void {
    const rows = this.#held;
    this.#held = [];
    if (rows.length > 0)
      this.#writing = this.#writing.then(() => this.c.insertMany('books_match_rows', MATCH_COLUMNS, rows));
  }

  /** Every row given so far, written (a read must see them, and an error is the matching's). */
  async written(): Promise<void> {
    this.#write();
    await this.#writing;
  }

  /**
   * The exact rule where it is one to one, in SQL: one sort of both sides by the rule's key,
   * most of a healthy month, never held in memory; the pairs are written as matched groups.
   * (An entry of no amount, or a negative one, moved no money: GC_INVALID_AMOUNT's, not a
   * tender.) @returns the tenders of both sides left for every rule.
   */
  async pairExactTenders(scope: {
    merchant: string | null;
    from: number;
  }): Promise<{ books: UnpairedBooksTender[]; ledger: LedgerTender[] }> {
    await this.written();
    const c = this.c;
    const pairs = c.dialect.temporary('match_pairs');
    await c.exec(`DROP TABLE IF EXISTS ${pairs}`);
    await c
      .write(
        `CREATE TEMP TABLE match_pairs AS
         SELECT reference, type, currency, "amountCents",
                MAX(CASE WHEN side = 0 THEN "rowId" END) AS "rowId", MAX(CASE WHEN side = 0 THEN "atMs" END) AS "booksAtMs",
                MAX(CASE WHEN side = 1 THEN "transactionId" END) AS "transactionId", MAX(CASE WHEN side = 1 THEN "atMs" END) AS "ledgerAtMs"
         FROM (SELECT 0 AS side, "rowId", NULL AS "transactionId", reference, type, currency, "amountCents", "atMs" FROM (${BOOKS_TENDERS}) b WHERE reference IS NOT NULL
               UNION ALL
               SELECT 1, NULL, "transactionId", reference, type, currency, "amountCents", "atMs" FROM (${LEDGER_TENDERS}) l) sides
         GROUP BY reference, type, currency, "amountCents"
         HAVING SUM(CASE WHEN side = 0 THEN 1 ELSE 0 END) = 1 AND SUM(CASE WHEN side = 1 THEN 1 ELSE 0 END) = 1`,
      )
      .run(scope);
    // An index goes where its table is: a temporary one with it.
    await c.exec(
      'CREATE UNIQUE INDEX match_pairs_books ON match_pairs ("rowId"); CREATE UNIQUE INDEX match_pairs_ledger ON match_pairs ("transactionId")',
    );
    const now = this.nowMs;
    await c.exec(`INSERT INTO books_match_rows (group_id, kind, status, rule, side, record_id, reference, entry_type, amount_cents, currency, at_ms, matched_at_ms)
      SELECT "rowId", 'tenders', 'matched', 'exact', 'books', CAST("rowId" AS TEXT), reference, type, "amountCents", currency, "booksAtMs", ${now} FROM match_pairs ORDER BY match_pairs."rowId";
      INSERT INTO books_match_rows (group_id, kind, status, rule, side, record_id, reference, entry_type, amount_cents, currency, at_ms, matched_at_ms)
      SELECT "rowId", 'tenders', 'matched', 'exact', 'ledger', "transactionId", reference, type, "amountCents", currency, "ledgerAtMs", ${now} FROM match_pairs ORDER BY match_pairs."rowId"`);
    this.groups += Number((await c.pluck<number>('SELECT COUNT(*) FROM match_pairs').get()) ?? 0);
    const d = c.dialect;
    const books = await c
      .read<UnpairedBooksTender>(
        `SELECT * FROM (${BOOKS_TENDERS}) b WHERE ${d.notIn('b."rowId"', 'p."rowId"', 'match_pairs p')}`,
      )
      .all(scope);
    const ledger = await c
      .read<LedgerTender>(
        `SELECT * FROM (${LEDGER_TENDERS}) l WHERE ${d.notIn('l."transactionId"', 'p."transactionId"', 'match_pairs p')}`,
      )
      .all(scope);
    await c.exec(`DROP TABLE ${pairs}`);
    return { books, ledger };
  }

  /** Our cards by their code's hash, for the hashes asked about: the books never hold a plaintext code. */
  async cardsByCode(merchantId: string | null, hashes: ReadonlySet<string>): Promise<Map<string, string>> {
    const cards = new Map<string, string>();
    if (hashes.size === 0) return cards;
    const rows = this.c.read<{ id: string; hash: string | null }>(
      `SELECT gift_card_id AS id, ${this.c.dialect.jsonField('raw_json', 'codeHash')} AS hash FROM gift_cards WHERE merchant_id = @merchant OR @merchant IS NULL`,
    );
    for await (const batch of rows.batches([{ merchant: merchantId }])) {
      for (const row of batch)
        if (row.hash !== null && hashes.has(row.hash.toLowerCase())) cards.set(row.hash.toLowerCase(), row.id);
    }
    return cards;
  }

  /** The coupon uses the books hold, in time order. */
  async couponUses(): Promise<BooksUse[]> {
    await this.written();
    return this.c
      .read<BooksUse>(
        `SELECT row_id AS "rowId", reference, code_sha256 AS "codeSha256", at_ms AS "atMs" FROM books_rows WHERE kind = 'coupon-uses' AND withdrawn_file_id IS NULL ORDER BY at_ms, row_id`,
      )
      .all();
  }

  /** Our coupons with their code's hash and count. */
  async coupons(merchantId: string | null): Promise<CouponUses[]> {
    return this.c
      .read<CouponUses>(
        `SELECT coupon_id AS "couponId", lower(${this.c.dialect.jsonField('raw_json', 'codeHash')}) AS "codeHash", redemption_count AS "redemptionCount", created_at AS "createdAt", updated_at_ms AS "updatedAtMs"
         FROM coupons WHERE merchant_id = @merchant OR @merchant IS NULL ORDER BY coupon_id`,
      )
      .all({ merchant: merchantId });
  }

  /** The DP purchases the books hold, in time order. */
  async purchases(): Promise<BooksPurchase[]> {
    await this.written();
    return this.c
      .read<BooksPurchase>(
        `SELECT row_id AS "rowId", external_ref AS "externalRef", amount_cents AS "amountCents", currency, at_ms AS "atMs" FROM books_rows WHERE kind = 'dp-purchases' AND withdrawn_file_id IS NULL AND amount_cents IS NOT NULL ORDER BY at_ms, row_id`,
      )
      .all();
  }

  /** The DP orders placed (not FAILED), in time order. */
  async orders(): Promise<PlacedOrder[]> {
    return this.c
      .read<PlacedOrder>(
        `SELECT order_id AS "orderId", external_ref_id AS "externalRef", total_amount_cents AS "totalCents", currency, created_at_ms AS "atMs" FROM dp_orders WHERE status <> 'FAILED' ORDER BY created_at_ms, order_id`,
      )
      .all();
  }
}

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

/** The books stage's writes and the report's reads of the books tables. */
export class BooksStore {
  readonly #c: SqlConnection;
  readonly #db: MirrorQueries;

  constructor(mirror: Mirror) {
    this.#c = mirror.connection;
    this.#db = mirror.queries;
  }

  /**
   * The newest version of this file (same kind and source), when its content is `sha256`: the
   * file is unchanged since it was last imported. Bytes equal to an older version are not: that
   * version's rows come back (a file back to how it was two nights ago is a new version).
   */
  /**
   * The source whose newest version holds exactly these bytes, under another name: the same
   * export renamed (tenders.csv imported again as tenders-2026-11.csv). Undefined when none.
   */
  async knownFileElsewhere(kind: string, source: string, sha256: string): Promise<string | undefined> {
    // Another source's newest version holding these bytes: the same export under another name.
    const rows = await this.#db
      .selectFrom('books_files as f')
      .select('f.source')
      .where('f.kind', '=', kind)
      .where('f.source', '<>', source)
      .where('f.sha256', '=', sha256)
      .where((eb) =>
        eb(
          'f.file_id',
          '=',
          eb
            .selectFrom('books_files as g')
            .select((g) => g.fn.max('g.file_id').as('newest'))
            .whereRef('g.kind', '=', 'f.kind')
            .whereRef('g.source', '=', 'f.source'),
        ),
      )
      .orderBy('f.file_id')
      .limit(1)
      .execute();
    return rows[0]?.source;
  }

  async knownFile(kind: string, source: string, sha256: string): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom('books_files')
      .select(['file_id', 'sha256'])
      .where('kind', '=', kind)
      .where('source', '=', source)
      .orderBy('file_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.sha256 === sha256 ? row.file_id : undefined;
  }

  /**
   * A file's import as one transaction across the file's reads (the connection is this
   * process's alone while it imports): when `work` throws, the mirror stays as it was.
   */
  async importing<T>(work: (session: ImportSession) => Promise<T>): Promise<T> {
    return this.#c.transaction(() => work(new ImportSession(this.#c)));
  }

  /** Each kind's time span among the rows held. */
  async spans(): Promise<BooksSpan[]> {
    const rows = await this.#db
      .selectFrom('books_rows')
      .select((eb) => ['kind', eb.fn.min('at_ms').as('firstMs'), eb.fn.max('at_ms').as('lastMs')])
      .where('withdrawn_file_id', 'is', null)
      .groupBy('kind')
      .execute();
    return rows.map((row) => ({ kind: row.kind, firstMs: Number(row.firstMs), lastMs: Number(row.lastMs) }));
  }

  /**
   * Replaces the stored matching with what `work` writes, in one transaction. @returns how many
   * groups it made and its records per status.
   */
  async replaceMatching(
    nowMs: number,
    work: (session: MatchSession) => Promise<void>,
  ): Promise<{ groups: number; byStatus: Partial<Record<MatchStatus, number>> }> {
    const c = this.#c;
    const session = new MatchSession(c, nowMs);
    await c.transaction(async () => {
      await session.start();
      await c.write('DELETE FROM books_match_rows').run();
      await work(session);
      await session.written();
    });
    const counts = await c
      .read<{ status: MatchStatus; n: number }>('SELECT status, COUNT(*) AS n FROM books_match_rows GROUP BY status')
      .all();
    return { groups: session.groups, byStatus: Object.fromEntries(counts.map((r) => [r.status, Number(r.n)])) };
  }

  /** Every record of the latest matching: those without a partner or matched only in part first, then the pairs, each group together. */
  async *matchRows(): AsyncGenerator<MatchRow> {
    yield* rowsOf(
      this.#c
        .read<MatchRow>(`${GROUP_ROWS} ORDER BY m.status = 'matched', m.kind, m.group_id, m.side <> 'books', m.at_ms`)
        .batches(),
    );
  }

  /** Records of the latest matching without a partner or matched only in part. */
  async unmatchedCount(): Promise<number> {
    const row = await this.#db
      .selectFrom('books_match_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '<>', 'matched')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The latest matching in figures: records and amounts by kind, side, status, rule and currency. */
  async matchRates(): Promise<MatchRate[]> {
    const rates = await this.#c
      .read<MatchRate>(
        `SELECT kind, side, status, rule, currency, COUNT(*) AS records, COALESCE(SUM(amount_cents), 0) AS "amountCents" FROM books_match_rows
         GROUP BY kind, side, status, rule, currency ORDER BY kind, side, status <> 'matched', status, rule, currency`,
      )
      .all();
    return rates.map((rate) => ({ ...rate, records: Number(rate.records), amountCents: Number(rate.amountCents) }));
  }

  /** The books the mirror holds: rows still in their files, and rows that could not be imported. */
  async counts(): Promise<{ held: number; rejected: number }> {
    const held = await this.#db
      .selectFrom('books_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('withdrawn_file_id', 'is', null)
      .executeTakeFirst();
    const rejected = await this.#db
      .selectFrom('books_rejections')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return { held: Number(held?.n ?? 0), rejected: Number(rejected?.n ?? 0) };
  }
}
