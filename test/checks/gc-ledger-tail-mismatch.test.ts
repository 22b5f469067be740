import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cents } from '../../src/money.js';
import { cardLedger } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_LEDGER_TAIL_MISMATCH', () => {
  it('flags a card whose newest entry ends elsewhere than the card', () => {
    const ledger = cardLedger(10_000, [{ type: 'DEBIT', amount: 3_000 }], { remainingCents: cents(6_000) });
    expect(inspect(CHECKS.GC_LEDGER_TAIL_MISMATCH, ledger)).toMatchObject([
      {
        entityId: 'card-1',
        measure: { expected: 7_000, actual: 6_000 },
        records: [{ id: 'card-1' }, { id: 'entry-1' }],
      },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: its newest entry entry-1 leaves USD 70.00 but the card reports USD 60.00 — look for a change to the card after that entry",
      ]
    `);
  });

  it('passes an unused card, which has no tail', () => {
    expect(inspect(CHECKS.GC_LEDGER_TAIL_MISMATCH, cardLedger(2_500, []))).toEqual([]);
  });
});
