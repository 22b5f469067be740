import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { aloneDraft, amountOf, draftsOf, whenOf } from './books-breaks.js';

export const bkLedgerNotInBooks = rowsCheck({
  kind: 'rows',
  code: 'BK_LEDGER_NOT_IN_BOOKS',
  needsBooks: true,
  severity: 'error',
  lifecycle: 'state',
  title: 'Ledger entry missing from our books',
  description:
    "Every DEBIT and REFUND on our gift cards is money our order system took or gave back, and so a tender or refund in our books. An entry with no books row (by reference and amount, within tolerance, in parts, or by the card's code) is money moved on a card that our books do not know about.",
  read: (store) => store.matchGroups(['tenders'], ['unmatched']),
  decide(groups: readonly MatchGroup[]) {
    return draftsOf(groups, 'tenders', ['unmatched'], (group) => {
      const entry = group.records.find((r) => r.side === 'ledger');
      if (!entry) return null;
      return aloneDraft(
        entry,
        group,
        `${entry.entryType} ${entry.recordId} of ${amountOf(entry)} on card ${entry.giftCardId ?? '?'} under reference ${entry.reference ?? '?'} (${whenOf(entry)}) has no ${entry.entryType === 'REFUND' ? 'refund' : 'payment'} in the books — find the order in the order system, or the export that left it out`,
      );
    });
  },
});
