import { queryCheck } from './check.js';
import { orderRef } from './refs.js';

export const dpDuplicateExternalRef = queryCheck({
  kind: 'query',
  code: 'DP_DUPLICATE_EXTERNAL_REF',
  severity: 'error',
  lifecycle: 'state',
  title: 'One purchase order placed twice',
  description: "externalRefID is our own reference for a purchase. Two orders under one reference mean the same purchase was ordered, and paid from the wallet, twice.",
  run({ sqlite }) {
    const rows = sqlite
      .prepare(
        `SELECT external_ref_id, order_id, created_at_ms, currency, total_amount_cents FROM dp_orders
         WHERE external_ref_id IN (SELECT external_ref_id FROM dp_orders GROUP BY external_ref_id HAVING COUNT(*) > 1)
         ORDER BY external_ref_id, created_at_ms, order_id`,
      )
      .all() as { external_ref_id: string; order_id: string; currency: string; total_amount_cents: number | null }[];
    const groups = new Map<string, typeof rows>();
    for (const row of rows) groups.set(row.external_ref_id, [...(groups.get(row.external_ref_id) ?? []), row]);
    return [...groups].flatMap(([reference, group]) => {
      const orders = group.map((o) => o.order_id);
      return group.slice(1).map(({ order_id: orderId, currency, total_amount_cents: total }) => ({
        entityType: 'dpOrder' as const,
        entityId: orderId,
        referenceId: reference,
        currency,
        // The repeated order's total was paid twice.
        atStakeCents: total ?? 0,
        message: `order ${orderId} repeats purchase reference ${reference} of order ${orders[0]} (${orders.length} orders in all) — the purchase was ordered and paid for more than once`,
        records: orders.map(orderRef),
      }));
    });
  },
});
