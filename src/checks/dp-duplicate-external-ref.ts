import { rowsCheck } from './check.js';
import type { SharedReference } from './store.js';
import { orderRef } from './refs.js';

export const dpDuplicateExternalRef = rowsCheck({
  kind: 'rows',
  code: 'DP_DUPLICATE_EXTERNAL_REF',
  severity: 'error',
  lifecycle: 'state',
  title: 'One purchase order placed twice',
  description:
    'externalRefID is our own reference for a purchase. Two orders under one reference mean the same purchase was ordered, and paid from the wallet, twice.',
  read: (store) => store.orders.ordersSharingReference(),
  decide(rows: readonly SharedReference[]) {
    const groups = new Map<string, SharedReference[]>();
    for (const row of rows) groups.set(row.externalRefId, [...(groups.get(row.externalRefId) ?? []), row]);
    return [...groups].flatMap(([reference, group]) => {
      const orders = group.map((o) => o.orderId);
      return group.slice(1).map(({ orderId, currency, totalAmountCents: total }) => ({
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
