import { rowsCheck } from './check.js';
import type { CouponCounts } from './store.js';
import { count, couponRef } from './refs.js';

export const cvOverRedeemed = rowsCheck({
  kind: 'rows',
  code: 'CV_OVER_REDEEMED',
  severity: 'error',
  lifecycle: 'state',
  title: 'Coupon redeemed beyond its limit',
  description:
    'A coupon with a total usage limit may be redeemed at most that many times. More redemptions mean discounts were given that the campaign did not allow.',
  read: (store) => store.coupons.couponsOverRedeemed(),
  decide: (rows: readonly CouponCounts[]) =>
    rows.map((row) => ({
      entityType: 'coupon',
      entityId: row.couponId,
      measure: count(row.usageLimitTotal, row.redemptionCount),
      message: `coupon ${row.couponId} was redeemed ${row.redemptionCount} times against a limit of ${row.usageLimitTotal} — ${row.redemptionCount - row.usageLimitTotal} redemption(s) too many; find the orders that used it`,
      records: [couponRef(row.couponId)],
    })),
});
