import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { amountOf, booksType, draftsOf, groupRefs, placeOf, sides } from './books-breaks.js';

export const bkAmbiguous = rowsCheck({
  kind: 'rows',
  code: 'BK_AMBIGUOUS',
  needsBooks: true,
  severity: 'warning',
  lifecycle: 'state',
  title: 'Books could match more than one way',
  description:
    'Several books rows and several ledger entries share one reference, type and amount, and the books name no card to tell them apart. Any pairing would be a guess, so none is made: the rows are reported for a person to match, or for the books to carry the card.',
  read: (store) => store.matchGroups(['tenders'], ['ambiguous']),
  decide(groups: readonly MatchGroup[]) {
    return draftsOf(groups, 'tenders', ['ambiguous'], (group) => {
      const { books, service } = sides(group);
      const first = books[0];
      if (!first) return null;
      return {
        entityType: 'booksRow',
        entityId: first.recordId,
        ...(first.reference !== null ? { referenceId: first.reference } : {}),
        ...(first.currency !== null ? { currency: first.currency } : {}),
        message: `reference ${first.reference}: ${books.length} ${booksType(first)}s of ${amountOf(first)} in the books (${books.map(placeOf).join(', ')}) and ${service.length} ${first.entryType}s on cards ${[...new Set(service.map((e) => e.giftCardId))].join(', ')} could pair more than one way — not matched; match them by hand, or have the export name each card`,
        records: groupRefs(group),
      };
    });
  },
});
