import type { Coupon } from '../api/wire-types.js';
import { createCouponIndexes, dropCouponIndexes, isEmpty } from '../db/mirror.js';
import { listedCount, type SyncContext } from './context.js';
import { couponRow } from './rows.js';
import { walk } from './walk.js';

/** Coupons change (status, redemption count): the whole list is read every run. */
export async function syncCoupons(context: SyncContext): Promise<void> {
  const { writer, giftcard, syncRunId, sqlite } = context;
  if (isEmpty(sqlite, 'coupons')) dropCouponIndexes(sqlite); // a bulk load: build them once, sorted, at the end
  await walk<Coupon>(context, {
    resource: 'coupons',
    expected: () => listedCount(context.sqlite, 'coupons'),
    quarantineAs: 'coupons',
    list: (startCursor) => giftcard.listCoupons(startCursor ? { startCursor } : {}),
    write: (coupon) => writer.coupon(couponRow(coupon), syncRunId),
    unlisted: { table: 'coupons', idField: 'couponId' },
    finish: () => createCouponIndexes(sqlite),
  });
}
