import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cents } from '../../src/money.js';
import { cardLedger } from '../support/fixtures.js';
import { CARD_CHECKS, inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_CHAIN_GAP', () => {
  it('flags the entry after a missing one, naming the entries on either side', () => {
    const ledger = cardLedger(10_000, [
      { type: 'DEBIT', amount: 1_000 },
      { type: 'DEBIT', amount: 2_000 },
      { type: 'DEBIT', amount: 1_500 },
    ]);
    ledger.entries.splice(1, 1);
    const [finding] = inspect(CHECKS.GC_CHAIN_GAP, ledger);
    expect(finding).toMatchObject({
      entityType: 'giftCardTransaction',
      entityId: 'entry-3',
      measure: { expected: 9_000, actual: 7_000 },
    });
    expect(finding?.records).toEqual([
      { type: 'giftCard', id: 'card-1' },
      { type: 'giftCardTransaction', id: 'entry-1' },
      { type: 'giftCardTransaction', id: 'entry-3' },
    ]);
    expect(finding?.message).toContain(
      'a USD 20.00 entry is missing or was rewritten between entry entry-1 and entry entry-3',
    );
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: entry entry-3 starts at USD 70.00 but the previous entry entry-1 ended at USD 90.00 — a USD 20.00 entry is missing or was rewritten between entry entry-1 and entry entry-3",
      ]
    `);
  });

  it('flags a first entry that does not start at the initial balance', () => {
    const ledger = cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000 }], { initialCents: cents(6_000) });
    expect(inspect(CHECKS.GC_CHAIN_GAP, ledger)).toMatchObject([
      { entityId: 'entry-1', measure: { expected: 6_000, actual: 5_000 } },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1: entry entry-1 starts at USD 50.00 but the card was issued with USD 60.00 — a USD 10.00 entry is missing or was rewritten before entry entry-1",
      ]
    `);
  });

  it('passes refunds of 0.10 and 0.20 against a 0.30 debit', () => {
    const ledger = cardLedger(500, [
      { type: 'DEBIT', amount: 30, ref: 'A' },
      { type: 'REFUND', amount: 10, ref: 'A' },
      { type: 'REFUND', amount: 20, ref: 'A' },
    ]);
    expect(CARD_CHECKS.flatMap((c) => inspect(c, ledger))).toEqual([]);
  });
});
