import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { OTHER_MERCHANT } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('CV_FOREIGN_MERCHANT', () => {
  it('flags a coupon owned by another merchant', async () => {
    const id = fx.coupon({ merchantId: OTHER_MERCHANT });
    expect(await readAndDecide(CHECKS.CV_FOREIGN_MERCHANT, fx.context())).toMatchObject([{ entityId: id }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "coupon c0000000-0000-4000-8000-000000000001 belongs to merchant 00000000-0000-4000-8000-00000000000b, not to our merchant 00000000-0000-4000-8000-00000000000a — the service's merchant scoping let it through",
      ]
    `);
  });

  it('passes our coupons', async () => {
    fx.coupon({});
    expect(await readAndDecide(CHECKS.CV_FOREIGN_MERCHANT, fx.context())).toEqual([]);
  });
});
