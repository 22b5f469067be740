import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger, T0 } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_SUSPECTED_DOUBLE_DEBIT', () => {
  it('flags the same debit twice within a minute under different keys', () => {
    const ledger = cardLedger(10_000, [
      { type: 'DEBIT', amount: 1_250, ref: 'R', at: T0 },
      { type: 'DEBIT', amount: 1_250, ref: 'R', at: T0 + 20_000 },
    ]);
    expect(inspect(CHECKS.GC_SUSPECTED_DOUBLE_DEBIT, ledger)).toMatchObject([
      { entityId: 'card-1', referenceId: 'R', records: [{ id: 'card-1' }, { id: 'entry-1' }, { id: 'entry-2' }] },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: debits entry-1 and entry-2 both take USD 12.50 under reference R, 20 s apart with different idempotency keys — ask whether the customer was charged twice",
      ]
    `);
  });

  it('passes two equal debits under one reference 61 s apart, and two different amounts', () => {
    const apart = cardLedger(10_000, [
      { type: 'DEBIT', amount: 1_250, ref: 'R', at: T0 },
      { type: 'DEBIT', amount: 1_250, ref: 'R', at: T0 + 61_000 },
    ]);
    const different = cardLedger(10_000, [
      { type: 'DEBIT', amount: 500, ref: 'R', at: T0 },
      { type: 'DEBIT', amount: 700, ref: 'R', at: T0 + 1_000 },
    ]);
    expect([
      ...inspect(CHECKS.GC_SUSPECTED_DOUBLE_DEBIT, apart),
      ...inspect(CHECKS.GC_SUSPECTED_DOUBLE_DEBIT, different),
    ]).toEqual([]);
  });
});
