import { queryCheck } from './check.js';
import { orderRef } from './refs.js';

export const dpDuplicateVoucher = queryCheck({
  kind: 'query',
  code: 'DP_DUPLICATE_VOUCHER',
  severity: 'error',
  lifecycle: 'state',
  title: 'One voucher code delivered twice',
  description: 'Every delivered voucher code must be unique. The same code on two lines or orders means a customer received a voucher that someone else can also spend (codes are compared by their SHA-256 hash).',
  run({ sqlite }) {
    const rows = sqlite
      .prepare(
        `SELECT v.code_sha256, v.order_id, v.line_no FROM dp_vouchers v JOIN dp_orders o ON o.order_id = v.order_id
         WHERE v.code_sha256 IN (SELECT code_sha256 FROM dp_vouchers GROUP BY code_sha256 HAVING COUNT(*) > 1)
         ORDER BY v.code_sha256, o.created_at_ms, v.order_id, v.line_no`,
      )
      .all() as { code_sha256: string; order_id: string; line_no: number }[];
    const groups = new Map<string, { order_id: string; line_no: number }[]>();
    for (const row of rows) groups.set(row.code_sha256, [...(groups.get(row.code_sha256) ?? []), row]);
    return [...groups].flatMap(([hash, deliveries]) => {
      const first = deliveries[0];
      const orders = [...new Set(deliveries.map((d) => d.order_id))];
      return deliveries.slice(1).map((later) => ({
        entityType: 'dpOrder' as const,
        entityId: later.order_id,
        identity: [hash, String(later.line_no)],
        message: `order ${later.order_id} line ${later.line_no} delivered the same voucher code as order ${first?.order_id} line ${first?.line_no} (code hash ${hash.slice(0, 12)}…) — one of the customers holds a voucher the other can spend`,
        records: orders.map(orderRef),
      }));
    });
  },
});
