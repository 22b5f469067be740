import { rowsCheck } from './check.js';
import type { CouponCounts } from './store.js';
import { couponRef } from './refs.js';

export const cvForeignMerchant = rowsCheck({
  kind: 'rows',
  code: 'CV_FOREIGN_MERCHANT',
  severity: 'error',
  lifecycle: 'state',
  title: "Another merchant's coupon",
  description:
    "Every request is scoped to the API client's merchant. A coupon owned by another merchant in our lists means the service's merchant scoping leaked.",
  read: async (store, { merchantId }) => (merchantId === null ? [] : store.coupons.couponsOfOtherMerchants(merchantId)),
  decide: (rows: readonly CouponCounts[], { merchantId }) =>
    rows.map((row) => ({
      entityType: 'coupon',
      entityId: row.couponId,
      message: `coupon ${row.couponId} belongs to merchant ${row.merchantId}, not to our merchant ${merchantId} — the service's merchant scoping let it through`,
      records: [couponRef(row.couponId)],
    })),
});
