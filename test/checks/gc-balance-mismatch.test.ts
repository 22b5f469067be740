import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cents } from '../../src/money.js';
import { cardLedger, entryOf } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_BALANCE_MISMATCH', () => {
  it('flags a card whose remaining balance does not follow from its ledger, with expected, actual and difference', () => {
    const ledger = cardLedger(
      10_000,
      [
        { type: 'DEBIT', amount: 3_000 },
        { type: 'DEBIT', amount: 2_000 },
      ],
      { remainingCents: cents(5_500) },
    );
    const [finding, ...rest] = inspect(CHECKS.GC_BALANCE_MISMATCH, ledger);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      entityType: 'giftCard',
      entityId: 'card-1',
      currency: 'USD',
      measure: { unit: 'cents', expected: 5_000, actual: 5_500 },
    });
    expect(finding?.message).toContain('the ledger gives USD 50.00');
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: the ledger gives USD 50.00 (initial USD 100.00 − debits USD 50.00 + refunds USD 0.00) but the card reports USD 55.00; USD 5.00 appeared without a ledger entry — compare the card's history with its entries",
      ]
    `);
  });

  it('passes ten 0.10 debits emptying a 1.00 card (no float drift)', () => {
    const ledger = cardLedger(
      100,
      Array.from({ length: 10 }, () => ({ type: 'DEBIT' as const, amount: 10 })),
    );
    expect(ledger.card.remainingCents).toBe(0);
    expect(inspect(CHECKS.GC_BALANCE_MISMATCH, ledger)).toEqual([]);
  });

  it('passes a VOID whose ignored amount is not zero', () => {
    const ledger = cardLedger(4_000, [{ type: 'DEBIT', amount: 1_000 }, { type: 'VOID' }]);
    entryOf(ledger, 'entry-2').amountCents = cents(2_500);
    expect(inspect(CHECKS.GC_BALANCE_MISMATCH, ledger)).toEqual([]);
  });
});
