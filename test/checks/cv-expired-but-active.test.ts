import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { fx, HOUR, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('CV_EXPIRED_BUT_ACTIVE', () => {
  it('flags a coupon ACTIVE six hours after it expired', async () => {
    const asOf = fx.context().asOfMs;
    const id = fx.coupon({ expiresAtMs: asOf - 6 * HOUR });
    expect(await readAndDecide(CHECKS.CV_EXPIRED_BUT_ACTIVE, fx.context())).toMatchObject([{ entityId: id }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "coupon c0000000-0000-4000-8000-000000000001 expired at 2026-10-03T06:00:00.000Z but was still ACTIVE 360 minutes later at 2026-10-03T12:00:00.000Z — it may still be accepted",
      ]
    `);
  });

  it('passes one expired an hour ago (within grace) and an EXPIRED one', async () => {
    const asOf = fx.context().asOfMs;
    fx.coupon({ expiresAtMs: asOf - HOUR });
    fx.coupon({ status: 'EXPIRED', expiresAtMs: asOf - 30 * HOUR });
    expect(await readAndDecide(CHECKS.CV_EXPIRED_BUT_ACTIVE, fx.context())).toEqual([]);
  });
});
