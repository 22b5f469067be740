import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { T0 } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_VOUCHER_EXPIRED_ON_DELIVERY', () => {
  it('flags a voucher that expired the day before delivery', async () => {
    const id = fx.order({ createdAtMs: T0, updatedAtMs: T0 + 60_000, lines: [{ expiresAtMs: T0 - 86_400_000 }] });
    expect(await readAndDecide(CHECKS.DP_VOUCHER_EXPIRED_ON_DELIVERY, fx.context())).toMatchObject([{ entityId: id }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000001 line 1: voucher 1 expired at 2026-09-30T12:00:00.000Z, before the order was delivered at 2026-10-01T12:01:00.000Z — ask the partner for a replacement or a refund",
      ]
    `);
  });

  it('passes vouchers valid for a year', async () => {
    fx.order({});
    expect(await readAndDecide(CHECKS.DP_VOUCHER_EXPIRED_ON_DELIVERY, fx.context())).toEqual([]);
  });
});
