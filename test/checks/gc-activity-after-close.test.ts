import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_ACTIVITY_AFTER_CLOSE', () => {
  it('flags a debit after the VOID', () => {
    const ledger = cardLedger(5_000, [
      { type: 'DEBIT', amount: 1_000 },
      { type: 'VOID' },
      { type: 'DEBIT', amount: 500 },
    ]);
    expect(inspect(CHECKS.GC_ACTIVITY_AFTER_CLOSE, ledger)).toMatchObject([
      { entityId: 'entry-3', records: [{ id: 'card-1' }, { id: 'entry-2' }, { id: 'entry-3' }] },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: DEBIT entry-3 at 2026-10-01T12:03:00.000Z follows the card's VOID entry entry-2 at 2026-10-01T12:02:00.000Z — a closed card was still accepted",
      ]
    `);
  });

  it('passes a card whose VOID is its last entry', () => {
    expect(
      inspect(CHECKS.GC_ACTIVITY_AFTER_CLOSE, cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000 }, { type: 'VOID' }])),
    ).toEqual([]);
  });
});
