import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { sha256Hex as sha256 } from '../../src/hash.js';
import { T0 } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_DUPLICATE_VOUCHER', () => {
  it('flags a voucher code delivered on two orders', async () => {
    const code = sha256('CODE-1');
    const first = fx.order({ createdAtMs: T0, lines: [{ vouchers: [code] }] });
    const second = fx.order({ createdAtMs: T0 + 60_000, lines: [{ vouchers: [code] }] });
    expect(await readAndDecide(CHECKS.DP_DUPLICATE_VOUCHER, fx.context())).toMatchObject([
      { entityId: second, records: [{ id: first }, { id: second }] },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "order d0000000-0000-4000-8000-000000000002 line 1 delivered the same voucher code as order d0000000-0000-4000-8000-000000000001 line 1 (code hash 241470170acf…) — one of the customers holds a voucher the other can spend",
      ]
    `);
  });

  it('passes three vouchers with distinct codes on one line', async () => {
    fx.order({ lines: [{ quantity: 3 }] });
    expect(await readAndDecide(CHECKS.DP_DUPLICATE_VOUCHER, fx.context())).toEqual([]);
  });
});
