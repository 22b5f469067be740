import type { DpWorld, SimProduct } from './dp-world.js';
import { orderLines } from './generator.js';
import type { GiftCardWorld, SimCard } from './giftcard-world.js';
import { iso } from './giftcard-world.js';
import type { Random } from './random.js';

export interface ActivityContext {
  gc: GiftCardWorld;
  dp: DpWorld;
  products: readonly SimProduct[];
  random: Random;
}

export type ActivityKind = 'debit' | 'refund' | 'order' | 'fulfil' | 'redeem' | 'expiry';

/**
 * Applies one legal operation as the live services would while we read them: a debit or a
 * refund on an unpinned card, a new order or a fulfilment, a coupon redemption, or the
 * hourly expiry job. Planted records are pinned and left alone.
 * @returns what was done, or undefined when the drawn operation found nothing to act on.
 */
export function applyActivity(context: ActivityContext, nowMs: number): ActivityKind | undefined {
  const { gc, dp, random } = context;
  const roll = random.next();
  if (roll < 0.45) {
    const card = openCard(context, nowMs, (c) => c.balance >= Math.max(1, c.template.minRedemption));
    if (!card) return undefined;
    const floor = Math.max(1, card.template.minRedemption);
    const amount = card.template.allowPartial
      ? random.int(floor, Math.max(floor, Math.min(card.balance, floor + 5_000)))
      : card.balance;
    if (!gc.canDebit(card, nowMs, amount)) return undefined;
    gc.debit(card, nowMs, amount);
    return 'debit';
  }
  if (roll < 0.6) {
    const card = openCard(context, nowMs, (c) => [...c.refs.keys()].some((ref) => gc.refundable(c, ref) > 0));
    if (!card) return undefined;
    const ref = random.pick([...card.refs.keys()].filter((r) => gc.refundable(card, r) > 0));
    gc.refund(card, nowMs, random.int(1, gc.refundable(card, ref)), ref);
    return 'refund';
  }
  if (roll < 0.75) {
    dp.placeOrder(nowMs, orderLines(random, context.products));
    return 'order';
  }
  if (roll < 0.88) {
    const pending = dp.orders.items.filter((o) => !o.pinned && o.record.status === 'CONFIRMED');
    if (pending.length === 0) return undefined;
    dp.fulfil(random.pick(pending), nowMs);
    return 'fulfil';
  }
  if (roll < 0.98) {
    const items = gc.coupons.items;
    for (let tries = 0; tries < 20 && items.length > 0; tries += 1) {
      const coupon = random.pick(items);
      const record = coupon.record;
      if (coupon.pinned || record.status !== 'ACTIVE' || Date.parse(record.expiresAt) <= nowMs) continue;
      if (typeof record.redemptionCount !== 'number') continue;
      record.redemptionCount += 1;
      record.version += 1;
      if (record.usageLimitTotal > 0 && record.redemptionCount >= record.usageLimitTotal) record.status = 'USED';
      record.updatedAt = iso(nowMs);
      return 'redeem';
    }
    return undefined;
  }
  return gc.runExpiryJob(nowMs) > 0 ? 'expiry' : undefined;
}

function openCard(context: ActivityContext, nowMs: number, accept: (card: SimCard) => boolean): SimCard | undefined {
  const { gc, random } = context;
  const cards = gc.cards.items;
  for (let tries = 0; tries < 30 && cards.length > 0; tries += 1) {
    const card = random.pick(cards);
    if (!card.pinned && card.findable && gc.isOpen(card, nowMs) && accept(card)) return card;
  }
  return undefined;
}
