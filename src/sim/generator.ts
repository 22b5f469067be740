import type { DpWorld, SimProduct } from './dp-world.js';
import { DAY, type GiftCardWorld, HOUR, iso, type CardTemplate, type CouponWire } from './giftcard-world.js';
import type { Random } from './random.js';

/** How much data the simulator generates. */
export interface WorldSize {
  cards: number;
  /** Mean ledger entries per card (entries per card are uniform in 0..2×mean). */
  entriesPerCard: number;
  coupons: number;
  products: number;
  orders: number;
  /** Cards issued over six years in two aged programs (aged.ts): the liability workpaper's world. */
  agedCards?: number;
}

export const SIZE_PRESETS = {
  tiny: { cards: 12, entriesPerCard: 4, coupons: 8, products: 4, orders: 10 },
  small: { cards: 300, entriesPerCard: 6, coupons: 120, products: 12, orders: 150 },
  medium: { cards: 10_000, entriesPerCard: 10, coupons: 3_000, products: 40, orders: 3_000 },
  large: { cards: 160_000, entriesPerCard: 12, coupons: 20_000, products: 80, orders: 20_000 },
} as const satisfies Record<string, WorldSize>;
export type SizePreset = keyof typeof SIZE_PRESETS;

/**
 * The aged cards `simulate` and the demo add to each preset's world (aged.ts): the liability
 * workpaper's six years. Not in SIZE_PRESETS, so that a test's world stays as its seed made it.
 */
export const AGED_CARDS: Readonly<Record<SizePreset, number>> = { tiny: 0, small: 80, medium: 2_000, large: 20_000 };

/** Templates of a merchant's gift card programs: the rules debits must follow. */
export function cardTemplates(random: Random): CardTemplate[] {
  const program = (name: string): string => `PRG-${name}`;
  return [
    {
      id: random.uuid(),
      programId: program('CLASSIC'),
      currency: 'USD',
      denominations: [2_500, 5_000, 10_000],
      minRedemption: 100,
      allowPartial: true,
      validityDays: 365,
    },
    {
      id: random.uuid(),
      programId: program('EURO'),
      currency: 'EUR',
      denominations: [2_000, 5_000],
      minRedemption: 0,
      allowPartial: true,
      validityDays: 180,
    },
    {
      id: random.uuid(),
      programId: program('ONE-SHOT'),
      currency: 'USD',
      denominations: [1_000, 1_500],
      minRedemption: 0,
      allowPartial: false,
      validityDays: 90,
    },
    {
      id: random.uuid(),
      programId: program('UK-PROMO'),
      currency: 'GBP',
      denominations: [3_000, 7_500],
      minRedemption: 500,
      allowPartial: true,
      validityDays: 30,
    },
    {
      id: random.uuid(),
      programId: program('INDIA'),
      currency: 'INR',
      denominations: [50_000, 100_000],
      minRedemption: 10_000,
      allowPartial: true,
      validityDays: 60,
    },
  ];
}

export interface GenerationContext {
  gc: GiftCardWorld;
  dp: DpWorld;
  random: Random;
  nowMs: number;
  merchantId: string;
  templates: CardTemplate[];
}

/** The window history is generated over. */
const HISTORY_MS = 120 * DAY;

/**
 * Generates a merchant's cards with their ledger, its coupons, and a DP's catalogue and
 * orders, all by the specs' rules. Records stay held back until the worlds are finalized.
 */
export function generateMerchant(context: GenerationContext, size: WorldSize): void {
  const { gc, random, nowMs, merchantId, templates } = context;
  for (let i = 0; i < size.cards; i += 1) {
    const template = random.pick(templates);
    const issuedAt = nowMs - random.int(HOUR, HISTORY_MS);
    const card = gc.issueCard(merchantId, template, issuedAt);
    const last = Math.min(nowMs - 60_000, card.expiresAtMs - 60_000);
    const count = random.int(0, size.entriesPerCard * 2);
    if (count === 0 || last <= issuedAt) continue;
    const times = Array.from({ length: count }, () => random.int(issuedAt + 1_000, last)).sort((a, b) => a - b);
    for (const at of times) {
      if (!gc.isOpen(card, at)) break;
      const refundable = [...card.refs.keys()].filter((ref) => gc.refundable(card, ref) > 0);
      if (refundable.length > 0 && random.chance(0.18)) {
        const ref = random.pick(refundable);
        const max = gc.refundable(card, ref);
        gc.refund(card, at, random.chance(0.6) ? max : random.int(1, max), ref);
        continue;
      }
      const amount = debitAmount(random, card.balance, card.template);
      if (amount !== undefined && gc.canDebit(card, at, amount)) gc.debit(card, at, amount);
    }
    const closeAt = Math.min(last, (times.at(-1) ?? issuedAt) + random.int(60_000, DAY));
    if (gc.isOpen(card, closeAt) && closeAt > (times.at(-1) ?? issuedAt)) {
      if (random.chance(0.03)) gc.void(card, closeAt, random.chance(0.5) ? card.balance : 0);
      else if (random.chance(0.01)) gc.expire(card, closeAt, `EXPIRE-${random.code(6)}`);
    }
  }
  generateCoupons(context, size.coupons);
}

/** A debit the service would accept: at least the template minimum, within the balance. */
function debitAmount(random: Random, balance: number, template: CardTemplate): number | undefined {
  const floor = Math.max(1, template.minRedemption);
  if (balance < floor) return undefined;
  if (!template.allowPartial || random.chance(0.15)) return balance;
  const share = random.next() ** 2;
  return Math.min(balance, Math.max(floor, Math.round(balance * share)));
}

interface CouponTemplate {
  id: string;
  programId: string;
  usageLimitTotal: number;
  validityDays: number;
}

function generateCoupons({ gc, random, nowMs, merchantId }: GenerationContext, count: number): void {
  const templates: CouponTemplate[] = [
    { id: random.uuid(), programId: 'PRG-WELCOME', usageLimitTotal: 1, validityDays: 30 },
    { id: random.uuid(), programId: 'PRG-LOYAL', usageLimitTotal: 5, validityDays: 90 },
    { id: random.uuid(), programId: 'PRG-PUBLIC', usageLimitTotal: 0, validityDays: 60 },
  ];
  for (let i = 0; i < count; i += 1) {
    const template = random.pick(templates);
    const createdAt = nowMs - random.int(HOUR, HISTORY_MS);
    const expiresAt = createdAt + template.validityDays * DAY;
    const limit = template.usageLimitTotal;
    const redemptionCount = limit === 0 ? random.int(0, 40) : random.int(0, limit);
    let status = 'ACTIVE';
    if (limit > 0 && redemptionCount >= limit) status = 'USED';
    else if (expiresAt < nowMs - HOUR) status = 'EXPIRED';
    else if (random.chance(0.03)) status = 'VOIDED';
    gc.addCoupon(
      merchantId,
      couponRecord(gc, merchantId, template, { createdAt, expiresAt, redemptionCount, status, nowMs }),
      createdAt,
    );
  }
}

export function couponRecord(
  gc: GiftCardWorld,
  merchantId: string,
  template: { id: string; programId: string; usageLimitTotal: number },
  state: { createdAt: number; expiresAt: number; redemptionCount: number; status: string; nowMs: number },
): CouponWire {
  const statusChanges = state.status === 'ACTIVE' ? 0 : 1;
  const updatedAt = Math.min(state.nowMs, state.createdAt + state.redemptionCount * HOUR + statusChanges * HOUR);
  return {
    couponId: gc.random.uuid(),
    merchantId,
    programId: template.programId,
    couponTemplateId: template.id,
    codeHash: gc.newCode(12),
    status: state.status,
    redemptionCount: state.redemptionCount,
    usageLimitTotal: template.usageLimitTotal,
    expiresAt: iso(state.expiresAt),
    version: state.redemptionCount + statusChanges,
    createdAt: iso(state.createdAt),
    updatedAt: iso(updatedAt),
  };
}

const CATALOGUE = [
  { name: 'Amazon', currency: 'USD' },
  { name: 'Zalando', currency: 'EUR' },
  { name: 'Tesco', currency: 'GBP' },
  { name: 'Flipkart', currency: 'INR' },
  { name: 'Steam', currency: 'USD' },
  { name: 'Decathlon', currency: 'EUR' },
  { name: 'Argos', currency: 'GBP' },
  { name: 'Myntra', currency: 'INR' },
] as const;

/** The DP's wallets (USD selected), its catalogue, and its order history. */
export function generateDp(
  { dp, random, nowMs }: Pick<GenerationContext, 'dp' | 'random' | 'nowMs'>,
  size: Pick<WorldSize, 'products' | 'orders'>,
): SimProduct[] {
  dp.addWallet('USD', 250_000_000, true);
  dp.addWallet('EUR', 4_000_000);
  dp.addWallet('INR', 90_000_000);
  const products: SimProduct[] = [];
  for (let i = 0; i < size.products; i += 1) {
    const base = CATALOGUE[i % CATALOGUE.length] ?? CATALOGUE[0];
    const unit = base.currency === 'INR' ? 100_000 : 1_000;
    const variants = [1, 2, 5].slice(0, random.int(1, 3)).map((multiple) => {
      const mrp = unit * multiple;
      return {
        name: `${mrp / 100} ${base.currency}`,
        mrp,
        price: Math.round(mrp * (1 - random.int(2, 8) / 100)),
        stock: random.int(0, 5_000),
      };
    });
    products.push(
      dp.addProduct(
        `${base.name}${i >= CATALOGUE.length ? ` ${Math.floor(i / CATALOGUE.length) + 1}` : ''}`,
        base.currency,
        variants,
      ),
    );
  }
  for (let i = 0; i < size.orders; i += 1) {
    const at = nowMs - random.int(2 * HOUR, HISTORY_MS);
    const order = dp.placeOrder(at, orderLines(random, products));
    if (random.chance(0.02)) dp.fail(order, at + random.int(60_000, 30 * 60_000));
    else dp.fulfil(order, at + random.int(30_000, 45 * 60_000));
  }
  return products;
}

export function orderLines(
  random: Random,
  products: readonly SimProduct[],
): Array<{ product: SimProduct; variantID: string; quantity: number }> {
  const lines = random.chance(0.15) ? 2 : 1;
  return Array.from({ length: lines }, () => {
    const product = random.pick(products);
    return { product, variantID: random.pick(product.record.variants).variantID, quantity: random.int(1, 3) };
  });
}
