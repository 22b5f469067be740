import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { T0 } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_DUPLICATE_EXTERNAL_REF', () => {
  it('flags the second order placed under one purchase reference, naming both', async () => {
    const first = fx.order({ externalRefId: 'PO-1', createdAtMs: T0 });
    const second = fx.order({ externalRefId: 'PO-1', createdAtMs: T0 + 60_000 });
    expect(await readAndDecide(CHECKS.DP_DUPLICATE_EXTERNAL_REF, fx.context())).toMatchObject([
      { entityId: second, referenceId: 'PO-1', records: [{ id: first }, { id: second }] },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000003 repeats purchase reference PO-1 of order d0000000-0000-4000-8000-000000000001 (2 orders in all) — the purchase was ordered and paid for more than once",
      ]
    `);
  });

  it('passes orders under distinct references', async () => {
    fx.order({ externalRefId: 'PO-1' });
    fx.order({ externalRefId: 'PO-2' });
    expect(await readAndDecide(CHECKS.DP_DUPLICATE_EXTERNAL_REF, fx.context())).toEqual([]);
  });
});
