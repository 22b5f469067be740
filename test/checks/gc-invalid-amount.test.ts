import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger, entryOf } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_INVALID_AMOUNT', () => {
  it('flags debits of zero and of a negative amount, and an amount off the cent', () => {
    const ledger = cardLedger(3_000, [
      { type: 'DEBIT', amount: 0 },
      { type: 'DEBIT', amount: -500 },
      { type: 'DEBIT', amount: 100 },
    ]);
    entryOf(ledger, 'entry-3').amountCents = null;
    expect(inspect(CHECKS.GC_INVALID_AMOUNT, ledger).map((f) => f.entityId)).toEqual(['entry-1', 'entry-2', 'entry-3']);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: entry entry-1 has a DEBIT of USD 0.00, which is not above zero — the service should have refused it",
        "card card-1: entry entry-2 has a DEBIT of USD -5.00, which is not above zero — the service should have refused it",
        "card card-1: entry entry-3 has amount not on a whole cent (see its raw_json) — the service should have refused it",
      ]
    `);
  });

  it('flags a card whose remaining balance is off the cent', () => {
    expect(inspect(CHECKS.GC_INVALID_AMOUNT, cardLedger(3_000, [], { remainingCents: null }))).toMatchObject([
      { entityType: 'giftCard', entityId: 'card-1' },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: remainingBalance is not on a whole cent — see the card's raw_json in the mirror",
      ]
    `);
  });

  it('passes a VOID with an amount of zero (its amount is ignored)', () => {
    expect(inspect(CHECKS.GC_INVALID_AMOUNT, cardLedger(3_000, [{ type: 'VOID' }]))).toEqual([]);
  });
});
