import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_NEGATIVE_BALANCE', () => {
  it('flags a debit beyond the balance on the entry that took it below zero', () => {
    const ledger = cardLedger(2_500, [
      { type: 'DEBIT', amount: 2_000 },
      { type: 'DEBIT', amount: 800 },
    ]);
    expect(inspect(CHECKS.GC_NEGATIVE_BALANCE, ledger)).toMatchObject([
      { entityId: 'card-1', measure: { expected: 0, actual: -300 }, records: [{ id: 'card-1' }, { id: 'entry-2' }] },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: the balance went below zero — entry entry-2 takes it to USD -3.00; find the debit that was allowed beyond the balance",
      ]
    `);
  });

  it('passes a card emptied to exactly zero', () => {
    expect(inspect(CHECKS.GC_NEGATIVE_BALANCE, cardLedger(2_500, [{ type: 'DEBIT', amount: 2_500 }]))).toEqual([]);
  });
});
