import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_REFUND_OVER_DEBIT', () => {
  it('flags a reference refunded beyond its debits', () => {
    const ledger = cardLedger(5_000, [
      { type: 'DEBIT', amount: 1_000, ref: 'ORD-9' },
      { type: 'REFUND', amount: 1_000, ref: 'ORD-9' },
      { type: 'REFUND', amount: 500, ref: 'ORD-9' },
    ]);
    expect(inspect(CHECKS.GC_REFUND_OVER_DEBIT, ledger)).toMatchObject([
      { entityId: 'card-1', referenceId: 'ORD-9', measure: { expected: 1_000, actual: 1_500 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: reference ORD-9 was refunded USD 15.00 against USD 10.00 debited, USD 5.00 too much — review the 2 refund(s) under it",
      ]
    `);
  });

  it('passes two debits under one reference refunded in full', () => {
    const ledger = cardLedger(5_000, [
      { type: 'DEBIT', amount: 500, ref: 'R' },
      { type: 'DEBIT', amount: 700, ref: 'R' },
      { type: 'REFUND', amount: 1_200, ref: 'R' },
    ]);
    expect(inspect(CHECKS.GC_REFUND_OVER_DEBIT, ledger)).toEqual([]);
  });
});
