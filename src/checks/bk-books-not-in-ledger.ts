import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { aloneDraft, amountOf, booksType, draftsOf, placeOf, whenOf } from './books-breaks.js';

export const bkBooksNotInLedger = rowsCheck({
  kind: 'rows',
  code: 'BK_BOOKS_NOT_IN_LEDGER',
  needsBooks: true,
  severity: 'error',
  lifecycle: 'state',
  title: 'Books row missing from the services',
  description:
    'A gift card payment or refund in our books must be an entry on the gift card ledger, and a coupon use must name a coupon of ours. A books row with no partner is a sale our books count as paid by gift card (or discounted by a coupon) that the service never recorded.',
  read: (store) => store.matchGroups(['coupon-uses', 'tenders'], ['unmatched']),
  decide(groups: readonly MatchGroup[]) {
    const tenders = draftsOf(groups, 'tenders', ['unmatched'], (group) => {
      const row = group.records.find((r) => r.side === 'books');
      if (!row) return null;
      return aloneDraft(
        row,
        group,
        `${placeOf(row)}: ${booksType(row)} of ${amountOf(row)} under reference ${row.reference ?? '(none)'} (${whenOf(row)}) has no ${row.entryType} on the gift card ledger — the order system recorded a gift card ${booksType(row)} the service never made`,
      );
    });
    const uses = draftsOf(groups, 'coupon-uses', ['unmatched'], (group) => {
      const row = group.records.find((r) => r.side === 'books');
      if (!row) return null;
      return aloneDraft(
        row,
        group,
        `${placeOf(row)}: a coupon use${row.reference ? ` on order ${row.reference}` : ''} (${whenOf(row)}) names a code no coupon of ours has — a discount given on a code the coupon service does not know`,
      );
    });
    return [...tenders, ...uses];
  },
});
