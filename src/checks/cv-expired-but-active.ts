import { queryCheck } from './check.js';
import { couponRef, isoUtc } from './refs.js';

export const cvExpiredButActive = queryCheck({
  kind: 'query',
  code: 'CV_EXPIRED_BUT_ACTIVE',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Expired coupon still active',
  description: 'A coupon past its expiry date should no longer be ACTIVE. One that stays ACTIVE longer than the grace period (default 2 hours) could still be accepted.',
  run({ sqlite, asOfMs, options }) {
    const rows = sqlite
      .prepare(`SELECT coupon_id, expires_at_ms FROM coupons WHERE status = 'ACTIVE' AND expires_at_ms < ? ORDER BY coupon_id`)
      .all(asOfMs - options.expiryGraceMinutes * 60_000) as { coupon_id: string; expires_at_ms: number }[];
    return rows.map((row) => ({
      entityType: 'coupon',
      entityId: row.coupon_id,
      message: `coupon ${row.coupon_id} expired at ${isoUtc(row.expires_at_ms)} but was still ACTIVE ${Math.floor((asOfMs - row.expires_at_ms) / 60_000)} minutes later at ${isoUtc(asOfMs)} — it may still be accepted`,
      records: [couponRef(row.coupon_id)],
    }));
  },
});
