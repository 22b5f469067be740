import { queryCheck } from './check.js';
import { isoUtc, orderRef } from './refs.js';

export const dpStuckOrder = queryCheck({
  kind: 'query',
  code: 'DP_STUCK_ORDER',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Order stuck short of completion',
  description: 'An order should reach COMPLETED or FAILED within the SLA (default 24 hours). One that has not has been paid for from the wallet without vouchers being delivered.',
  run({ sqlite, asOfMs, options }) {
    const rows = sqlite
      .prepare(`SELECT order_id, status, created_at_ms FROM dp_orders WHERE status NOT IN ('COMPLETED', 'FAILED') AND created_at_ms < ? ORDER BY order_id`)
      .all(asOfMs - options.stuckOrderSlaHours * 3_600_000) as { order_id: string; status: string; created_at_ms: number }[];
    return rows.map((row) => ({
      entityType: 'dpOrder',
      entityId: row.order_id,
      message: `order ${row.order_id} was placed at ${isoUtc(row.created_at_ms)} and is still ${row.status} ${Math.floor((asOfMs - row.created_at_ms) / 3_600_000)} hours later — chase the partner for its vouchers or a refund`,
      records: [orderRef(row.order_id)],
    }));
  },
});
