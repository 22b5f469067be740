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

describe('DP_ORDER_NOT_IN_BOOKS', () => {
  it('flags an order with no purchase in the books', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    fx.order({ id: 'order-2', externalRefId: 'PO-2', createdAtMs: T0 + 2 * HOUR });
    await books('dp-purchases', [purchase('PO-1', '10.00', 1), purchase('PO-LATE', '10.00', 40)]);
    fx.order({ id: 'order-late', externalRefId: 'PO-LATE', createdAtMs: T0 + 40 * HOUR });
    expect(await run('DP_ORDER_NOT_IN_BOOKS')).toMatchObject([
      { entityType: 'dpOrder', entityId: 'order-2', referenceId: 'PO-2', atStakeCents: 1_000 },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order order-2 (purchase reference PO-2, USD 10.00, placed 2026-10-01T14:00:00.000Z) has no purchase in the books — find who placed it, or the export that left it out",
      ]
    `);
  });

  it('passes a FAILED order the books never bought', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    fx.order({ id: 'order-2', externalRefId: 'PO-2', createdAtMs: T0 + 2 * HOUR, status: 'FAILED' });
    await books('dp-purchases', [purchase('PO-1', '10.00', 1)]);
    expect(await allBooksFindings()).toEqual([]);
  });
});
