import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECK_OPTIONS } from '../../src/checks/check.js';
import { CHECKS } from '../../src/checks/index.js';
import type { CouponCounts } from '../../src/checks/store.js';
import { T0 } from '../support/fixtures.js';
import { HOUR } from '../support/check-kit.js';

describe('the coupon checks decide over rows, without a database', () => {
  const coupon = (over: Partial<CouponCounts>): CouponCounts => ({
    couponId: 'c-1',
    merchantId: 'm-ours',
    status: 'ACTIVE',
    redemptionCount: 0,
    usageLimitTotal: 1,
    expiresAtMs: T0,
    ...over,
  });
  const context = { asOfMs: T0 + 6 * HOUR, merchantId: 'm-ours', options: DEFAULT_CHECK_OPTIONS };

  it('flags what its rows say, and nothing for no rows', () => {
    expect(CHECKS.CV_OVER_REDEEMED.decide([coupon({ redemptionCount: 4, usageLimitTotal: 3 })], context)).toMatchObject(
      [{ entityId: 'c-1', measure: { unit: 'count', expected: 3, actual: 4 } }],
    );
    expect(CHECKS.CV_STATUS_MISMATCH.decide([coupon({ status: 'USED' })], context)[0]?.message).toMatch(
      /USED but was never redeemed/,
    );
    expect(CHECKS.CV_EXPIRED_BUT_ACTIVE.decide([coupon({})], context)[0]?.message).toMatch(
      /still ACTIVE 360 minutes later/,
    );
    expect(CHECKS.CV_FOREIGN_MERCHANT.decide([coupon({ merchantId: 'm-theirs' })], context)[0]?.message).toMatch(
      /belongs to merchant m-theirs, not to our merchant m-ours/,
    );
    for (const check of [
      CHECKS.CV_OVER_REDEEMED,
      CHECKS.CV_STATUS_MISMATCH,
      CHECKS.CV_EXPIRED_BUT_ACTIVE,
      CHECKS.CV_FOREIGN_MERCHANT,
    ])
      expect(check.decide([], context)).toEqual([]);
  });

  it('decides the orders, vouchers and cards in flight the same way', () => {
    expect(
      CHECKS.DP_STUCK_ORDER.decide([{ orderId: 'o-1', status: 'PROCESSING', createdAtMs: T0 }], context)[0]?.message,
    ).toMatch(/still PROCESSING 6 hours later/);
    expect(
      CHECKS.DP_FX_RATE_MISMATCH.decide([{ orderId: 'o-1', lineNo: 2, currency: 'USD', fxRate: 1.1 }], context),
    ).toMatchObject([{ entityId: 'o-1', identity: ['2'], currency: 'USD' }]);
    expect(
      CHECKS.DP_VOUCHER_EXPIRED_ON_DELIVERY.decide(
        [
          { orderId: 'o-1', lineNo: 1, voucherNo: 3, expirationDateMs: T0, deliveredAtMs: T0 + HOUR },
          { orderId: 'o-2', lineNo: 1, voucherNo: 1, expirationDateMs: null, deliveredAtMs: T0 },
        ],
        context,
      ),
    ).toMatchObject([{ entityId: 'o-1', identity: ['1', '3'] }]);
    expect(CHECKS.GC_IN_FLIGHT.decide([{ giftCardId: 'card-9', detail: 'moved', currency: null }], context)).toEqual([
      expect.not.objectContaining({ currency: expect.anything() }),
    ]);
    const shared = [
      { codeSha256: 'h1', orderId: 'o-1', lineNo: 1 },
      { codeSha256: 'h1', orderId: 'o-2', lineNo: 1 },
      { codeSha256: 'h2', orderId: 'o-3', lineNo: 1 },
    ];
    expect(CHECKS.DP_DUPLICATE_VOUCHER.decide(shared, context)).toMatchObject([
      { entityId: 'o-2', identity: ['h1', '1'], records: [{ id: 'o-1' }, { id: 'o-2' }] },
    ]);
    const twice = [
      { externalRefId: 'PO-1', orderId: 'o-1', currency: 'USD', totalAmountCents: 500 },
      { externalRefId: 'PO-1', orderId: 'o-2', currency: 'USD', totalAmountCents: 700 },
    ];
    expect(CHECKS.DP_DUPLICATE_EXTERNAL_REF.decide(twice, context)).toMatchObject([
      { entityId: 'o-2', referenceId: 'PO-1', atStakeCents: 700 },
    ]);
    expect(
      CHECKS.GC_STUCK_IN_FLIGHT.decide([{ giftCardId: 'card-3', currency: 'EUR', sinceSyncRunId: 4 }], context)[0]
        ?.message,
    ).toMatch(/in flight on 3 consecutive syncs \(since sync 4\)/);
    expect(
      CHECKS.DP_ORDER_TOTAL_MISMATCH.decide(
        [{ orderId: 'o-1', currency: 'USD', totalAmountCents: 1_000, linesTotal: 900, lines: 2, offCentLines: 0 }],
        context,
      ),
    ).toMatchObject([{ entityId: 'o-1', measure: { unit: 'cents', expected: 900, actual: 1_000 } }]);
    expect(
      CHECKS.DP_FULFILMENT_MISMATCH.decide(
        [
          {
            orderId: 'o-1',
            status: 'COMPLETED',
            orderFulfilment: 'FULFILLED',
            lineNo: 1,
            quantity: 2,
            fulfilledQty: 2,
            lineFulfilment: 'FULFILLED',
            vouchers: 1,
          },
        ],
        context,
      ),
    ).toMatchObject([{ entityId: 'o-1', identity: ['1'], measure: { expected: 2, actual: 1 } }]);
    const keyed = [
      { idempotencyKey: 'K', transactionId: 'e-1', giftCardId: 'card-2', currency: 'USD', amountCents: 1_000 },
      { idempotencyKey: 'K', transactionId: 'e-2', giftCardId: 'card-1', currency: 'USD', amountCents: 1_500 },
    ];
    expect(CHECKS.GC_DUPLICATE_IDEMPOTENCY_KEY.decide(keyed, context)).toMatchObject([
      {
        entityId: 'card-1',
        atStakeCents: 1_000,
        measure: { expected: 1, actual: 2 },
        records: [{ id: 'card-2' }, { id: 'card-1' }, { id: 'e-1' }, { id: 'e-2' }],
      },
    ]);
    expect(
      CHECKS.SYNC_REJECTED_RECORD.decide(
        [{ quarantineId: 7, resource: 'coupons', recordId: null, reason: 'no status', rawSha256: 'ab' }],
        context,
      ),
    ).toMatchObject([{ entityType: 'coupon', entityId: 'quarantine-7', identity: ['ab'], records: [] }]);
  });
});
