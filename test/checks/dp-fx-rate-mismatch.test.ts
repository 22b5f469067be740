import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_FX_RATE_MISMATCH', () => {
  it('flags a USD line converted into the USD wallet at 1.05', async () => {
    const id = fx.order({ lines: [{ fxRate: 1.05 }] });
    expect(await readAndDecide(CHECKS.DP_FX_RATE_MISMATCH, fx.context())).toMatchObject([
      { entityId: id, currency: 'USD' },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000001 line 1 is in USD, the wallet's currency, yet was converted at 1.05 — it was charged at a rate where none applies",
      ]
    `);
  });

  it('passes a EUR line converted at 1.08', async () => {
    fx.order({ lines: [{ currency: 'EUR', fxRate: 1.08 }] });
    expect(await readAndDecide(CHECKS.DP_FX_RATE_MISMATCH, fx.context())).toEqual([]);
  });
});
