import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_ORDER_TOTAL_MISMATCH', () => {
  it('flags an order charging 1.00 more than its lines', async () => {
    const id = fx.order({ totalCents: 1_100 });
    expect(await readAndDecide(CHECKS.DP_ORDER_TOTAL_MISMATCH, fx.context())).toMatchObject([
      { entityType: 'dpOrder', entityId: id, currency: 'USD', measure: { expected: 1_000, actual: 1_100 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000001 charged USD 11.00 but its 1 line(s) add up to USD 10.00 — the wallet was charged USD 1.00 too much",
      ]
    `);
  });

  it('passes a EUR order converted into the USD wallet over three lines', async () => {
    fx.order({
      lines: [
        { currency: 'EUR', fxRate: 1.0837, priceCents: 999 },
        { currency: 'EUR', fxRate: 1.0837, quantity: 3, priceCents: 1 },
        {},
      ],
    });
    expect(await readAndDecide(CHECKS.DP_ORDER_TOTAL_MISMATCH, fx.context())).toEqual([]);
  });
});
