import { describe, expect, it } from 'vitest';
import {
  allBooksFindings,
  books,
  couponWithCode,
  messagesSaid,
  run,
  use,
  useFixtureMirror,
} from '../support/check-kit.js';

useFixtureMirror();

describe('CV_USES_MISMATCH', () => {
  it('flags a coupon used once in the books that the service counts twice', async () => {
    const id = couponWithCode('SAVE10', 2);
    couponWithCode('LATER', 1);
    await books('coupon-uses', [use('SAVE10', 1), use('LATER', 40)]);
    expect(await run('CV_USES_MISMATCH')).toMatchObject([
      { entityType: 'coupon', entityId: id, measure: { unit: 'count', expected: 2, actual: 1 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "coupon c0000000-0000-4000-8000-000000000001 was used 1 time in the books but its redemptionCount is 2 — the service counts redemptions no order of ours used",
      ]
    `);
  });

  it('passes a coupon with as many uses in the books as redemptions', async () => {
    couponWithCode('SAVE10', 2);
    couponWithCode('LATER', 1);
    await books('coupon-uses', [use('SAVE10', 1), use('SAVE10', 3), use('LATER', 40)]);
    expect(await allBooksFindings()).toEqual([]);
  });
});
