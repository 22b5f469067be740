import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger, T0 } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_EXPIRY_OVERDUE', () => {
  it('flags a card still ACTIVE five hours after it expired', () => {
    const ledger = cardLedger(4_000, [], { expiresAtMs: T0, readAtMs: T0 + 5 * 3_600_000 });
    expect(inspect(CHECKS.GC_EXPIRY_OVERDUE, ledger)).toMatchObject([{ entityId: 'card-1' }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1 expired at 2026-10-01T12:00:00.000Z but was still ACTIVE 300 minutes later when read at 2026-10-01T17:00:00.000Z — the hourly expiry job passed it by",
      ]
    `);
  });

  it('passes a card expired 30 minutes ago, within the grace period', () => {
    expect(
      inspect(CHECKS.GC_EXPIRY_OVERDUE, cardLedger(4_000, [], { expiresAtMs: T0, readAtMs: T0 + 30 * 60_000 })),
    ).toEqual([]);
  });
});
