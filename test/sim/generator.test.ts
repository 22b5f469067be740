import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startSimulator, type GroundTruth } from '../../src/sim/simulator.js';
import { runs } from '../support/property.js';

const cents = (n: number): number => Math.round(n * 100);

/** Checks a generated world against the specs' rules; returns every violation found. */
function violations(truth: GroundTruth): string[] {
  const problems: string[] = [];
  const byCard = new Map<string, GroundTruth['transactions']>();
  // The list is newest first; a card's chain runs oldest first.
  for (const entry of [...truth.transactions].reverse()) {
    const list = byCard.get(entry.giftCardId) ?? [];
    list.push(entry);
    byCard.set(entry.giftCardId, list);
  }
  for (const card of truth.giftCards) {
    let balance = cents(card.initialBalance);
    const refs = new Map<string, { debited: number; refunded: number }>();
    let closed = false;
    for (const entry of byCard.get(card.giftCardId) ?? []) {
      const amount = cents(entry.amount);
      const where = `card ${card.giftCardId} entry ${entry.transactionId}`;
      if (cents(entry.balanceBefore) !== balance) problems.push(`${where}: chain gap`);
      if (Date.parse(entry.createdAt) >= Date.parse(card.expiresAt) && entry.type !== 'EXPIRE')
        problems.push(`${where}: after expiry`);
      if (closed) problems.push(`${where}: after close`);
      const ref = refs.get(entry.referenceId) ?? { debited: 0, refunded: 0 };
      if (entry.type === 'DEBIT') {
        if (amount <= 0 || amount > balance) problems.push(`${where}: debit outside the balance`);
        ref.debited += amount;
        balance -= amount;
      } else if (entry.type === 'REFUND') {
        ref.refunded += amount;
        if (ref.refunded > ref.debited) problems.push(`${where}: refund above debits`);
        balance += amount;
      } else {
        closed = true;
      }
      refs.set(entry.referenceId, ref);
      if (cents(entry.balanceAfter) !== balance) problems.push(`${where}: arithmetic`);
    }
    if (cents(card.remainingBalance) !== balance) problems.push(`card ${card.giftCardId}: remaining balance`);
    if (card.merchantId !== truth.merchantId) problems.push(`card ${card.giftCardId}: merchant`);
  }
  for (const coupon of truth.coupons) {
    if (coupon.usageLimitTotal > 0 && coupon.redemptionCount > coupon.usageLimitTotal)
      problems.push(`coupon ${coupon.couponId}: over its limit`);
    if (coupon.status === 'ACTIVE' && coupon.usageLimitTotal > 0 && coupon.redemptionCount >= coupon.usageLimitTotal)
      problems.push(`coupon ${coupon.couponId}: active at its limit`);
  }
  for (const order of truth.orders) {
    const lines = order.lineItems.reduce((sum, line) => sum + cents(line.totalConvertedPrice), 0);
    if (lines !== cents(order.totalAmount)) problems.push(`order ${order.orderID}: total`);
    for (const line of order.lineItems) {
      if (cents(line.totalPrice) !== cents(line.price) * line.quantity)
        problems.push(`order ${order.orderID}: line total`);
      if (Math.abs(cents(line.totalConvertedPrice) - cents(line.totalPrice) * line.fxRate) > 1)
        problems.push(`order ${order.orderID}: FX`);
      if (order.status === 'COMPLETED' && line.vouchers.length !== line.quantity)
        problems.push(`order ${order.orderID}: vouchers`);
    }
  }
  return problems;
}

describe('the generator', () => {
  it('follows the specs’ rules for any seed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 }), async (seed) => {
        const sim = await startSimulator({ seed, size: 'tiny' });
        const truth = sim.truth();
        await sim.close();
        expect(violations(truth)).toEqual([]);
      }),
      runs(25),
    );
  });

  it('keeps following them under live activity', async () => {
    const sim = await startSimulator({ seed: 4, size: 'small' });
    const done = sim.applyActivity(500);
    const truth = sim.truth();
    await sim.close();
    expect(new Set(done)).toEqual(new Set(['debit', 'refund', 'order', 'fulfil', 'redeem']));
    expect(violations(truth)).toEqual([]);
  });

  it('generates VOID and EXPIRE entries, the hourly job’s among them, and FX orders', async () => {
    const sim = await startSimulator({ seed: 2, size: 'small' });
    const truth = sim.truth();
    await sim.close();
    const types = new Set(truth.transactions.map((t) => t.type));
    expect(types).toEqual(new Set(['DEBIT', 'REFUND', 'VOID', 'EXPIRE']));
    const jobRuns = truth.transactions.filter((t) => t.referenceId === 'EXPIRY-JOB');
    expect(jobRuns.length).toBeGreaterThan(0);
    expect(jobRuns.every((t) => t.createdAt.endsWith(':00:00.000Z'))).toBe(true);
    expect(truth.orders.some((o) => o.lineItems.some((l) => l.currency !== o.currency && l.fxRate !== 1))).toBe(true);
    expect(truth.orders.some((o) => o.status === 'FAILED')).toBe(true);
  });

  it('is deterministic for a seed', async () => {
    const nowMs = Date.parse('2026-11-01T12:00:00Z');
    const a = await startSimulator({ seed: 77, size: 'tiny', nowMs, plant: true });
    const b = await startSimulator({ seed: 77, size: 'tiny', nowMs, plant: true });
    const [ta, tb] = [a.truth(), b.truth()];
    await Promise.all([a.close(), b.close()]);
    expect(tb).toEqual(ta);
    expect(b.manifest).toEqual(a.manifest);
  });
});
