import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('CV_OVER_REDEEMED', () => {
  it('flags a coupon redeemed four times against a limit of three', async () => {
    const id = fx.coupon({ status: 'USED', redemptionCount: 4, usageLimitTotal: 3 });
    expect(await readAndDecide(CHECKS.CV_OVER_REDEEMED, fx.context())).toMatchObject([
      { entityType: 'coupon', entityId: id, measure: { unit: 'count', expected: 3, actual: 4 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "coupon c0000000-0000-4000-8000-000000000001 was redeemed 4 times against a limit of 3 — 1 redemption(s) too many; find the orders that used it",
      ]
    `);
  });

  it('passes an unlimited coupon redeemed 250 times', async () => {
    fx.coupon({ redemptionCount: 250, usageLimitTotal: 0 });
    expect(await readAndDecide(CHECKS.CV_OVER_REDEEMED, fx.context())).toEqual([]);
  });
});
