import { rowsCheck } from './check.js';
import type { CouponCounts } from './store.js';
import { couponRef, isoUtc } from './refs.js';

export const cvExpiredButActive = rowsCheck({
  kind: 'rows',
  code: 'CV_EXPIRED_BUT_ACTIVE',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Expired coupon still active',
  description:
    'A coupon past its expiry date should no longer be ACTIVE. One that stays ACTIVE longer than the grace period (default 2 hours) could still be accepted.',
  read: (store, { asOfMs, options }) =>
    store.coupons.couponsActiveExpiredBefore(asOfMs - options.expiryGraceMinutes * 60_000),
  decide: (rows: readonly CouponCounts[], { asOfMs }) =>
    rows.map((row) => ({
      entityType: 'coupon',
      entityId: row.couponId,
      message: `coupon ${row.couponId} expired at ${isoUtc(row.expiresAtMs)} but was still ACTIVE ${Math.floor((asOfMs - row.expiresAtMs) / 60_000)} minutes later at ${isoUtc(asOfMs)} — it may still be accepted`,
      records: [couponRef(row.couponId)],
    })),
});
