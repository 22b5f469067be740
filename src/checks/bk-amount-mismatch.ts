import { cents, money } from './refs.js';
import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { booksType, draftsOf, groupRefs, placeOf, sides, sumOf } from './books-breaks.js';

export const bkAmountMismatch = rowsCheck({
  kind: 'rows',
  code: 'BK_AMOUNT_MISMATCH',
  needsBooks: true,
  severity: 'error',
  lifecycle: 'state',
  title: 'Books and ledger amounts differ',
  description:
    'A tender or refund in our books and the ledger entries under the same order reference and type should move the same money, to the cent or within the tolerance set for the currency. Different amounts mean one side charged or refunded a card more than the other recorded.',
  read: (store) => store.matchGroups(['tenders'], ['amount-mismatch']),
  decide(groups: readonly MatchGroup[]) {
    return draftsOf(groups, 'tenders', ['amount-mismatch'], (group) => {
      const { books, service } = sides(group);
      const first = books[0];
      if (!first || service.length === 0 || first.currency === null) return null;
      const inBooks = sumOf(books);
      const onLedger = sumOf(service);
      const cards = [...new Set(service.map((e) => e.giftCardId))].join(', ');
      return {
        entityType: 'booksRow',
        entityId: first.recordId,
        ...(first.reference !== null ? { referenceId: first.reference } : {}),
        currency: first.currency,
        measure: cents(onLedger, inBooks),
        atStakeCents: Math.abs(inBooks - onLedger),
        message: `reference ${first.reference}: the books hold ${books.length === 1 ? `a ${booksType(first)}` : `${books.length} ${booksType(first)}s`} of ${money(inBooks, first.currency)} (${books.map(placeOf).join(', ')}), the ledger ${service.length === 1 ? `a ${first.entryType}` : `${service.length} ${first.entryType}s`} of ${money(onLedger, first.currency)} on card ${cards} — ${money(Math.abs(inBooks - onLedger), first.currency)} apart; find which side took the wrong amount`,
        records: groupRefs(group),
      };
    });
  },
});
