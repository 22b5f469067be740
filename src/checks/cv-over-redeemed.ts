import { queryCheck } from './check.js';
import { count, couponRef } from './refs.js';

export const cvOverRedeemed = queryCheck({
  kind: 'query',
  code: 'CV_OVER_REDEEMED',
  severity: 'error',
  lifecycle: 'state',
  title: 'Coupon redeemed beyond its limit',
  description: 'A coupon with a total usage limit may be redeemed at most that many times. More redemptions mean discounts were given that the campaign did not allow.',
  run({ sqlite }) {
    const rows = sqlite
      .prepare('SELECT coupon_id, redemption_count, usage_limit_total FROM coupons WHERE usage_limit_total > 0 AND redemption_count > usage_limit_total ORDER BY coupon_id')
      .all() as { coupon_id: string; redemption_count: number; usage_limit_total: number }[];
    return rows.map((row) => ({
      entityType: 'coupon',
      entityId: row.coupon_id,
      measure: count(row.usage_limit_total, row.redemption_count),
      message: `coupon ${row.coupon_id} was redeemed ${row.redemption_count} times against a limit of ${row.usage_limit_total} — ${row.redemption_count - row.usage_limit_total} redemption(s) too many; find the orders that used it`,
      records: [couponRef(row.coupon_id)],
    }));
  },
});
