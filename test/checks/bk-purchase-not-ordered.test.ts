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

describe('BK_PURCHASE_NOT_ORDERED', () => {
  it('flags a purchase with no order under its reference', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    await books('dp-purchases', [
      purchase('PO-1', '10.00', 1),
      purchase('PO-GHOST', '25.00', 2),
      purchase('PO-LATE', '10.00', 40),
    ]);
    fx.order({ id: 'order-late', externalRefId: 'PO-LATE', createdAtMs: T0 + 40 * HOUR });
    expect(await run('BK_PURCHASE_NOT_ORDERED')).toMatchObject([
      { entityType: 'booksRow', referenceId: 'PO-GHOST', atStakeCents: 2_500 },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "dp-purchases-1.csv line 3: purchase PO-GHOST of USD 25.00 (2026-10-01T14:00:00.000Z) has no DP order under that external reference — the books count vouchers that were never ordered",
      ]
    `);
  });

  it('passes purchases of two orders under one reference (each bought once)', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    fx.order({ id: 'order-2', externalRefId: 'PO-1', createdAtMs: T0 + 2 * HOUR });
    await books('dp-purchases', [purchase('PO-1', '10.00', 1), purchase('PO-1', '10.00', 2)]);
    expect(await allBooksFindings()).toEqual([]);
  });
});
