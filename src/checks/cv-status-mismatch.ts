import { queryCheck } from './check.js';
import { couponRef } from './refs.js';

export const cvStatusMismatch = queryCheck({
  kind: 'query',
  code: 'CV_STATUS_MISMATCH',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Coupon status disagrees with its count',
  description: 'A coupon that reached its usage limit should no longer be ACTIVE, and a coupon marked USED should have been redeemed at least once.',
  run({ sqlite }) {
    const rows = sqlite
      .prepare(
        `SELECT coupon_id, status, redemption_count, usage_limit_total FROM coupons
         WHERE (status = 'ACTIVE' AND usage_limit_total > 0 AND redemption_count >= usage_limit_total) OR (status = 'USED' AND redemption_count = 0)
         ORDER BY coupon_id`,
      )
      .all() as { coupon_id: string; status: string; redemption_count: number; usage_limit_total: number }[];
    return rows.map((row) => ({
      entityType: 'coupon',
      entityId: row.coupon_id,
      message:
        row.status === 'ACTIVE'
          ? `coupon ${row.coupon_id} is still ACTIVE after ${row.redemption_count} of ${row.usage_limit_total} allowed redemptions — it can be redeemed beyond its limit`
          : `coupon ${row.coupon_id} is USED but was never redeemed — ask who marked it used`,
      records: [couponRef(row.coupon_id)],
    }));
  },
});
