import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';

/** Every code of DESIGN.md's catalogue that one sync can reveal. */
const SINGLE_SYNC_CODES = [
  'GC_BALANCE_MISMATCH',
  'GC_LEDGER_TAIL_MISMATCH',
  'GC_CHAIN_GAP',
  'GC_ENTRY_ARITHMETIC',
  'GC_REFUND_OVER_DEBIT',
  'GC_REFUND_WITHOUT_DEBIT',
  'GC_NEGATIVE_BALANCE',
  'GC_DUPLICATE_IDEMPOTENCY_KEY',
  'GC_ACTIVITY_AFTER_CLOSE',
  'GC_ACTIVITY_AFTER_EXPIRY',
  'GC_INVALID_AMOUNT',
  'GC_ORPHAN_ENTRY',
  'GC_FOREIGN_MERCHANT',
  'GC_SUSPECTED_DOUBLE_DEBIT',
  'GC_STATUS_LEDGER_MISMATCH',
  'GC_EXPIRY_OVERDUE',
  'CV_OVER_REDEEMED',
  'CV_FOREIGN_MERCHANT',
  'CV_STATUS_MISMATCH',
  'CV_EXPIRED_BUT_ACTIVE',
  'DP_ORDER_TOTAL_MISMATCH',
  'DP_LINE_ARITHMETIC',
  'DP_DUPLICATE_EXTERNAL_REF',
  'DP_DUPLICATE_VOUCHER',
  'DP_FULFILMENT_MISMATCH',
  'DP_VOUCHER_EXPIRED_ON_DELIVERY',
  'DP_STUCK_ORDER',
  'DP_FX_RATE_MISMATCH',
  'SYNC_REJECTED_RECORD',
];

const LOOK_ALIKES = [
  'ten 0.10 debits emptying a 1.00 card',
  'refunds of 0.10 and 0.20 against a 0.30 debit',
  'two debits under one reference refunded in full',
  'a VOID whose ignored amount is non-zero',
  'two entries with the same createdAt',
  'one referenceId on two cards',
  'a FROZEN card',
  'an unused card',
  'a card expired 30 minutes ago',
  'caller references that look like spreadsheet formulas',
];

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 8, size: 'tiny', plant: true });
});
afterAll(() => sim.close());

describe('planted breaks', () => {
  it('plant every code one sync can reveal', () => {
    expect([...new Set(sim.manifest.breaks.map((b) => b.code))].sort()).toEqual([...SINGLE_SYNC_CODES].sort());
  });

  it('plant every legal look-alike the issue lists', () => {
    const names = sim.manifest.lookAlikes.map((l) => l.name);
    for (const name of LOOK_ALIKES) expect(names).toContain(name);
  });

  it('name records that exist, or that the service has lost on purpose', () => {
    const truth = sim.truth();
    const ids = new Set<string>([
      ...truth.giftCards.map((c) => c.giftCardId),
      ...truth.transactions.map((t) => t.transactionId),
      ...truth.coupons.map((c) => c.couponId),
      ...truth.orders.map((o) => o.orderID),
    ]);
    const missing = sim.manifest.breaks.flatMap((b) =>
      b.records.filter((r) => !ids.has(r.id)).map((r) => `${b.code} ${r.type} ${r.id}`),
    );
    // The chain gap names the entries on either side; the deleted entry itself is not named.
    expect(missing).toEqual([]);
  });

  it('leave an orphaned entry whose card answers 404', () => {
    const orphan = sim.manifest.breaks.find((b) => b.code === 'GC_ORPHAN_ENTRY');
    const entry = sim.truth().transactions.find((t) => t.transactionId === orphan?.entityId);
    expect(entry).toBeDefined();
    expect(sim.truth().giftCards.some((c) => c.giftCardId === entry?.giftCardId)).toBe(false);
  });

  it('keep the formula-like references verbatim', () => {
    const refs = new Set(sim.truth().transactions.map((t) => t.referenceId));
    expect(refs.has('=HYPERLINK("http://x","y")')).toBe(true);
    expect(refs.has('@cmd')).toBe(true);
  });
});
