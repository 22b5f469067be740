import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cents } from '../../src/money.js';
import { cardLedger, entryOf } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_ENTRY_ARITHMETIC', () => {
  it('flags a debit that moved the balance by more than its amount', () => {
    const ledger = cardLedger(8_000, [
      { type: 'DEBIT', amount: 1_000 },
      { type: 'DEBIT', amount: 1_000 },
    ]);
    entryOf(ledger, 'entry-2').afterCents = cents(5_800);
    expect(inspect(CHECKS.GC_ENTRY_ARITHMETIC, ledger)).toMatchObject([
      { entityId: 'entry-2', measure: { expected: 6_000, actual: 5_800 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: entry entry-2 is a DEBIT of USD 10.00 from USD 70.00, so it should end at USD 60.00, but it ends at USD 58.00 — check how much the service really moved",
      ]
    `);
  });

  it('flags an EXPIRE that changed the balance', () => {
    const ledger = cardLedger(1_000, [{ type: 'EXPIRE' }]);
    entryOf(ledger, 'entry-1').afterCents = cents(0);
    expect(inspect(CHECKS.GC_ENTRY_ARITHMETIC, ledger)).toMatchObject([
      { entityId: 'entry-1', measure: { expected: 1_000, actual: 0 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: entry entry-1 is a EXPIRE, which leaves the balance unchanged, from USD 10.00, so it should end at USD 10.00, but it ends at USD 0.00 — check how much the service really moved",
      ]
    `);
  });

  it('passes a VOID that leaves the balance where it was', () => {
    expect(
      inspect(CHECKS.GC_ENTRY_ARITHMETIC, cardLedger(4_000, [{ type: 'DEBIT', amount: 1_000 }, { type: 'VOID' }])),
    ).toEqual([]);
  });
});
