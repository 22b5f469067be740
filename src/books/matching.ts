/**
 * Matches the merchant's books in the mirror against the mirrored services and keeps the
 * result in books_match_rows (replaced whole each time): tenders and refunds against the gift
 * card ledger (match.ts's rules), coupon uses against each coupon's redemptionCount, DP
 * purchases against DP orders. Only kinds the books hold rows of are matched; the ledger is in
 * scope from the books' first row (less the time window) on, as are coupons and DP orders.
 */
import {
  DEFAULT_MATCH_OPTIONS,
  groupBy,
  matchTenders,
  type BooksTender,
  type MatchOptions,
  type MatchStatus,
  type TenderGroup,
} from './match.js';
import type { Mirror } from '../db/mirror.js';
import { BooksStore, type BooksPurchase, type MatchSession, type PlacedOrder } from './store.js';

export interface MatchInput {
  /** When the checked sync started reading: the end of the services' data. */
  asOfMs: number;
  /** Our merchant: only its cards and coupons are matched. */
  merchantId: string | null;
  options?: Partial<MatchOptions>;
  /** When the matching is made, from the job's clock. */
  nowMs: number;
}

/** What a matching found: records per status, per kind. */
export interface MatchOutcome {
  kinds: string[];
  /** The newest books file (books_files.file_id) imported when it matched: the books it read are those up to it; null when none. */
  throughFileId: number | null;
  groups: number;
  byStatus: Partial<Record<MatchStatus, number>>;
}

interface Span {
  firstMs: number;
  lastMs: number;
}

/** Matches everything the books hold and replaces the stored result. */
export async function matchBooks(mirror: Mirror, input: MatchInput): Promise<MatchOutcome> {
  const store = new BooksStore(mirror);
  const options: MatchOptions = { ...DEFAULT_MATCH_OPTIONS, ...input.options };
  const { nowMs } = input;
  const throughFileId = await store.newestFileId();
  const spans = new Map<string, Span>((await store.spans()).map((span) => [span.kind, span]));
  const { groups, byStatus } = await store.replaceMatching(nowMs, async (session) => {
    const tenders = spans.get('tenders');
    if (tenders) await matchTenderBooks(session, input, options, tenders);
    const uses = spans.get('coupon-uses');
    if (uses) await matchCouponUses(session, input, options, uses);
    const purchases = spans.get('dp-purchases');
    if (purchases) await matchPurchases(session, input, options, purchases);
  });
  return { kinds: [...spans.keys()].sort(), throughFileId, groups, byStatus };
}

/** The end of the data: the earlier of the books' newest row and the sync's start. */
const endOf = (span: Span, asOfMs: number): number => Math.min(span.lastMs, asOfMs);

// ---- tenders and refunds against the ledger ---------------------------------------------------

async function matchTenderBooks(
  session: MatchSession,
  input: MatchInput,
  options: MatchOptions,
  span: Span,
): Promise<void> {
  const { books, ledger } = await session.pairExactTenders({
    merchant: input.merchantId,
    from: span.firstMs - options.windowMs,
  });
  // The rest goes through every rule.
  const cards = await session.cardsByCode(
    input.merchantId,
    new Set(books.flatMap((b) => (b.giftCardId === null && b.codeSha256 !== null ? [b.codeSha256] : []))),
  );
  const tenders: BooksTender[] = books.map(({ codeSha256, giftCardId, ...row }) => ({
    ...row,
    giftCardId: giftCardId ?? (codeSha256 !== null ? (cards.get(codeSha256) ?? null) : null),
  }));
  for (const group of matchTenders(tenders, ledger, options, endOf(span, input.asOfMs)))
    writeTenderGroup(session, group);
}

function writeTenderGroup(writer: MatchSession, group: TenderGroup): void {
  const groupId = writer.group();
  const common = { groupId, kind: 'tenders', status: group.status, rule: group.rule };
  for (const b of group.books)
    writer.row({
      ...common,
      side: 'books',
      recordId: String(b.rowId),
      reference: b.reference,
      entryType: b.type,
      amountCents: b.amountCents,
      currency: b.currency,
      atMs: b.atMs,
    });
  for (const e of group.ledger)
    writer.row({
      ...common,
      side: 'ledger',
      recordId: e.transactionId,
      reference: e.reference,
      entryType: e.type,
      amountCents: e.amountCents,
      currency: e.currency,
      atMs: e.atMs,
    });
}

// ---- coupon uses against redemptionCount ------------------------------------------------------

/**
 * A coupon created since the books began (less the time window) must have as many uses in them as its redemptionCount
 * says. Uses of a code no coupon of ours has are unmatched; an older coupon's uses are out of
 * scope (its count holds uses from before the books).
 */
async function matchCouponUses(
  writer: MatchSession,
  input: MatchInput,
  options: MatchOptions,
  span: Span,
): Promise<void> {
  const byCode = groupBy(await writer.couponUses(), (use) => use.codeSha256 ?? '');
  const coupons = await writer.coupons(input.merchantId);
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
    const common = {
      groupId,
      kind: 'coupon-uses',
      status,
      rule: agrees ? 'code-hash' : null,
      entryType: 'use',
      amountCents: null,
      currency: null,
    };
    writer.row({
      ...common,
      side: 'coupon',
      recordId: coupon.couponId,
      reference: null,
      atMs: coupon.updatedAtMs,
      booksCount: own.length,
      serviceCount: coupon.redemptionCount,
    });
    for (const use of own)
      writer.row({ ...common, side: 'books', recordId: String(use.rowId), reference: use.reference, atMs: use.atMs });
  }
  for (const use of [...byCode.values()].flat()) {
    writer.row({
      groupId: writer.group(),
      kind: 'coupon-uses',
      status: use.atMs >= transitFrom ? 'in-transit' : 'unmatched',
      rule: null,
      side: 'books',
      recordId: String(use.rowId),
      reference: use.reference,
      entryType: 'use',
      amountCents: null,
      currency: null,
      atMs: use.atMs,
    });
  }
}

// ---- DP purchases against DP orders -----------------------------------------------------------

/**
 * Every order we placed (not FAILED) since the books began is a purchase in them, under its
 * externalRefID, for its total; a purchase with no order is a break too. Several purchases and
 * orders under one reference pair in time order; purchases beyond the orders are duplicates.
 */
async function matchPurchases(
  writer: MatchSession,
  input: MatchInput,
  options: MatchOptions,
  span: Span,
): Promise<void> {
  const purchases = await writer.purchases();
  const orders = await writer.orders();
  const transitFrom = endOf(span, input.asOfMs) - options.cutoffMs;
  const scopeFrom = span.firstMs - options.windowMs;
  const ordersByRef = groupBy(orders, (order) => order.externalRef);
  const purchasesByRef = groupBy(purchases, (purchase) => purchase.externalRef);

  const write = (status: MatchStatus, rule: string | null, bought: BooksPurchase[], placed: PlacedOrder[]): void => {
    const groupId = writer.group();
    const common = { groupId, kind: 'dp-purchases', status, rule, entryType: 'purchase' };
    for (const p of bought)
      writer.row({
        ...common,
        side: 'books',
        recordId: String(p.rowId),
        reference: p.externalRef,
        amountCents: p.amountCents,
        currency: p.currency,
        atMs: p.atMs,
      });
    for (const o of placed)
      writer.row({
        ...common,
        side: 'dp-order',
        recordId: o.orderId,
        reference: o.externalRef,
        amountCents: o.totalCents,
        currency: o.currency,
        atMs: o.atMs,
      });
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
