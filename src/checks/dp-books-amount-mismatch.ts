import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { cents, money } from './refs.js';
import { amountOf, draftsOf, groupRefs, placeOf, sides } from './books-breaks.js';

export const dpBooksAmountMismatch = rowsCheck({
  kind: 'rows',
  code: 'DP_BOOKS_AMOUNT_MISMATCH',
  needsBooks: true,
  severity: 'error',
  lifecycle: 'state',
  title: 'DP order and books purchase differ',
  description:
    "A DP order's total (what the wallet paid) and the purchase our books hold under its external reference should be the same money in the same currency. A difference means the books carry the vouchers at another cost than was paid.",
  read: (store) => store.matchGroups(['dp-purchases'], ['amount-mismatch']),
  decide(groups: readonly MatchGroup[]) {
    return draftsOf(groups, 'dp-purchases', ['amount-mismatch'], (group) => {
      const { books, service } = sides(group);
      const row = books[0];
      const order = service[0];
      if (!row || !order) return null;
      const comparable = row.currency === order.currency && row.amountCents !== null && order.amountCents !== null;
      return {
        entityType: 'dpOrder',
        entityId: order.recordId,
        ...(order.reference !== null ? { referenceId: order.reference } : {}),
        ...(order.currency !== null ? { currency: order.currency } : {}),
        ...(comparable
          ? {
              measure: cents(order.amountCents!, row.amountCents!),
              atStakeCents: Math.abs(order.amountCents! - row.amountCents!),
            }
          : {}),
        message: `order ${order.recordId} (purchase reference ${order.reference}) totals ${amountOf(order)}, its purchase in the books (${placeOf(row)}) ${amountOf(row)}${comparable ? ` — ${money(Math.abs(order.amountCents! - row.amountCents!), order.currency!)} apart` : ' — in another currency'}; correct the books or query the order with the partner`,
        records: groupRefs(group),
      };
    });
  },
});
