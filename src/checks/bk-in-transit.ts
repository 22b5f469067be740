import { rowsCheck } from './check.js';
import { aloneDraft, amountOf, booksType, draftsOf, placeOf, whenOf } from './books-breaks.js';
import type { MatchRecord, MatchGroup } from '../books/store.js';

const KINDS = ['tenders', 'coupon-uses', 'dp-purchases'] as const;

export const bkInTransit = rowsCheck({
  kind: 'rows',
  code: 'BK_IN_TRANSIT',
  needsBooks: true,
  severity: 'info',
  lifecycle: 'state',
  title: 'Books or service record still in transit',
  description:
    "The books and the services are read at different moments. A record with no partner yet that lies within the cut-off window (default one hour) of the end of the data, or a coupon that moved within it, is most likely waiting for the other side's next export or sync: reported, not a break. It is matched again next run.",
  read: (store) => store.matchGroups(KINDS, ['in-transit']),
  decide(groups: readonly MatchGroup[]) {
    return KINDS.flatMap((kind) =>
      draftsOf(groups, kind, ['in-transit'], (group) => {
        const record = group.records.find((r) => r.side !== 'books') ?? group.records[0];
        if (!record) return null;
        return aloneDraft(
          record,
          group,
          `${describe(record)} has no partner yet, within the cut-off of the end of the data — matched again next run`,
        );
      }),
    );
  },
});

function describe(r: MatchRecord): string {
  if (r.side === 'books')
    return `${placeOf(r)} (${r.entryType === 'use' ? 'a coupon use' : `${booksType(r)} ${r.reference ?? ''} of ${amountOf(r)}`}, ${whenOf(r)})`;
  if (r.side === 'ledger')
    return `${r.entryType} ${r.recordId} of ${amountOf(r)} under reference ${r.reference} (${whenOf(r)})`;
  if (r.side === 'coupon')
    return `coupon ${r.recordId} (${r.booksCount ?? 0} uses in the books, redemptionCount ${r.serviceCount ?? 0})`;
  return `order ${r.recordId} (purchase reference ${r.reference}, ${amountOf(r)}, ${whenOf(r)})`;
}
