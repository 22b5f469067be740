/**
 * The merchant's own books, planted: ledger scenarios whose books rows the export writes in a
 * way of its own (left out, changed, doubled, merged, named by code), the book breaks of every
 * books code, and the legal look-alikes that must match. Every card and order is pinned.
 */
import type { BooksBreak, BooksLookAlike, PlantContext, RecordRef } from './planted-breaks.js';
import { DAY, type CardTemplate, type SimCard, type SimEntry } from './giftcard-world.js';
import type { SimOrder } from './dp-world.js';
import { couponRecord } from './generator.js';

/** How the export departs from a faithful copy of the services, by record. */
export interface BooksPlan {
  /** Entries the books leave out. */
  omit: Set<string>;
  /** Entries the books carry at another amount (cents added). */
  alter: Map<string, number>;
  /** Entries the books carry twice. */
  duplicate: Set<string>;
  /** Groups of entries the books carry as one row (their sum), under the first's reference. */
  merge: string[][];
  /** Entries the books carry under another reference, naming the card by its code. */
  byCode: Map<string, string>;
  /** Rows the books hold that no entry answers. */
  extraTenders: Array<{ reference: string; type: 'DEBIT' | 'REFUND'; cents: number; currency: string; atMs: number }>;
  /** Coupons whose uses the books carry fewer of. */
  fewerUses: Map<string, number>;
  /** Orders the books leave out, or carry at another amount. */
  omitOrders: Set<string>;
  alterOrders: Map<string, number>;
  extraPurchases: Array<{ externalRef: string; cents: number; currency: string; atMs: number }>;
  breaks: BooksBreak[];
  lookAlikes: BooksLookAlike[];
}

export function emptyBooksPlan(): BooksPlan {
  return {
    omit: new Set(),
    alter: new Map(),
    duplicate: new Set(),
    merge: [],
    byCode: new Map(),
    extraTenders: [],
    fewerUses: new Map(),
    omitOrders: new Set(),
    alterOrders: new Map(),
    extraPurchases: [],
    breaks: [],
    lookAlikes: [],
  };
}

const cardRef = (c: SimCard): RecordRef => ({ type: 'giftCard', id: c.record.giftCardId });
const entryRef = (e: SimEntry): RecordRef => ({ type: 'giftCardTransaction', id: e.record.transactionId });
const orderRef = (o: SimOrder): RecordRef => ({ type: 'dpOrder', id: o.record.orderID });

/** What every books plant works with: the worlds, the clock, the plan it adds to, and its helpers. */
interface BooksKit {
  plan: BooksPlan;
  gc: PlantContext['gc'];
  random: PlantContext['random'];
  nowMs: number;
  merchantId: string;
  /** The books' planted day starts 15 days before now. */
  t0: number;
  at: (minutes: number) => number;
  /** A pinned card of the books' own template. */
  card: (initialCents: number) => SimCard;
  debit: (c: SimCard, minutes: number, cents: number, referenceId: string) => SimEntry;
  /** A pinned order of one USD voucher, fulfilled five minutes later. */
  place: (minutes: number) => SimOrder;
  like: (name: string, referenceIds: string[], records: RecordRef[]) => void;
}

/** One scenario: it changes the worlds, or the plan of how the export departs from them, and records why. */
type BooksPlant = (kit: BooksKit) => void;

export function plantBooks(context: PlantContext): BooksPlan {
  const kit = booksKit(context);
  for (const plant of [...BOOKS_BREAKS, ...BOOKS_LOOK_ALIKES]) plant(kit);
  return kit.plan;
}

function booksKit(context: PlantContext): BooksKit {
  const plan = emptyBooksPlan();
  const { gc, dp, random, nowMs, merchantId } = context;
  const flex: CardTemplate = {
    id: random.uuid(),
    programId: 'PRG-BOOKS',
    currency: 'USD',
    denominations: [10_000],
    minRedemption: 0,
    allowPartial: true,
    validityDays: 365,
  };
  const t0 = nowMs - 15 * DAY;
  const at = (minutes: number): number => t0 + minutes * 60_000;
  const usd = context.products.find((p) => p.record.currency === 'USD');
  if (!usd) throw new Error('the catalogue needs a USD product');
  return {
    plan,
    gc,
    random,
    nowMs,
    merchantId,
    t0,
    at,
    card: (initial) => {
      const c = gc.issueCard(merchantId, flex, t0 - DAY, initial);
      c.pinned = true;
      return c;
    },
    debit: (c, minutes, cents, referenceId) => gc.debit(c, at(minutes), cents, { referenceId }),
    place: (minutes) => {
      const o = dp.placeOrder(at(minutes), [
        { product: usd, variantID: usd.record.variants[0]?.variantID ?? '', quantity: 1 },
      ]);
      o.pinned = true;
      dp.fulfil(o, at(minutes + 5));
      return o;
    },
    like: (name, referenceIds, records) => {
      plan.lookAlikes.push({ name, referenceIds, records });
    },
  };
}

/** A break of every books code. */
const BOOKS_BREAKS: readonly BooksPlant[] = [
  ({ plan, card, debit }) => {
    const c = card(5_000);
    const e = debit(c, 10, 1_200, 'ORD-NOT-IN-BOOKS-0001');
    plan.omit.add(e.record.transactionId);
    plan.breaks.push({
      scenario: 'a debit the books left out',
      code: 'BK_LEDGER_NOT_IN_BOOKS',
      referenceId: 'ORD-NOT-IN-BOOKS-0001',
      records: [cardRef(c), entryRef(e)],
    });
  },
  ({ plan, at }) => {
    plan.extraTenders.push({
      reference: 'ORD-BOOKS-ONLY-0001',
      type: 'DEBIT',
      cents: 2_500,
      currency: 'USD',
      atMs: at(20),
    });
  },
  ({ plan }) => {
    plan.breaks.push({
      scenario: 'a books payment the service never took',
      code: 'BK_BOOKS_NOT_IN_LEDGER',
      referenceId: 'ORD-BOOKS-ONLY-0001',
      records: [],
    });
  },
  ({ plan, card, debit }) => {
    const c = card(8_000);
    const e = debit(c, 30, 4_000, 'ORD-AMOUNT-0001');
    plan.alter.set(e.record.transactionId, 100);
    plan.breaks.push({
      scenario: 'a payment booked at 41.00 for a 40.00 debit',
      code: 'BK_AMOUNT_MISMATCH',
      referenceId: 'ORD-AMOUNT-0001',
      records: [cardRef(c), entryRef(e)],
    });
  },
  ({ plan, card, debit }) => {
    const c = card(5_000);
    const e = debit(c, 40, 1_550, 'ORD-TWICE-0001');
    plan.duplicate.add(e.record.transactionId);
    plan.breaks.push({
      scenario: 'a payment booked twice',
      code: 'BK_DUPLICATE',
      referenceId: 'ORD-TWICE-0001',
      records: [entryRef(e)],
    });
  },
  ({ plan, card, debit }) => {
    const a = card(5_000);
    const b = card(5_000);
    const first = debit(a, 50, 2_000, 'ORD-AMBIGUOUS-0001');
    const second = debit(b, 110, 2_000, 'ORD-AMBIGUOUS-0001');
    plan.breaks.push({
      scenario: 'two equal payments on two cards, the books naming neither card',
      code: 'BK_AMBIGUOUS',
      referenceId: 'ORD-AMBIGUOUS-0001',
      records: [entryRef(first), entryRef(second)],
    });
  },
  ({ plan, gc, random, nowMs, merchantId, t0 }) => {
    const record = couponRecord(
      gc,
      merchantId,
      { id: random.uuid(), programId: 'PRG-BOOKS', usageLimitTotal: 5 },
      { createdAt: t0, expiresAt: nowMs + 30 * DAY, redemptionCount: 3, status: 'ACTIVE', nowMs },
    );
    gc.addCoupon(merchantId, record, t0, true);
    plan.fewerUses.set(record.couponId, 1);
    plan.breaks.push({
      scenario: 'a coupon redeemed three times, used twice in the books',
      code: 'CV_USES_MISMATCH',
      referenceId: '',
      records: [{ type: 'coupon', id: record.couponId }],
    });
  },
  ({ plan, place }) => {
    const o = place(200);
    plan.omitOrders.add(o.record.orderID);
    plan.breaks.push({
      scenario: 'an order the books left out',
      code: 'DP_ORDER_NOT_IN_BOOKS',
      referenceId: o.record.externalRefID,
      records: [orderRef(o)],
    });
  },
  ({ plan, at }) => {
    plan.extraPurchases.push({ externalRef: 'PO-BOOKS-ONLY-0001', cents: 5_000, currency: 'USD', atMs: at(210) });
  },
  ({ plan }) => {
    plan.breaks.push({
      scenario: 'a books purchase never ordered',
      code: 'BK_PURCHASE_NOT_ORDERED',
      referenceId: 'PO-BOOKS-ONLY-0001',
      records: [],
    });
  },
  ({ plan, place }) => {
    const o = place(220);
    plan.alterOrders.set(o.record.orderID, 200);
    plan.breaks.push({
      scenario: 'an order booked 2.00 above its total',
      code: 'DP_BOOKS_AMOUNT_MISMATCH',
      referenceId: o.record.externalRefID,
      records: [orderRef(o)],
    });
  },
  ({ plan, gc, nowMs, card }) => {
    const c = card(5_000);
    const e = gc.debit(c, nowMs - 20 * 60_000, 900, { referenceId: 'ORD-JUST-NOW-0001' });
    plan.omit.add(e.record.transactionId);
    plan.breaks.push({
      scenario: 'a payment taken 20 minutes before the books were written',
      code: 'BK_IN_TRANSIT',
      referenceId: 'ORD-JUST-NOW-0001',
      records: [entryRef(e)],
    });
  },
];

/** Legal books rows that look like breaks: each must match. */
const BOOKS_LOOK_ALIKES: readonly BooksPlant[] = [
  ({ plan, card, debit, like }) => {
    const a = card(2_000);
    const b = card(5_000);
    const first = debit(a, 300, 2_000, 'ORD-SPLIT-0001');
    const second = debit(b, 300, 1_000, 'ORD-SPLIT-0001');
    plan.merge.push([first.record.transactionId, second.record.transactionId]);
    like('a tender split across two cards', ['ORD-SPLIT-0001'], [entryRef(first), entryRef(second)]);
  },
  ({ plan, gc, at, card, debit, like }) => {
    const c = card(10_000);
    const d = debit(c, 320, 6_000, 'ORD-REFUND-PARTS-0001');
    const parts = [1_000, 2_000, 500].map((cents, i) =>
      gc.refund(c, at(320 + 24 * 60 + i), cents, 'ORD-REFUND-PARTS-0001'),
    );
    plan.merge.push(parts.map((p) => p.record.transactionId));
    like('a refund in three parts', ['ORD-REFUND-PARTS-0001'], [entryRef(d), ...parts.map(entryRef)]);
  },
  ({ gc, at, card, debit, like }) => {
    const c = card(5_000);
    const d = debit(c, 340, 3_000, 'ORD-REFUND-LATER-0001');
    const r = gc.refund(c, at(340 + 24 * 60), 3_000, 'ORD-REFUND-LATER-0001');
    like('a refund a day later than its order', ['ORD-REFUND-LATER-0001'], [entryRef(d), entryRef(r)]);
  },
  ({ card, debit, like }) => {
    const c = card(200_000);
    const d = debit(c, 360, 123_450, 'ORD-THOUSANDS-0001');
    like('a tender of 1,234.50 written with a thousands separator', ['ORD-THOUSANDS-0001'], [entryRef(d)]);
  },
  ({ card, debit, like }) => {
    const c = card(5_000);
    const d = debit(c, 23 * 60 + 30, 1_100, 'ORD-LATE-EVENING-0001');
    like("a books time in the merchant's zone, on the next day there", ['ORD-LATE-EVENING-0001'], [entryRef(d)]);
  },
  ({ plan, card, debit, like }) => {
    const c = card(5_000);
    const d = debit(c, 380, 1_800, 'ORD-POS-0001');
    plan.byCode.set(d.record.transactionId, 'POS-4711');
    like("a tender naming its card's code under the till's own reference", ['POS-4711', 'ORD-POS-0001'], [entryRef(d)]);
  },
];
