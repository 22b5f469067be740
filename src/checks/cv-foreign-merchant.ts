import { queryCheck } from './check.js';
import { couponRef } from './refs.js';

export const cvForeignMerchant = queryCheck({
  kind: 'query',
  code: 'CV_FOREIGN_MERCHANT',
  severity: 'error',
  lifecycle: 'state',
  title: "Another merchant's coupon",
  description: "Every request is scoped to the API client's merchant. A coupon owned by another merchant in our lists means the service's merchant scoping leaked.",
  run({ sqlite, merchantId }) {
    if (merchantId === null) return [];
    const rows = sqlite.prepare('SELECT coupon_id, merchant_id FROM coupons WHERE merchant_id <> ? ORDER BY coupon_id').all(merchantId) as { coupon_id: string; merchant_id: string }[];
    return rows.map((row) => ({
      entityType: 'coupon',
      entityId: row.coupon_id,
      message: `coupon ${row.coupon_id} belongs to merchant ${row.merchant_id}, not to our merchant ${merchantId} — the service's merchant scoping let it through`,
      records: [couponRef(row.coupon_id)],
    }));
  },
});
