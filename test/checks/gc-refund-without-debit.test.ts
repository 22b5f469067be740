import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_REFUND_WITHOUT_DEBIT', () => {
  it('flags a refund whose reference has no debit on the card', () => {
    const ledger = cardLedger(4_000, [
      { type: 'DEBIT', amount: 1_000, ref: 'A' },
      { type: 'REFUND', amount: 500, ref: 'ORD-NEVER' },
    ]);
    expect(inspect(CHECKS.GC_REFUND_WITHOUT_DEBIT, ledger)).toMatchObject([
      { entityId: 'entry-2', referenceId: 'ORD-NEVER', measure: { expected: 0, actual: 500 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: refund entry-2 of USD 5.00 names reference ORD-NEVER, which has no debit on this card — find the order it belongs to",
      ]
    `);
  });

  it('passes a refund under a reference debited on this card (another card sharing the reference is irrelevant)', () => {
    expect(
      inspect(
        CHECKS.GC_REFUND_WITHOUT_DEBIT,
        cardLedger(3_000, [
          { type: 'DEBIT', amount: 800, ref: 'SHARED' },
          { type: 'REFUND', amount: 800, ref: 'SHARED' },
        ]),
      ),
    ).toEqual([]);
  });
});
