import { couponRecord, type GenerationContext } from './generator.js';
import {
  DAY,
  HOUR,
  iso,
  wire,
  type CardTemplate,
  type SimCard,
  type SimCoupon,
  type SimEntry,
} from './giftcard-world.js';
import type { SimOrder, SimProduct } from './dp-world.js';

/** The planted breaks begin this many days before the world's now: a month wholly before that is quiet. */
export const PLANTED_DAYS_BACK = 20;

/** A record a planted break or look-alike is about, as findings name records. */
export interface RecordRef {
  type: 'giftCard' | 'giftCardTransaction' | 'coupon' | 'dpOrder' | 'dpWallet';
  id: string;
}

/** One finding the checker must raise: its code, what it is about, and the records. */
export interface PlantedBreak {
  /** The scenario that planted it; one scenario can cause several findings. */
  scenario: string;
  code: string;
  entityType: RecordRef['type'];
  entityId: string;
  referenceId?: string;
  records: RecordRef[];
}

export interface LookAlike {
  name: string;
  records: RecordRef[];
}

/** A books break the checker must find: its code, the reference it is under, and the service records it names. */
export interface BooksBreak {
  scenario: string;
  code: string;
  referenceId: string;
  records: RecordRef[];
}

export interface BooksLookAlike {
  name: string;
  referenceIds: string[];
  records: RecordRef[];
}

export interface Manifest {
  seed: number;
  generatedAt: string;
  breaks: PlantedBreak[];
  lookAlikes: LookAlike[];
  /** What the merchant's own books plant (found once books are imported: `writeBooks`). */
  books: { breaks: BooksBreak[]; lookAlikes: BooksLookAlike[] };
}

export interface PlantContext extends GenerationContext {
  otherMerchantId: string;
  products: SimProduct[];
}

const card = (id: string): RecordRef => ({ type: 'giftCard', id });
const entry = (e: SimEntry): RecordRef => ({ type: 'giftCardTransaction', id: e.record.transactionId });
const order = (o: SimOrder): RecordRef => ({ type: 'dpOrder', id: o.record.orderID });

/** What every plant works with: the worlds, the clock, and the helpers that record what it planted. */
interface Kit {
  gc: PlantContext['gc'];
  dp: PlantContext['dp'];
  random: PlantContext['random'];
  nowMs: number;
  merchantId: string;
  otherMerchantId: string;
  /** The planted activity's day starts 20 days before now. */
  t0: number;
  at: (minutes: number) => number;
  breaks: PlantedBreak[];
  lookAlikes: LookAlike[];
  newCard: (initial: number, template?: CardTemplate, issuedAt?: number) => SimCard;
  cardBreak: (scenario: string, code: string, c: SimCard, records?: RecordRef[], referenceId?: string) => void;
  entryBreak: (scenario: string, code: string, c: SimCard, e: SimEntry, records?: RecordRef[]) => void;
  coupon: (
    scenario: string,
    code: string | undefined,
    owner: string,
    limit: number,
    state: { redemptionCount: number; status: string; expiresAt?: number },
  ) => { record: SimCoupon['record']; ref: RecordRef };
  usd: SimProduct;
  eur: SimProduct;
  place: (minutes: number, quantity?: number, product?: SimProduct, externalRefID?: string) => SimOrder;
  orderBreak: (scenario: string, code: string, o: SimOrder, records?: RecordRef[]) => void;
  like: (name: string, records: RecordRef[]) => void;
}

/** One scenario: it changes the worlds and records the breaks (or look-alike) it planted. */
type Plant = (kit: Kit) => void;

/**
 * Plants at least one instance of every check code one sync can reveal, each on records of
 * its own so that breaks do not mask each other, and the legal look-alikes that must not be
 * flagged. Every planted card and order is pinned: live activity leaves it alone.
 */
export function plantBreaks(context: PlantContext): Pick<Manifest, 'breaks' | 'lookAlikes'> {
  const kit = plantKit(context);
  for (const plant of [...CARD_PLANTS, ...COUPON_PLANTS, ...ORDER_PLANTS, ...LOOK_ALIKES]) plant(kit);
  return { breaks: kit.breaks, lookAlikes: kit.lookAlikes };
}

/** Breaks of gift cards and their ledgers. */
const CARD_PLANTS: readonly Plant[] = [
  ({ gc, at, newCard, cardBreak }) => {
    const c = newCard(10_000);
    gc.debit(c, at(10), 3_000);
    gc.debit(c, at(20), 2_000);
    c.record.remainingBalance = wire(5_500); // the card says 55.00, its ledger 50.00
    cardBreak('remaining balance altered', 'GC_BALANCE_MISMATCH', c);
    cardBreak('remaining balance altered', 'GC_LEDGER_TAIL_MISMATCH', c);
  },
  ({ gc, at, newCard, cardBreak, entryBreak }) => {
    const c = newCard(10_000);
    const before = gc.debit(c, at(30), 1_000);
    const lost = gc.debit(c, at(40), 2_000);
    const afterGap = gc.debit(c, at(50), 1_500);
    lost.deleted = true; // a 20.00 debit is missing from the ledger
    entryBreak('entry missing from the ledger', 'GC_CHAIN_GAP', c, afterGap, [entry(before)]);
    cardBreak('entry missing from the ledger', 'GC_BALANCE_MISMATCH', c);
  },
  ({ gc, at, newCard, cardBreak, entryBreak }) => {
    const c = newCard(8_000);
    gc.debit(c, at(60), 1_000);
    const bad = gc.writeEntry(c, at(70), {
      type: 'DEBIT',
      amount: 1_000,
      after: 5_800,
      referenceId: gc.newReference(),
    });
    gc.debit(c, at(80), 800);
    entryBreak('balance moved by more than the amount', 'GC_ENTRY_ARITHMETIC', c, bad);
    cardBreak('balance moved by more than the amount', 'GC_BALANCE_MISMATCH', c);
  },
  ({ gc, at, newCard, cardBreak }) => {
    const c = newCard(5_000);
    const ref = gc.newReference();
    const d = gc.debit(c, at(90), 1_000, { referenceId: ref });
    const r1 = gc.refund(c, at(100), 1_000, ref);
    const r2 = gc.writeEntry(c, at(110), { type: 'REFUND', amount: 500, after: c.balance + 500, referenceId: ref });
    cardBreak('refunded more than debited', 'GC_REFUND_OVER_DEBIT', c, [entry(d), entry(r1), entry(r2)], ref);
  },
  ({ gc, at, newCard, breaks }) => {
    const c = newCard(4_000);
    gc.debit(c, at(120), 1_000);
    const r = gc.writeEntry(c, at(130), {
      type: 'REFUND',
      amount: 500,
      after: c.balance + 500,
      referenceId: 'ORD-NEVER-DEBITED',
    });
    breaks.push({
      scenario: 'refund with no debit',
      code: 'GC_REFUND_WITHOUT_DEBIT',
      entityType: 'giftCardTransaction',
      entityId: r.record.transactionId,
      referenceId: 'ORD-NEVER-DEBITED',
      records: [card(c.record.giftCardId), entry(r)],
    });
  },
  ({ gc, at, newCard, cardBreak }) => {
    const c = newCard(2_500);
    gc.debit(c, at(140), 2_000);
    const over = gc.writeEntry(c, at(150), { type: 'DEBIT', amount: 800, after: -300, referenceId: gc.newReference() });
    cardBreak('debit beyond the balance', 'GC_NEGATIVE_BALANCE', c, [entry(over)]);
  },
  ({ gc, random, at, newCard, breaks }) => {
    const c = newCard(6_000);
    const key = random.uuid();
    const first = gc.debit(c, at(160), 1_000, { idempotencyKey: key });
    const second = gc.debit(c, at(170), 1_500, { idempotencyKey: key });
    breaks.push({
      scenario: 'two entries under one idempotency key',
      code: 'GC_DUPLICATE_IDEMPOTENCY_KEY',
      entityType: 'giftCard',
      entityId: c.record.giftCardId,
      records: [card(c.record.giftCardId), entry(first), entry(second)],
    });
  },
  ({ gc, at, newCard, entryBreak }) => {
    const c = newCard(5_000);
    gc.debit(c, at(180), 1_000);
    gc.void(c, at(190));
    const late = gc.writeEntry(c, at(200), {
      type: 'DEBIT',
      amount: 500,
      after: c.balance - 500,
      referenceId: gc.newReference(),
    });
    entryBreak('debit after the card was voided', 'GC_ACTIVITY_AFTER_CLOSE', c, late);
  },
  ({ gc, nowMs, at, newCard, entryBreak }) => {
    const c = newCard(5_000);
    const expiresAtMs = Math.floor(nowMs / HOUR) * HOUR - 5 * HOUR + 10 * 60_000;
    setExpiry(c, expiresAtMs);
    gc.debit(c, at(210), 1_000);
    const late = gc.writeEntry(c, expiresAtMs + 20 * 60_000, {
      type: 'DEBIT',
      amount: 500,
      after: c.balance - 500,
      referenceId: gc.newReference(),
    });
    gc.expire(c, Math.ceil(expiresAtMs / HOUR) * HOUR);
    entryBreak('debit after the card expired', 'GC_ACTIVITY_AFTER_EXPIRY', c, late);
  },
  ({ gc, at, newCard, entryBreak }) => {
    const c = newCard(3_000);
    const zero = gc.writeEntry(c, at(220), {
      type: 'DEBIT',
      amount: 0,
      after: c.balance,
      referenceId: gc.newReference(),
    });
    const negative = gc.writeEntry(c, at(230), {
      type: 'DEBIT',
      amount: -500,
      after: c.balance + 500,
      referenceId: gc.newReference(),
    });
    entryBreak('debit of zero', 'GC_INVALID_AMOUNT', c, zero);
    entryBreak('debit of a negative amount', 'GC_INVALID_AMOUNT', c, negative);
  },
  ({ gc, at, newCard, breaks }) => {
    const c = newCard(2_000);
    const orphan = gc.debit(c, at(240), 700);
    c.findable = false; // the service has lost the card its ledger points at
    breaks.push({
      scenario: 'ledger entry of a card the service cannot find',
      code: 'GC_ORPHAN_ENTRY',
      entityType: 'giftCardTransaction',
      entityId: orphan.record.transactionId,
      records: [entry(orphan)],
    });
  },
  ({ otherMerchantId, newCard, cardBreak }) => {
    const c = newCard(5_000);
    c.record.merchantId = otherMerchantId; // listed to us, owned by another merchant
    cardBreak('card of another merchant', 'GC_FOREIGN_MERCHANT', c);
  },
  ({ gc, at, newCard, cardBreak }) => {
    const c = newCard(10_000);
    const ref = gc.newReference();
    const first = gc.debit(c, at(250), 1_250, { referenceId: ref });
    const second = gc.debit(c, at(250) + 20_000, 1_250, { referenceId: ref });
    cardBreak(
      'the same debit twice within a minute',
      'GC_SUSPECTED_DOUBLE_DEBIT',
      c,
      [entry(first), entry(second)],
      ref,
    );
  },
  ({ gc, at, newCard, cardBreak }) => {
    const c = newCard(2_000);
    gc.debit(c, at(260), 500);
    c.record.status = 'INACTIVE'; // deactivated without a VOID entry
    cardBreak('inactive without a VOID entry', 'GC_STATUS_LEDGER_MISMATCH', c);
  },
  ({ gc, nowMs, at, newCard, cardBreak }) => {
    const c = newCard(4_000);
    setExpiry(c, nowMs - 5 * HOUR);
    gc.debit(c, at(270), 1_000);
    c.skipExpiryJob = true; // the hourly job passed it by
    cardBreak('still active five hours after expiry', 'GC_EXPIRY_OVERDUE', c);
  },
];

/** Breaks of coupons. */
const COUPON_PLANTS: readonly Plant[] = [
  ({ merchantId, coupon }) => {
    coupon('redeemed beyond its limit', 'CV_OVER_REDEEMED', merchantId, 3, { redemptionCount: 4, status: 'USED' });
  },
  ({ otherMerchantId, coupon }) => {
    coupon('coupon of another merchant', 'CV_FOREIGN_MERCHANT', otherMerchantId, 1, {
      redemptionCount: 0,
      status: 'ACTIVE',
    });
  },
  ({ merchantId, coupon }) => {
    coupon('active at its usage limit', 'CV_STATUS_MISMATCH', merchantId, 2, { redemptionCount: 2, status: 'ACTIVE' });
  },
  ({ nowMs, merchantId, coupon }) => {
    coupon('active six hours after expiry', 'CV_EXPIRED_BUT_ACTIVE', merchantId, 1, {
      redemptionCount: 0,
      status: 'ACTIVE',
      expiresAt: nowMs - 6 * HOUR,
    });
  },
  ({ merchantId, breaks, coupon }) => {
    const { record, ref } = coupon('coupon with a malformed counter', undefined, merchantId, 5, {
      redemptionCount: 3,
      status: 'ACTIVE',
    });
    (record as { redemptionCount: unknown }).redemptionCount = '3';
    breaks.push({
      scenario: 'coupon with a malformed counter',
      code: 'SYNC_REJECTED_RECORD',
      entityType: 'coupon',
      entityId: record.couponId,
      records: [ref],
    });
  },
];

/** Breaks of DP orders and their wallets. */
const ORDER_PLANTS: readonly Plant[] = [
  ({ dp, at, place, orderBreak }) => {
    const o = place(300);
    dp.fulfil(o, at(305));
    o.record.totalAmount = Math.round(o.record.totalAmount * 100 + 100) / 100;
    orderBreak('order total above its lines', 'DP_ORDER_TOTAL_MISMATCH', o);
  },
  ({ dp, at, place, orderBreak }) => {
    const o = place(310, 2);
    dp.fulfil(o, at(315));
    const line = o.record.lineItems[0];
    if (line) {
      const wrongTotal = Math.round(line.price * 2 * 100) + 500;
      line.totalPrice = wire(wrongTotal);
      line.totalConvertedPrice = wire(wrongTotal);
      o.record.totalAmount = wire(wrongTotal);
      dp.moveWallet(dp.selectedWallet, -500);
    }
    orderBreak('line total is not price × quantity', 'DP_LINE_ARITHMETIC', o);
  },
  ({ dp, at, breaks, place, usd }) => {
    const a = place(320, 1, usd, 'PO-DOUBLE-0001');
    const b = place(321, 1, usd, 'PO-DOUBLE-0001');
    dp.fulfil(a, at(325));
    dp.fulfil(b, at(326));
    breaks.push({
      scenario: 'one purchase order placed twice',
      code: 'DP_DUPLICATE_EXTERNAL_REF',
      entityType: 'dpOrder',
      entityId: b.record.orderID,
      referenceId: 'PO-DOUBLE-0001',
      records: [order(a), order(b)],
    });
  },
  ({ dp, at, breaks, place }) => {
    const a = place(330);
    const b = place(331);
    dp.fulfil(a, at(335));
    dp.fulfil(b, at(336));
    const first = a.record.lineItems[0]?.vouchers[0];
    const second = b.record.lineItems[0]?.vouchers[0];
    if (first && second) second.voucherCode = first.voucherCode;
    breaks.push({
      scenario: 'one voucher code delivered twice',
      code: 'DP_DUPLICATE_VOUCHER',
      entityType: 'dpOrder',
      entityId: b.record.orderID,
      records: [order(a), order(b)],
    });
  },
  ({ dp, at, place, orderBreak }) => {
    const o = place(340, 2);
    dp.fulfil(o, at(345));
    o.record.lineItems[0]?.vouchers.pop();
    orderBreak('completed with a voucher missing', 'DP_FULFILMENT_MISMATCH', o);
  },
  ({ dp, at, place, orderBreak }) => {
    const o = place(350);
    dp.fulfil(o, at(355));
    const voucher = o.record.lineItems[0]?.vouchers[0];
    if (voucher) voucher.expirationDate = iso(at(355) - DAY);
    orderBreak('voucher delivered already expired', 'DP_VOUCHER_EXPIRED_ON_DELIVERY', o);
  },
  ({ dp, nowMs, orderBreak, usd }) => {
    const o = dp.placeOrder(nowMs - 3 * DAY, [
      { product: usd, variantID: usd.record.variants[0]?.variantID ?? '', quantity: 1 },
    ]);
    o.pinned = true;
    orderBreak('confirmed three days ago, never fulfilled', 'DP_STUCK_ORDER', o);
  },
  ({ dp, at, place, orderBreak }) => {
    const o = place(360);
    dp.fulfil(o, at(365));
    const line = o.record.lineItems[0];
    if (line) {
      const converted = Math.round(Math.round(line.totalPrice * 100) * 1.05);
      dp.moveWallet(dp.selectedWallet, Math.round(line.totalConvertedPrice * 100) - converted);
      line.fxRate = 1.05;
      line.totalConvertedPrice = wire(converted);
      o.record.totalAmount = wire(converted);
    }
    orderBreak('same currency converted at 1.05', 'DP_FX_RATE_MISMATCH', o);
  },
  ({ dp, at, place, orderBreak }) => {
    const o = place(370);
    dp.fulfil(o, at(375));
    (o.record as { totalAmount: unknown }).totalAmount = String(o.record.totalAmount);
    orderBreak('order with a total sent as text', 'SYNC_REJECTED_RECORD', o);
  },
];

/** Legal records that look like breaks: none may be flagged. */
const LOOK_ALIKES: readonly Plant[] = [
  ({ gc, at, newCard, like }) => {
    const c = newCard(100);
    for (let i = 0; i < 10; i += 1) gc.debit(c, at(400 + i), 10);
    like('ten 0.10 debits emptying a 1.00 card', [card(c.record.giftCardId)]);
  },
  ({ gc, at, newCard, like }) => {
    const c = newCard(500);
    const ref = gc.newReference();
    gc.debit(c, at(420), 30, { referenceId: ref });
    gc.refund(c, at(421), 10, ref);
    gc.refund(c, at(422), 20, ref);
    like('refunds of 0.10 and 0.20 against a 0.30 debit', [card(c.record.giftCardId)]);
  },
  ({ gc, at, newCard, like }) => {
    const c = newCard(5_000);
    const ref = gc.newReference();
    gc.debit(c, at(430), 500, { referenceId: ref });
    gc.debit(c, at(440), 700, { referenceId: ref });
    gc.refund(c, at(450), 1_200, ref);
    like('two debits under one reference refunded in full', [card(c.record.giftCardId)]);
  },
  ({ gc, at, newCard, like }) => {
    const c = newCard(4_000);
    gc.debit(c, at(460), 1_000);
    gc.void(c, at(470), 2_500);
    like('a VOID whose ignored amount is non-zero', [card(c.record.giftCardId)]);
  },
  ({ gc, at, newCard, like }) => {
    const c = newCard(5_000);
    gc.debit(c, at(480), 500);
    gc.debit(c, at(480), 700);
    like('two entries with the same createdAt', [card(c.record.giftCardId)]);
  },
  ({ gc, at, newCard, like }) => {
    const a = newCard(3_000);
    const b = newCard(3_000);
    const shared = 'ORD-SHARED-0001';
    gc.debit(a, at(490), 1_000, { referenceId: shared });
    gc.debit(b, at(491), 800, { referenceId: shared });
    gc.refund(b, at(492), 800, shared);
    like('one referenceId on two cards', [card(a.record.giftCardId), card(b.record.giftCardId)]);
  },
  ({ gc, at, newCard, like }) => {
    const c = newCard(2_500);
    gc.debit(c, at(500), 500);
    c.record.status = 'FROZEN';
    like('a FROZEN card', [card(c.record.giftCardId)]);
  },
  ({ newCard, like }) => {
    const c = newCard(2_500);
    like('an unused card', [card(c.record.giftCardId)]);
  },
  ({ gc, nowMs, at, newCard, like }) => {
    const c = newCard(2_500);
    gc.debit(c, at(510), 500);
    setExpiry(c, nowMs - 30 * 60_000);
    like('a card expired 30 minutes ago', [card(c.record.giftCardId)]);
  },
  ({ gc, at, newCard, like }) => {
    const c = newCard(10_000);
    const formulas = ['=HYPERLINK("http://x","y")', '+SUM(1,2)', '-2+3', '@cmd', '\tTAB-REF', '=1+1'];
    for (const [i, ref] of formulas.entries()) gc.debit(c, at(520 + i), 100, { referenceId: ref });
    gc.refund(c, at(530), 100, formulas[0] ?? '');
    like('caller references that look like spreadsheet formulas', [card(c.record.giftCardId)]);
  },
  ({ merchantId, coupon, like }) => {
    const { ref } = coupon('', undefined, merchantId, 0, { redemptionCount: 250, status: 'ACTIVE' });
    like('an unlimited coupon redeemed 250 times', [ref]);
  },
  ({ dp, at, place, eur, like }) => {
    const o = place(540, 3, eur);
    dp.fulfil(o, at(545));
    like('a EUR order converted into the USD wallet, three vouchers', [order(o)]);
  },
  ({ dp, nowMs, usd, like }) => {
    const o = dp.placeOrder(nowMs - 10 * 60_000, [
      { product: usd, variantID: usd.record.variants[0]?.variantID ?? '', quantity: 1 },
    ]);
    o.pinned = true;
    like('an order placed ten minutes ago, not yet fulfilled', [order(o)]);
  },
];

/** The kit the plants share, in the order its random draws were always made (the card template first). */
function plantKit(context: PlantContext): Kit {
  const { gc, dp, random, nowMs, merchantId, otherMerchantId } = context;
  const breaks: PlantedBreak[] = [];
  const lookAlikes: LookAlike[] = [];
  const flex: CardTemplate = {
    id: random.uuid(),
    programId: 'PRG-PLANTED',
    currency: 'USD',
    denominations: [10_000],
    minRedemption: 0,
    allowPartial: true,
    validityDays: 365,
  };
  const t0 = nowMs - PLANTED_DAYS_BACK * DAY;
  const at = (minutes: number): number => t0 + minutes * 60_000;
  const usd = context.products.find((p) => p.record.currency === 'USD');
  const eur = context.products.find((p) => p.record.currency === 'EUR');
  if (!usd || !eur) throw new Error('the catalogue needs a USD and a EUR product');
  const base = { gc, dp, random, nowMs, merchantId, otherMerchantId, t0, at, breaks, lookAlikes, usd, eur };
  return {
    ...base,
    ...cardHelpers(base, flex),
    ...orderHelpers(base),
    like: (name, records) => {
      lookAlikes.push({ name, records });
    },
  };
}

type KitBase = Pick<
  Kit,
  'gc' | 'dp' | 'random' | 'nowMs' | 'merchantId' | 'otherMerchantId' | 't0' | 'at' | 'breaks' | 'usd' | 'eur'
>;

/** Planting cards and coupons, and recording the breaks found on them. */
function cardHelpers(
  { gc, random, nowMs, merchantId, t0, breaks }: KitBase,
  flex: CardTemplate,
): Pick<Kit, 'newCard' | 'cardBreak' | 'entryBreak' | 'coupon'> {
  const couponTemplate = (limit: number) => ({ id: random.uuid(), programId: 'PRG-PLANTED', usageLimitTotal: limit });
  return {
    newCard: (initial, template = flex, issuedAt = t0 - DAY) => {
      const c = gc.issueCard(merchantId, template, issuedAt, initial);
      c.pinned = true;
      return c;
    },
    cardBreak: (scenario, code, c, records = [], referenceId) => {
      const id = c.record.giftCardId;
      breaks.push({
        scenario,
        code,
        entityType: 'giftCard',
        entityId: id,
        records: [card(id), ...records],
        ...(referenceId ? { referenceId } : {}),
      });
    },
    entryBreak: (scenario, code, c, e, records = []) => {
      breaks.push({
        scenario,
        code,
        entityType: 'giftCardTransaction',
        entityId: e.record.transactionId,
        records: [card(c.record.giftCardId), entry(e), ...records],
      });
    },
    coupon: (scenario, code, owner, limit, state) => {
      const record = couponRecord(gc, owner, couponTemplate(limit), {
        createdAt: t0,
        expiresAt: state.expiresAt ?? nowMs + 30 * DAY,
        redemptionCount: state.redemptionCount,
        status: state.status,
        nowMs,
      });
      gc.addCoupon(merchantId, record, t0, true);
      const ref: RecordRef = { type: 'coupon', id: record.couponId };
      if (code) breaks.push({ scenario, code, entityType: 'coupon', entityId: record.couponId, records: [ref] });
      return { record, ref };
    },
  };
}

/** Placing DP orders, and recording the breaks found on them. */
function orderHelpers({ dp, at, breaks, usd }: KitBase): Pick<Kit, 'place' | 'orderBreak'> {
  return {
    place: (minutes, quantity = 1, product = usd, externalRefID) => {
      const o = dp.placeOrder(
        at(minutes),
        [{ product, variantID: product.record.variants[0]?.variantID ?? '', quantity }],
        externalRefID,
      );
      o.pinned = true;
      return o;
    },
    orderBreak: (scenario, code, o, records = []) => {
      breaks.push({
        scenario,
        code,
        entityType: 'dpOrder',
        entityId: o.record.orderID,
        records: [order(o), ...records],
      });
    },
  };
}

function setExpiry(c: SimCard, expiresAtMs: number): void {
  c.expiresAtMs = expiresAtMs;
  c.record.expiresAt = iso(expiresAtMs);
}
