import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { fx, HOUR, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_STUCK_ORDER', () => {
  it('flags an order confirmed three days ago and never fulfilled', async () => {
    const asOf = fx.context().asOfMs;
    const id = fx.order({ status: 'CONFIRMED', createdAtMs: asOf - 72 * HOUR });
    expect(await readAndDecide(CHECKS.DP_STUCK_ORDER, fx.context())).toMatchObject([{ entityId: id }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000001 was placed at 2026-09-30T12:00:00.000Z and is still CONFIRMED 72 hours later — chase the partner for its vouchers or a refund",
      ]
    `);
  });

  it('passes one placed ten minutes ago, and a FAILED one from last week', async () => {
    const asOf = fx.context().asOfMs;
    fx.order({ status: 'CONFIRMED', createdAtMs: asOf - 10 * 60_000 });
    fx.order({ status: 'FAILED', createdAtMs: asOf - 7 * 24 * HOUR });
    expect(await readAndDecide(CHECKS.DP_STUCK_ORDER, fx.context())).toEqual([]);
  });
});
