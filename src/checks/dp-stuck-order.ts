import { rowsCheck } from './check.js';
import type { OpenOrder } from './store.js';
import { isoUtc, orderRef } from './refs.js';

export const dpStuckOrder = rowsCheck({
  kind: 'rows',
  code: 'DP_STUCK_ORDER',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Order stuck short of completion',
  description:
    'An order should reach COMPLETED or FAILED within the SLA (default 24 hours). One that has not has been paid for from the wallet without vouchers being delivered.',
  read: (store, { asOfMs, options }) => store.orders.ordersOpenSince(asOfMs - options.stuckOrderSlaHours * 3_600_000),
  decide: (rows: readonly OpenOrder[], { asOfMs }) =>
    rows.map((row) => ({
      entityType: 'dpOrder',
      entityId: row.orderId,
      message: `order ${row.orderId} was placed at ${isoUtc(row.createdAtMs)} and is still ${row.status} ${Math.floor((asOfMs - row.createdAtMs) / 3_600_000)} hours later — chase the partner for its vouchers or a refund`,
      records: [orderRef(row.orderId)],
    })),
});
