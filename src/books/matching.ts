/**
 * Matches the merchant's books in the mirror against the mirrored services and keeps the
 * result in books_match_rows (replaced whole each time): tenders and refunds against the gift
 * card ledger (match.ts's rules), coupon uses against each coupon's redemptionCount, DP
 * purchases against DP orders. Only kinds the books hold rows of are matched; the ledger is in
 * scope from the books' first row (less the time window) on, as are coupons and DP orders.
 */
import type Database from 'better-sqlite3';
import { DEFAULT_MATCH_OPTIONS, groupBy, matchTenders, type BooksTender, type LedgerTender, type MatchOptions, type MatchStatus, type TenderGroup } from './match.js';

export interface MatchInput {
  /** When the checked sync started reading: the end of the services' data. */
  asOfMs: number;
  /** Our merchant: only its cards and coupons are matched. */
  merchantId: string | null;
  options?: Partial<MatchOptions>;
  nowMs?: number;
}

/** What a matching found: records per status, per kind. */
export interface MatchOutcome {
  kinds: string[];
  groups: number;
  byStatus: Partial<Record<MatchStatus, number>>;
}

interface Span {
  firstMs: number;
  lastMs: number;
}

/** Matches everything the books hold and replaces the stored result. */
export function matchBooks(sqlite: Database.Database, input: MatchInput): MatchOutcome {
  const options: MatchOptions = { ...DEFAULT_MATCH_OPTIONS, ...input.options };
  const nowMs = input.nowMs ?? Date.now();
  const spans = new Map<string, Span>();
  for (const row of sqlite.prepare('SELECT kind, MIN(at_ms) AS firstMs, MAX(at_ms) AS lastMs FROM books_rows WHERE withdrawn_file_id IS NULL GROUP BY kind').all() as Array<Span & { kind: string }>) spans.set(row.kind, row);
  const writer = new MatchWriter(sqlite, nowMs);
  sqlite.transaction(() => {
    sqlite.prepare('DELETE FROM books_match_rows').run();
    const tenders = spans.get('tenders');
    if (tenders) matchTenderBooks(sqlite, writer, input, options, tenders);
    const uses = spans.get('coupon-uses');
    if (uses) matchCouponUses(sqlite, writer, input, options, uses);
    const purchases = spans.get('dp-purchases');
    if (purchases) matchPurchases(sqlite, writer, input, options, purchases);
  })();
  const byStatus = Object.fromEntries(
    (sqlite.prepare('SELECT status, COUNT(*) AS n FROM books_match_rows GROUP BY status').all() as Array<{ status: MatchStatus; n: number }>).map((r) => [r.status, r.n]),
  ) as Partial<Record<MatchStatus, number>>;
  return { kinds: [...spans.keys()].sort(), groups: writer.groups, byStatus };
}

/** The end of the data: the earlier of the books' newest row and the sync's start. */
const endOf = (span: Span, asOfMs: number): number => Math.min(span.lastMs, asOfMs);

/** Writes groups, numbering them after every books row ID so that SQL-made groups (numbered by their books row) never collide. */
class MatchWriter {
  groups = 0;
  private next: number;
  private readonly insert: Database.Statement;

  constructor(
    sqlite: Database.Database,
    readonly nowMs: number,
  ) {
    this.next = ((sqlite.prepare('SELECT MAX(row_id) FROM books_rows').pluck().get() as number | null) ?? 0) + 1;
    this.insert = sqlite.prepare(
      `INSERT INTO books_match_rows (group_id, kind, status, rule, side, record_id, reference, entry_type, amount_cents, currency, at_ms, books_count, service_count, matched_at_ms)
       VALUES (@groupId, @kind, @status, @rule, @side, @recordId, @reference, @entryType, @amountCents, @currency, @atMs, @booksCount, @serviceCount, ${nowMs})`,
    );
  }

  /** Allocates a group ID. */
  group(): number {
    this.groups += 1;
    return this.next++;
  }

  row(row: { groupId: number; kind: string; status: MatchStatus; rule: string | null; side: string; recordId: string; reference: string | null; entryType: string | null; amountCents: number | null; currency: string | null; atMs: number | null; booksCount?: number; serviceCount?: number }): void {
    this.insert.run({ booksCount: null, serviceCount: null, ...row });
  }

  /** Counts groups made in SQL. */
  made(count: number): void {
    this.groups += count;
  }
}

// ---- tenders and refunds against the ledger ---------------------------------------------------

/** The books' tenders still held (payment as DEBIT, refund as REFUND). */
const BOOKS_TENDERS = `SELECT row_id AS rowId, reference, CASE entry_type WHEN 'payment' THEN 'DEBIT' ELSE 'REFUND' END AS type, amount_cents AS amountCents,
  currency, at_ms AS atMs, code_sha256 AS codeSha256, gift_card_id AS giftCardId
  FROM books_rows WHERE kind = 'tenders' AND withdrawn_file_id IS NULL AND amount_cents IS NOT NULL AND currency IS NOT NULL`;

/** Our cards' DEBIT and REFUND entries in scope (@merchant, from @from on), in their card's currency. */
const LEDGER_TENDERS = `SELECT t.transaction_id AS transactionId, t.gift_card_id AS giftCardId, t.type, t.amount_cents AS amountCents, c.currency, t.reference_id AS reference, t.created_at_ms AS atMs
  FROM gift_card_transactions t JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
  WHERE t.type IN ('DEBIT', 'REFUND') AND t.vanished_sync_run_id IS NULL AND t.amount_cents > 0 AND t.created_at_ms >= @from AND (c.merchant_id = @merchant OR @merchant IS NULL)`;

function matchTenderBooks(sqlite: Database.Database, writer: MatchWriter, input: MatchInput, options: MatchOptions, span: Span): void {
  const scope = { merchant: input.merchantId, from: span.firstMs - options.windowMs };
  sqlite.exec('DROP TABLE IF EXISTS temp.match_pairs');
  // The exact rule where it is one to one, in SQL: one sort of both sides by the rule's key,
  // most of a healthy month, never held in memory. (An entry of no amount, or a negative one,
  // moved no money: GC_INVALID_AMOUNT's, not a tender.)
  sqlite
    .prepare(
      `CREATE TEMP TABLE match_pairs AS
       SELECT reference, type, currency, amountCents,
              MAX(CASE WHEN side = 0 THEN rowId END) AS rowId, MAX(CASE WHEN side = 0 THEN atMs END) AS booksAtMs,
              MAX(CASE WHEN side = 1 THEN transactionId END) AS transactionId, MAX(CASE WHEN side = 1 THEN atMs END) AS ledgerAtMs
       FROM (SELECT 0 AS side, rowId, NULL AS transactionId, reference, type, currency, amountCents, atMs FROM (${BOOKS_TENDERS}) WHERE reference IS NOT NULL
             UNION ALL
             SELECT 1, NULL, transactionId, reference, type, currency, amountCents, atMs FROM (${LEDGER_TENDERS}))
       GROUP BY reference, type, currency, amountCents
       HAVING SUM(side = 0) = 1 AND SUM(side = 1) = 1`,
    )
    .run(scope);
  sqlite.exec('CREATE UNIQUE INDEX temp.match_pairs_books ON match_pairs (rowId); CREATE UNIQUE INDEX temp.match_pairs_ledger ON match_pairs (transactionId)');
  const now = writer.nowMs;
  sqlite.exec(`INSERT INTO books_match_rows (group_id, kind, status, rule, side, record_id, reference, entry_type, amount_cents, currency, at_ms, matched_at_ms)
    SELECT rowId, 'tenders', 'matched', 'exact', 'books', CAST(rowId AS TEXT), reference, type, amountCents, currency, booksAtMs, ${now} FROM match_pairs ORDER BY rowId;
    INSERT INTO books_match_rows (group_id, kind, status, rule, side, record_id, reference, entry_type, amount_cents, currency, at_ms, matched_at_ms)
    SELECT rowId, 'tenders', 'matched', 'exact', 'ledger', transactionId, reference, type, amountCents, currency, ledgerAtMs, ${now} FROM match_pairs ORDER BY rowId`);
  writer.made(sqlite.prepare('SELECT COUNT(*) FROM match_pairs').pluck().get() as number);

  // The rest goes through every rule.
  const books = sqlite.prepare(`SELECT * FROM (${BOOKS_TENDERS}) WHERE rowId NOT IN (SELECT rowId FROM match_pairs)`).all(scope) as Array<Omit<BooksTender, 'giftCardId'> & { codeSha256: string | null; giftCardId: string | null }>;
  const ledger = sqlite.prepare(`SELECT * FROM (${LEDGER_TENDERS}) WHERE transactionId NOT IN (SELECT transactionId FROM match_pairs)`).all(scope) as LedgerTender[];
  sqlite.exec('DROP TABLE temp.match_pairs');
  const cards = cardsByCode(sqlite, input.merchantId, new Set(books.flatMap((b) => (b.giftCardId === null && b.codeSha256 !== null ? [b.codeSha256] : []))));
  const tenders: BooksTender[] = books.map(({ codeSha256, giftCardId, ...row }) => ({ ...row, giftCardId: giftCardId ?? (codeSha256 !== null ? (cards.get(codeSha256) ?? null) : null) }));
  for (const group of matchTenders(tenders, ledger, options, endOf(span, input.asOfMs))) writeTenderGroup(writer, group);
}

/** Our cards by their code's hash, for the hashes asked about: the books never hold a plaintext code. */
function cardsByCode(sqlite: Database.Database, merchantId: string | null, hashes: ReadonlySet<string>): Map<string, string> {
  const cards = new Map<string, string>();
  if (hashes.size === 0) return cards;
  const rows = sqlite.prepare(`SELECT gift_card_id AS id, raw_json ->> '$.codeHash' AS hash FROM gift_cards WHERE merchant_id = @merchant OR @merchant IS NULL`);
  for (const row of rows.iterate({ merchant: merchantId }) as Iterable<{ id: string; hash: string | null }>) {
    if (row.hash !== null && hashes.has(row.hash.toLowerCase())) cards.set(row.hash.toLowerCase(), row.id);
  }
  return cards;
}

function writeTenderGroup(writer: MatchWriter, group: TenderGroup): void {
  const groupId = writer.group();
  const common = { groupId, kind: 'tenders', status: group.status, rule: group.rule };
  for (const b of group.books) writer.row({ ...common, side: 'books', recordId: String(b.rowId), reference: b.reference, entryType: b.type, amountCents: b.amountCents, currency: b.currency, atMs: b.atMs });
  for (const e of group.ledger) writer.row({ ...common, side: 'ledger', recordId: e.transactionId, reference: e.reference, entryType: e.type, amountCents: e.amountCents, currency: e.currency, atMs: e.atMs });
}

// ---- coupon uses against redemptionCount ------------------------------------------------------

interface Use {
  rowId: number;
  reference: string | null;
  codeSha256: string | null;
  atMs: number;
}

/**
 * A coupon created since the books began (less the time window) must have as many uses in them as its redemptionCount
 * says. Uses of a code no coupon of ours has are unmatched; an older coupon's uses are out of
 * scope (its count holds uses from before the books).
 */
function matchCouponUses(sqlite: Database.Database, writer: MatchWriter, input: MatchInput, options: MatchOptions, span: Span): void {
  const uses = sqlite.prepare("SELECT row_id AS rowId, reference, code_sha256 AS codeSha256, at_ms AS atMs FROM books_rows WHERE kind = 'coupon-uses' AND withdrawn_file_id IS NULL ORDER BY at_ms, row_id").all() as Use[];
  const byCode = groupBy(uses, (use) => use.codeSha256 ?? '');
  const coupons = sqlite
    .prepare(
      `SELECT coupon_id AS couponId, lower(raw_json ->> '$.codeHash') AS codeHash, redemption_count AS redemptionCount, created_at AS createdAt, updated_at_ms AS updatedAtMs
       FROM coupons WHERE merchant_id = @merchant OR @merchant IS NULL ORDER BY coupon_id`,
    )
    .all({ merchant: input.merchantId }) as Array<{ couponId: string; codeHash: string | null; redemptionCount: number; createdAt: string; updatedAtMs: number }>;
  const transitFrom = endOf(span, input.asOfMs) - options.cutoffMs;
  for (const coupon of coupons) {
    const own = coupon.codeHash !== null ? (byCode.get(coupon.codeHash) ?? []) : [];
    if (coupon.codeHash !== null) byCode.delete(coupon.codeHash);
    if (Date.parse(coupon.createdAt) < span.firstMs - options.windowMs) continue;
    if (own.length === 0 && coupon.redemptionCount === 0) continue;
    const agrees = own.length === coupon.redemptionCount;
    const recent = coupon.updatedAtMs >= transitFrom || own.some((use) => use.atMs >= transitFrom);
    const status: MatchStatus = agrees ? 'matched' : recent ? 'in-transit' : 'uses-mismatch';
    const groupId = writer.group();
    const common = { groupId, kind: 'coupon-uses', status, rule: agrees ? 'code-hash' : null, entryType: 'use', amountCents: null, currency: null };
    writer.row({ ...common, side: 'coupon', recordId: coupon.couponId, reference: null, atMs: coupon.updatedAtMs, booksCount: own.length, serviceCount: coupon.redemptionCount });
    for (const use of own) writer.row({ ...common, side: 'books', recordId: String(use.rowId), reference: use.reference, atMs: use.atMs });
  }
  for (const use of [...byCode.values()].flat()) {
    writer.row({ groupId: writer.group(), kind: 'coupon-uses', status: use.atMs >= transitFrom ? 'in-transit' : 'unmatched', rule: null, side: 'books', recordId: String(use.rowId), reference: use.reference, entryType: 'use', amountCents: null, currency: null, atMs: use.atMs });
  }
}

// ---- DP purchases against DP orders -----------------------------------------------------------

interface Purchase {
  rowId: number;
  externalRef: string;
  amountCents: number;
  currency: string;
  atMs: number;
}

interface Order {
  orderId: string;
  externalRef: string;
  totalCents: number | null;
  currency: string;
  atMs: number;
}

/**
 * Every order we placed (not FAILED) since the books began is a purchase in them, under its
 * externalRefID, for its total; a purchase with no order is a break too. Several purchases and
 * orders under one reference pair in time order; purchases beyond the orders are duplicates.
 */
function matchPurchases(sqlite: Database.Database, writer: MatchWriter, input: MatchInput, options: MatchOptions, span: Span): void {
  const purchases = sqlite
    .prepare("SELECT row_id AS rowId, external_ref AS externalRef, amount_cents AS amountCents, currency, at_ms AS atMs FROM books_rows WHERE kind = 'dp-purchases' AND withdrawn_file_id IS NULL AND amount_cents IS NOT NULL ORDER BY at_ms, row_id")
    .all() as Purchase[];
  const orders = sqlite
    .prepare("SELECT order_id AS orderId, external_ref_id AS externalRef, total_amount_cents AS totalCents, currency, created_at_ms AS atMs FROM dp_orders WHERE status <> 'FAILED' ORDER BY created_at_ms, order_id")
    .all() as Order[];
  const transitFrom = endOf(span, input.asOfMs) - options.cutoffMs;
  const scopeFrom = span.firstMs - options.windowMs;
  const ordersByRef = groupBy(orders, (order) => order.externalRef);
  const purchasesByRef = groupBy(purchases, (purchase) => purchase.externalRef);

  const write = (status: MatchStatus, rule: string | null, bought: Purchase[], placed: Order[]): void => {
    const groupId = writer.group();
    const common = { groupId, kind: 'dp-purchases', status, rule, entryType: 'purchase' };
    for (const p of bought) writer.row({ ...common, side: 'books', recordId: String(p.rowId), reference: p.externalRef, amountCents: p.amountCents, currency: p.currency, atMs: p.atMs });
    for (const o of placed) writer.row({ ...common, side: 'dp-order', recordId: o.orderId, reference: o.externalRef, amountCents: o.totalCents, currency: o.currency, atMs: o.atMs });
  };
  const alone = (atMs: number): MatchStatus => (atMs >= transitFrom ? 'in-transit' : 'unmatched');
  for (const [reference, bought] of purchasesByRef) {
    const placed = ordersByRef.get(reference) ?? [];
    ordersByRef.delete(reference);
    const pairs = Math.min(bought.length, placed.length);
    for (let i = 0; i < pairs; i += 1) {
      const p = bought[i]!;
      const o = placed[i]!;
      const same = p.currency === o.currency && p.amountCents === o.totalCents;
      write(same ? 'matched' : 'amount-mismatch', same ? 'exact' : null, [p], [o]);
    }
    for (const p of bought.slice(pairs)) {
      if (placed.length > 0) write('duplicate', null, [p], [placed[0]!]);
      else write(alone(p.atMs), null, [p], []);
    }
    for (const o of placed.slice(pairs)) if (o.atMs >= scopeFrom) write(alone(o.atMs), null, [], [o]);
  }
  for (const o of [...ordersByRef.values()].flat()) if (o.atMs >= scopeFrom) write(alone(o.atMs), null, [], [o]);
}
