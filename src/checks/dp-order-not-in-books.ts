import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { aloneDraft, amountOf, draftsOf, whenOf } from './books-breaks.js';

export const dpOrderNotInBooks = rowsCheck({
  kind: 'rows',
  code: 'DP_ORDER_NOT_IN_BOOKS',
  needsBooks: true,
  severity: 'error',
  lifecycle: 'state',
  title: 'DP order missing from our books',
  description:
    'Every voucher order placed with the delivery partner (not FAILED) is a purchase we pay for from the wallet, and so a purchase in our books under its externalRefID. An order with no purchase is wallet money spent that our books do not know about.',
  read: (store) => store.matchGroups(['dp-purchases'], ['unmatched']),
  decide(groups: readonly MatchGroup[]) {
    return draftsOf(groups, 'dp-purchases', ['unmatched'], (group) => {
      const order = group.records.find((r) => r.side === 'dp-order');
      if (!order) return null;
      return aloneDraft(
        order,
        group,
        `order ${order.recordId} (purchase reference ${order.reference ?? '?'}, ${amountOf(order)}, placed ${whenOf(order)}) has no purchase in the books — find who placed it, or the export that left it out`,
      );
    });
  },
});
