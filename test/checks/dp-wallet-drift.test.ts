import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { T0 } from '../support/fixtures.js';
import { fx, HOUR, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('DP_WALLET_DRIFT', () => {
  it('flags a wallet that lost 5.00 more than the orders placed between two syncs', async () => {
    fx.wallet('w1', 100_000, T0);
    fx.sync();
    fx.order({ createdAtMs: T0 + HOUR, lines: [{ priceCents: 2_000 }] });
    fx.wallet('w1', 100_000 - 2_000 - 500, T0 + 2 * HOUR);
    expect(await readAndDecide(CHECKS.DP_WALLET_DRIFT, fx.context())).toMatchObject([
      { entityType: 'dpWallet', entityId: 'w1', measure: { expected: 98_000, actual: 97_500 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "wallet w1 went from USD 1000.00 (sync 1, 2026-10-01T12:00:00.000Z) to USD 975.00 (sync 2, 2026-10-01T14:00:00.000Z); orders placed in between explain −USD 20.00 and failed orders +USD 0.00, leaving USD 5.00 charged without an order — ask the partner for the wallet statement",
      ]
    `);
  });

  it('passes a wallet moved exactly by an order placed and one that failed in between', async () => {
    const failed = { status: 'FAILED', createdAtMs: T0 - HOUR, updatedAtMs: T0 + HOUR, lines: [{ priceCents: 700 }] };
    fx.wallet('w1', 100_000, T0);
    fx.sync();
    fx.order({ createdAtMs: T0 + HOUR, lines: [{ priceCents: 2_000 }] });
    fx.order(failed);
    fx.order({ createdAtMs: T0 + 3 * HOUR, lines: [{ priceCents: 9_999 }] }); // after the read: the next sync's
    fx.wallet('w1', 100_000 - 2_000 + 700, T0 + 2 * HOUR);
    expect(await readAndDecide(CHECKS.DP_WALLET_DRIFT, fx.context())).toEqual([]);
  });

  it('passes a wallet read while orders were placed: those inside a read may fall on either side of it', async () => {
    // The first read ran from T0 − 100 ms to T0, the second from T0 + 1 h to T0 + 1 h + 100 ms.
    fx.order({ createdAtMs: T0 - 50, lines: [{ priceCents: 300 }] }); // inside the first read, after its moment: counts between
    fx.wallet('w1', 100_000, T0, 'USD', T0 - 100);
    fx.sync();
    fx.order({ createdAtMs: T0 + HOUR / 2, lines: [{ priceCents: 2_000 }] });
    fx.order({ createdAtMs: T0 + HOUR + 20, lines: [{ priceCents: 400 }] }); // inside the second read, before its moment
    fx.order({ createdAtMs: T0 + HOUR + 60, lines: [{ priceCents: 800 }] }); // inside the second read, after its moment
    fx.wallet('w1', 100_000 - 300 - 2_000 - 400, T0 + HOUR + 100, 'USD', T0 + HOUR);
    expect(await readAndDecide(CHECKS.DP_WALLET_DRIFT, fx.context())).toEqual([]);
  });

  it('flags a movement no split of the orders inside the reads explains', async () => {
    fx.wallet('w1', 100_000, T0, 'USD', T0 - 100);
    fx.sync();
    fx.order({ createdAtMs: T0 + HOUR + 20, lines: [{ priceCents: 400 }] });
    fx.order({ createdAtMs: T0 + HOUR + 60, lines: [{ priceCents: 800 }] });
    // 8.00 left without 4.00 first: orders leave in the order they were placed.
    fx.wallet('w1', 100_000 - 800, T0 + HOUR + 100, 'USD', T0 + HOUR);
    expect(await readAndDecide(CHECKS.DP_WALLET_DRIFT, fx.context())).toMatchObject([
      { entityId: 'w1', measure: { expected: 98_800, actual: 99_200 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "wallet w1 went from USD 1000.00 (sync 1, 2026-10-01T12:00:00.000Z) to USD 992.00 (sync 2, 2026-10-01T13:00:00.100Z); orders placed in between explain −USD 12.00 and failed orders +USD 0.00, leaving USD 4.00 credited without an order — ask the partner for the wallet statement",
      ]
    `);
  });
});
