import { rowsCheck } from './check.js';
import type { SharedVoucher } from './store.js';
import { orderRef } from './refs.js';

export const dpDuplicateVoucher = rowsCheck({
  kind: 'rows',
  code: 'DP_DUPLICATE_VOUCHER',
  severity: 'error',
  lifecycle: 'state',
  title: 'One voucher code delivered twice',
  description:
    'Every delivered voucher code must be unique. The same code on two lines or orders means a customer received a voucher that someone else can also spend (codes are compared by their SHA-256 hash).',
  read: (store) => store.orders.vouchersDeliveredTwice(),
  decide(rows: readonly SharedVoucher[]) {
    const groups = new Map<string, SharedVoucher[]>();
    for (const row of rows) groups.set(row.codeSha256, [...(groups.get(row.codeSha256) ?? []), row]);
    return [...groups].flatMap(([hash, deliveries]) => {
      const first = deliveries[0];
      const orders = [...new Set(deliveries.map((d) => d.orderId))];
      return deliveries.slice(1).map((later) => ({
        entityType: 'dpOrder' as const,
        entityId: later.orderId,
        identity: [hash, String(later.lineNo)],
        message: `order ${later.orderId} line ${later.lineNo} delivered the same voucher code as order ${first?.orderId} line ${first?.lineNo} (code hash ${hash.slice(0, 12)}…) — one of the customers holds a voucher the other can spend`,
        records: orders.map(orderRef),
      }));
    });
  },
});
