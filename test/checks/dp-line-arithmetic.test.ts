import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_LINE_ARITHMETIC', () => {
  it('flags a line whose total is not price × quantity', async () => {
    const id = fx.order({ lines: [{ quantity: 2, priceCents: 1_000, totalPriceCents: 2_500 }] });
    expect(await readAndDecide(CHECKS.DP_LINE_ARITHMETIC, fx.context())).toMatchObject([
      { entityId: id, measure: { expected: 2_000, actual: 2_500 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000001 line 1: 2 × USD 10.00 is USD 20.00 but the line's total price is USD 25.00 — the line was charged a different unit price",
      ]
    `);
  });

  it('flags a converted total two cents off totalPrice × fxRate', async () => {
    const id = fx.order({ lines: [{ currency: 'EUR', fxRate: 1.1, priceCents: 1_000, totalConvertedCents: 1_102 }] });
    expect(await readAndDecide(CHECKS.DP_LINE_ARITHMETIC, fx.context())).toMatchObject([
      { entityId: id, measure: { expected: 1_100, actual: 1_102 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000001 line 1: EUR 10.00 × 1.1 is USD 11.00 but the line's converted total is USD 11.02 — the wallet was charged at a different rate",
      ]
    `);
  });

  it('passes a conversion one cent off (rounding tolerance)', async () => {
    fx.order({ lines: [{ currency: 'EUR', fxRate: 1.1, priceCents: 1_000, totalConvertedCents: 1_101 }] });
    expect(await readAndDecide(CHECKS.DP_LINE_ARITHMETIC, fx.context())).toEqual([]);
  });
});
