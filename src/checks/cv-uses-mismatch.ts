import type { MatchGroup } from '../books/store.js';
import { rowsCheck } from './check.js';
import { count } from './refs.js';
import { draftsOf, groupRefs } from './books-breaks.js';

export const cvUsesMismatch = rowsCheck({
  kind: 'rows',
  code: 'CV_USES_MISMATCH',
  needsBooks: true,
  severity: 'error',
  lifecycle: 'state',
  title: 'Coupon uses differ from our books',
  description:
    'Every redemption the coupon service counts is a discount our order system gave, so a coupon created since our books begin has as many uses in the books (matched by the SHA-256 of its code) as its redemptionCount. More in the books is a discount the service never counted; fewer, a redemption no order of ours used.',
  read: (store) => store.matchGroups(['coupon-uses'], ['uses-mismatch']),
  decide(groups: readonly MatchGroup[]) {
    return draftsOf(groups, 'coupon-uses', ['uses-mismatch'], (group) => {
      const coupon = group.records.find((r) => r.side === 'coupon');
      if (!coupon) return null;
      const inBooks = coupon.booksCount ?? 0;
      const counted = coupon.serviceCount ?? 0;
      return {
        entityType: 'coupon',
        entityId: coupon.recordId,
        measure: count(counted, inBooks),
        message: `coupon ${coupon.recordId} was used ${inBooks} time${inBooks === 1 ? '' : 's'} in the books but its redemptionCount is ${counted} — ${inBooks > counted ? 'the books gave discounts the service did not count' : 'the service counts redemptions no order of ours used'}`,
        records: groupRefs(group),
      };
    });
  },
});
