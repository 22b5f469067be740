import { rowsCheck } from './check.js';
import type { CouponCounts } from './store.js';
import { couponRef } from './refs.js';

export const cvStatusMismatch = rowsCheck({
  kind: 'rows',
  code: 'CV_STATUS_MISMATCH',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Coupon status disagrees with its count',
  description:
    'A coupon that reached its usage limit should no longer be ACTIVE, and a coupon marked USED should have been redeemed at least once.',
  read: (store) => store.coupons.couponsStatusDisagreeing(),
  decide: (rows: readonly CouponCounts[]) =>
    rows.map((row) => ({
      entityType: 'coupon',
      entityId: row.couponId,
      message:
        row.status === 'ACTIVE'
          ? `coupon ${row.couponId} is still ACTIVE after ${row.redemptionCount} of ${row.usageLimitTotal} allowed redemptions — it can be redeemed beyond its limit`
          : `coupon ${row.couponId} is USED but was never redeemed — ask who marked it used`,
      records: [couponRef(row.couponId)],
    })),
});
