import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('CV_STATUS_MISMATCH', () => {
  it('flags a coupon still ACTIVE at its usage limit, and one USED without a redemption', async () => {
    const active = fx.coupon({ id: 'a', redemptionCount: 2, usageLimitTotal: 2 });
    const used = fx.coupon({ id: 'b', status: 'USED', redemptionCount: 0 });
    expect((await readAndDecide(CHECKS.CV_STATUS_MISMATCH, fx.context())).map((f) => f.entityId)).toEqual([
      active,
      used,
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "coupon a is still ACTIVE after 2 of 2 allowed redemptions — it can be redeemed beyond its limit",
        "coupon b is USED but was never redeemed — ask who marked it used",
      ]
    `);
  });

  it('passes an ACTIVE coupon below its limit and an unlimited one', async () => {
    fx.coupon({ redemptionCount: 1, usageLimitTotal: 2 });
    fx.coupon({ redemptionCount: 9, usageLimitTotal: 0 });
    expect(await readAndDecide(CHECKS.CV_STATUS_MISMATCH, fx.context())).toEqual([]);
  });
});
