import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { aloneDraft, amountOf, booksType, draftsOf, placeOf, sides } from './books-breaks.js';

export const bkDuplicate = rowsCheck({
  kind: 'rows',
  code: 'BK_DUPLICATE',
  needsBooks: true,
  severity: 'error',
  lifecycle: 'state',
  title: 'Books row recorded twice',
  description:
    'One ledger entry or DP order answers one row of our books. A further books row with the same reference, type and amount (in the same file or another) finds nothing of its own: the books count that payment, refund or purchase twice.',
  read: (store) => store.matchGroups(['dp-purchases', 'tenders'], ['duplicate']),
  decide(groups: readonly MatchGroup[]) {
    const drafted = (kind: string, what: (service: string) => string) =>
      draftsOf(groups, kind, ['duplicate'], (group) => {
        const { books, service } = sides(group);
        const row = books[0];
        const partner = service[0];
        if (!row || !partner) return null;
        return aloneDraft(
          row,
          group,
          `${placeOf(row)} repeats the ${booksType(row)} of ${amountOf(row)} under reference ${row.reference ?? '?'} that another books row already matched with ${what(partner.recordId)} — the books record it twice; remove the copy from the books`,
        );
      });
    return [...drafted('tenders', (id) => `entry ${id}`), ...drafted('dp-purchases', (id) => `order ${id}`)];
  },
});
