import { rowsCheck } from './check.js';
import { count, couponRef } from './refs.js';
import type { CouponStep } from './store.js';

export const cvCounterRegressed = rowsCheck({
  kind: 'rows',
  code: 'CV_COUNTER_REGRESSED',
  severity: 'error',
  lifecycle: 'event',
  title: 'Coupon counter went back',
  description:
    "A coupon's redemption count only goes up, and a coupon that left ACTIVE does not come back to it. Between two syncs the count went down or the status returned to ACTIVE: redemptions were erased or a used coupon was revived.",
  read: (store) => store.coupons.couponRegressions(),
  decide(rows: readonly CouponStep[]) {
    return rows.map((row) => {
      const counter = row.redemption_count < row.previous_count;
      return {
        entityType: 'coupon',
        entityId: row.coupon_id,
        // The coupon and the values it went from and to: the event, whichever night finds it.
        identity: [row.previous_status, String(row.previous_count), row.status, String(row.redemption_count)],
        ...(counter ? { measure: count(row.previous_count, row.redemption_count) } : {}),
        message: counter
          ? `coupon ${row.coupon_id}: its redemption count went from ${row.previous_count} (sync ${row.previous_sync_run_id}) down to ${row.redemption_count} (sync ${row.sync_run_id}) — redemptions were erased`
          : `coupon ${row.coupon_id}: its status went from ${row.previous_status} (sync ${row.previous_sync_run_id}) back to ACTIVE (sync ${row.sync_run_id}) — a finished coupon was revived`,
        records: [couponRef(row.coupon_id)],
      };
    });
  },
});
