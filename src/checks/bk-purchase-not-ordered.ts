import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { aloneDraft, amountOf, draftsOf, placeOf, whenOf } from './books-breaks.js';

export const bkPurchaseNotOrdered = rowsCheck({
  kind: 'rows',
  code: 'BK_PURCHASE_NOT_ORDERED',
  needsBooks: true,
  severity: 'error',
  lifecycle: 'state',
  title: 'Books purchase with no DP order',
  description:
    'A voucher purchase in our books must be an order with the delivery partner under the same external reference. A purchase with no order was booked (and perhaps sold on) without vouchers behind it.',
  read: (store) => store.matchGroups(['dp-purchases'], ['unmatched']),
  decide(groups: readonly MatchGroup[]) {
    return draftsOf(groups, 'dp-purchases', ['unmatched'], (group) => {
      const row = group.records.find((r) => r.side === 'books');
      if (!row) return null;
      return aloneDraft(
        row,
        group,
        `${placeOf(row)}: purchase ${row.reference ?? '?'} of ${amountOf(row)} (${whenOf(row)}) has no DP order under that external reference — the books count vouchers that were never ordered`,
      );
    });
  },
});
