import type { Coupon } from '../api/wire-types.js';
import type { SyncContext } from './context.js';
import { couponRow } from './rows.js';
import { walk } from './walk.js';

/** Coupons change (status, redemption count): the whole list is read every run. */
export async function syncCoupons(context: SyncContext): Promise<void> {
  const { store, giftcard, syncRunId } = context;
  await store.beginLoad('coupons'); // an empty table is a bulk load: its indexes are built once, sorted, at the end
  await walk<Coupon>(context, {
    resource: 'coupons',
    expected: () => store.lists.listedCount('coupons'),
    quarantineAs: 'coupons',
    list: (startCursor) => giftcard.listCoupons(startCursor ? { startCursor } : {}),
    lookUp: (coupons) =>
      store.lookUp(
        'coupons',
        coupons.map((coupon) => coupon.couponId),
      ),
    write: (coupon) => store.lists.coupon(couponRow(coupon), syncRunId),
    unlisted: { table: 'coupons', idField: 'couponId' },
    finish: () => store.endLoad('coupons', syncRunId),
  });
}
