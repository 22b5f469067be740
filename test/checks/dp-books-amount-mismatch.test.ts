import { describe, expect, it } from 'vitest';
import { T0 } from '../support/fixtures.js';
import {
  allBooksFindings,
  books,
  fx,
  HOUR,
  messagesSaid,
  purchase,
  run,
  useFixtureMirror,
} from '../support/check-kit.js';

useFixtureMirror();

describe('DP_BOOKS_AMOUNT_MISMATCH', () => {
  it('flags an order whose total differs from the purchase in the books', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    await books('dp-purchases', [purchase('PO-1', '9.00', 1)]);
    expect(await run('DP_BOOKS_AMOUNT_MISMATCH')).toMatchObject([
      { entityType: 'dpOrder', entityId: 'order-1', measure: { expected: 1_000, actual: 900 }, atStakeCents: 100 },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order order-1 (purchase reference PO-1) totals USD 10.00, its purchase in the books (dp-purchases-1.csv line 2) USD 9.00 — USD 1.00 apart; correct the books or query the order with the partner",
      ]
    `);
  });

  it('passes an order and its purchase for the same total, written "1,000.00"-style', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR, lines: [{ priceCents: 100_000 }] });
    await books('dp-purchases', [{ ...purchase('PO-1', '"1,000.00"', 1) }]);
    expect(await allBooksFindings()).toEqual([]);
  });
});
