import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger, T0 } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_ACTIVITY_AFTER_EXPIRY', () => {
  const expiresAtMs = T0 + 10 * 60_000;
  it('flags a debit created after the card expired', () => {
    const ledger = cardLedger(
      5_000,
      [
        { type: 'DEBIT', amount: 1_000 },
        { type: 'DEBIT', amount: 500, at: expiresAtMs + 1 },
      ],
      { expiresAtMs },
    );
    expect(inspect(CHECKS.GC_ACTIVITY_AFTER_EXPIRY, ledger)).toMatchObject([{ entityId: 'entry-2' }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: DEBIT entry-2 at 2026-10-01T12:10:00.001Z came after the card expired at 2026-10-01T12:10:00.000Z — an expired card was still accepted",
      ]
    `);
  });

  it('passes an EXPIRE entry after expiry, and a debit at the last millisecond', () => {
    const ledger = cardLedger(
      5_000,
      [
        { type: 'DEBIT', amount: 1_000, at: expiresAtMs },
        { type: 'EXPIRE', at: expiresAtMs + 3_600_000 },
      ],
      { expiresAtMs },
    );
    expect(inspect(CHECKS.GC_ACTIVITY_AFTER_EXPIRY, ledger)).toEqual([]);
  });
});
