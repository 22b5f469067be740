/**
 * The books' matching, written: a session of one transaction (see BooksStore.replaceMatching)
 * that reads both sides of each kind (tenders and entries, coupon uses and coupons, purchases
 * and orders), pairs the exact tenders in SQL, and writes the groups a few hundred rows at a time.
 */
import type { SqlConnection } from '../db/connection.js';
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
