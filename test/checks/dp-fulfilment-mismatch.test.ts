import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { sha256Hex as sha256 } from '../../src/hash.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_FULFILMENT_MISMATCH', () => {
  it('flags a completed line with a voucher missing', async () => {
    const id = fx.order({ lines: [{ quantity: 2, fulfilledQty: 2, vouchers: [sha256('one')] }] });
    expect(await readAndDecide(CHECKS.DP_FULFILMENT_MISMATCH, fx.context())).toMatchObject([
      { entityId: id, measure: { unit: 'count', expected: 2, actual: 1 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000001 line 1: 1 voucher(s) delivered for a fulfilled quantity of 2 — the wallet paid for vouchers that were not delivered",
      ]
    `);
  });

  it('flags a COMPLETED order still PROCESSING its fulfilment', async () => {
    const id = fx.order({ fulfillment: 'PROCESSING' });
    expect(await readAndDecide(CHECKS.DP_FULFILMENT_MISMATCH, fx.context())).toMatchObject([{ entityId: id }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000001: COMPLETED but its fulfilment is PROCESSING — the wallet paid for vouchers that were not delivered",
      ]
    `);
  });

  it('passes an order confirmed ten minutes ago, not yet fulfilled', async () => {
    fx.order({ status: 'CONFIRMED' });
    expect(await readAndDecide(CHECKS.DP_FULFILMENT_MISMATCH, fx.context())).toEqual([]);
  });
});
