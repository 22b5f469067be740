import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('CV_COUNTER_REGRESSED', () => {
  it('flags a redemption count that went down between syncs, and a USED coupon back to ACTIVE', async () => {
    const a = fx.coupon({ id: 'a', redemptionCount: 3, usageLimitTotal: 5 });
    const b = fx.coupon({ id: 'b', status: 'USED', redemptionCount: 1 });
    fx.sync();
    fx.coupon({ id: a, redemptionCount: 2, usageLimitTotal: 5 });
    fx.coupon({ id: b, status: 'ACTIVE', redemptionCount: 1 });
    expect(await readAndDecide(CHECKS.CV_COUNTER_REGRESSED, fx.context())).toMatchObject([
      { entityId: 'a', measure: { expected: 3, actual: 2 } },
      { entityId: 'b' },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "coupon a: its redemption count went from 3 (sync 1) down to 2 (sync 2) — redemptions were erased",
        "coupon b: its status went from USED (sync 1) back to ACTIVE (sync 2) — a finished coupon was revived",
      ]
    `);
  });

  it('passes a count that only grows and an ACTIVE coupon becoming USED', async () => {
    const a = fx.coupon({ id: 'a', redemptionCount: 0, usageLimitTotal: 1 });
    fx.sync();
    fx.coupon({ id: a, status: 'USED', redemptionCount: 1, usageLimitTotal: 1 });
    expect(await readAndDecide(CHECKS.CV_COUNTER_REGRESSED, fx.context())).toEqual([]);
  });
});
