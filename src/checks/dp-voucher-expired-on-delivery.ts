import { queryCheck } from './check.js';
import { isoUtc, orderRef } from './refs.js';

export const dpVoucherExpiredOnDelivery = queryCheck({
  kind: 'query',
  code: 'DP_VOUCHER_EXPIRED_ON_DELIVERY',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Voucher delivered already expired',
  description: 'A voucher must still be valid when it is delivered. One that expired before its order was fulfilled cannot be used by the customer, although the wallet paid for it.',
  run({ sqlite }) {
    const rows = sqlite
      .prepare(
        `SELECT v.order_id, v.line_no, v.voucher_no, v.expiration_date_ms, o.updated_at_ms AS delivered_at_ms
         FROM dp_vouchers v JOIN dp_orders o ON o.order_id = v.order_id
         WHERE v.expiration_date_ms <= o.updated_at_ms ORDER BY v.order_id, v.line_no, v.voucher_no`,
      )
      .all() as { order_id: string; line_no: number; voucher_no: number; expiration_date_ms: number; delivered_at_ms: number }[];
    return rows.map((row) => ({
      entityType: 'dpOrder',
      entityId: row.order_id,
      identity: [String(row.line_no), String(row.voucher_no)],
      message: `order ${row.order_id} line ${row.line_no}: voucher ${row.voucher_no} expired at ${isoUtc(row.expiration_date_ms)}, before the order was delivered at ${isoUtc(row.delivered_at_ms)} — ask the partner for a replacement or a refund`,
      records: [orderRef(row.order_id)],
    }));
  },
});
