import { describe, expect, it } from 'vitest';
import { DEFAULT_CHECK_OPTIONS, type CardCheck, type CardLedger } from '../../src/checks/check.js';
import { CATALOGUE, CHECKS, type CheckCode } from '../../src/checks/index.js';
import { cardLedger, entryOf, MERCHANT, OTHER_MERCHANT, T0 } from '../support/fixtures.js';
import { cents } from '../../src/money.js';

const inspect = (check: CardCheck, ledger: CardLedger) =>
  check.inspect(ledger, { options: DEFAULT_CHECK_OPTIONS, merchantId: MERCHANT });

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
  });

  it('passes an unused card, which has no tail', () => {
    expect(inspect(CHECKS.GC_LEDGER_TAIL_MISMATCH, cardLedger(2_500, []))).toEqual([]);
  });
});

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
  });

  it('flags a first entry that does not start at the initial balance', () => {
    const ledger = cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000 }], { initialCents: cents(6_000) });
    expect(inspect(CHECKS.GC_CHAIN_GAP, ledger)).toMatchObject([
      { entityId: 'entry-1', measure: { expected: 6_000, actual: 5_000 } },
    ]);
  });

  it('passes refunds of 0.10 and 0.20 against a 0.30 debit', () => {
    const ledger = cardLedger(500, [
      { type: 'DEBIT', amount: 30, ref: 'A' },
      { type: 'REFUND', amount: 10, ref: 'A' },
      { type: 'REFUND', amount: 20, ref: 'A' },
    ]);
    expect(CHECKS_CARD.flatMap((c) => inspect(c, ledger))).toEqual([]);
  });
});

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
  });

  it('flags an EXPIRE that changed the balance', () => {
    const ledger = cardLedger(1_000, [{ type: 'EXPIRE' }]);
    entryOf(ledger, 'entry-1').afterCents = cents(0);
    expect(inspect(CHECKS.GC_ENTRY_ARITHMETIC, ledger)).toMatchObject([
      { entityId: 'entry-1', measure: { expected: 1_000, actual: 0 } },
    ]);
  });

  it('passes a VOID that leaves the balance where it was', () => {
    expect(
      inspect(CHECKS.GC_ENTRY_ARITHMETIC, cardLedger(4_000, [{ type: 'DEBIT', amount: 1_000 }, { type: 'VOID' }])),
    ).toEqual([]);
  });
});

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

describe('GC_REFUND_WITHOUT_DEBIT', () => {
  it('flags a refund whose reference has no debit on the card', () => {
    const ledger = cardLedger(4_000, [
      { type: 'DEBIT', amount: 1_000, ref: 'A' },
      { type: 'REFUND', amount: 500, ref: 'ORD-NEVER' },
    ]);
    expect(inspect(CHECKS.GC_REFUND_WITHOUT_DEBIT, ledger)).toMatchObject([
      { entityId: 'entry-2', referenceId: 'ORD-NEVER', measure: { expected: 0, actual: 500 } },
    ]);
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

describe('GC_NEGATIVE_BALANCE', () => {
  it('flags a debit beyond the balance on the entry that took it below zero', () => {
    const ledger = cardLedger(2_500, [
      { type: 'DEBIT', amount: 2_000 },
      { type: 'DEBIT', amount: 800 },
    ]);
    expect(inspect(CHECKS.GC_NEGATIVE_BALANCE, ledger)).toMatchObject([
      { entityId: 'card-1', measure: { expected: 0, actual: -300 }, records: [{ id: 'card-1' }, { id: 'entry-2' }] },
    ]);
  });

  it('passes a card emptied to exactly zero', () => {
    expect(inspect(CHECKS.GC_NEGATIVE_BALANCE, cardLedger(2_500, [{ type: 'DEBIT', amount: 2_500 }]))).toEqual([]);
  });
});

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
  });

  it('passes a card whose VOID is its last entry', () => {
    expect(
      inspect(CHECKS.GC_ACTIVITY_AFTER_CLOSE, cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000 }, { type: 'VOID' }])),
    ).toEqual([]);
  });
});

describe('GC_ACTIVITY_AFTER_EXPIRY', () => {
  const expiresAtMs = T0 + 10 * 60_000;
  it('flags a debit created after the card expired', () => {
    const ledger = cardLedger(
      5_000,
      [
        { type: 'DEBIT', amount: 1_000 },
        { type: 'DEBIT', amount: 500, at: expiresAtMs + 1 },
      ],
      { expiresAtMs },
    );
    expect(inspect(CHECKS.GC_ACTIVITY_AFTER_EXPIRY, ledger)).toMatchObject([{ entityId: 'entry-2' }]);
  });

  it('passes an EXPIRE entry after expiry, and a debit at the last millisecond', () => {
    const ledger = cardLedger(
      5_000,
      [
        { type: 'DEBIT', amount: 1_000, at: expiresAtMs },
        { type: 'EXPIRE', at: expiresAtMs + 3_600_000 },
      ],
      { expiresAtMs },
    );
    expect(inspect(CHECKS.GC_ACTIVITY_AFTER_EXPIRY, ledger)).toEqual([]);
  });
});

describe('GC_INVALID_AMOUNT', () => {
  it('flags debits of zero and of a negative amount, and an amount off the cent', () => {
    const ledger = cardLedger(3_000, [
      { type: 'DEBIT', amount: 0 },
      { type: 'DEBIT', amount: -500 },
      { type: 'DEBIT', amount: 100 },
    ]);
    entryOf(ledger, 'entry-3').amountCents = null;
    expect(inspect(CHECKS.GC_INVALID_AMOUNT, ledger).map((f) => f.entityId)).toEqual(['entry-1', 'entry-2', 'entry-3']);
  });

  it('flags a card whose remaining balance is off the cent', () => {
    expect(inspect(CHECKS.GC_INVALID_AMOUNT, cardLedger(3_000, [], { remainingCents: null }))).toMatchObject([
      { entityType: 'giftCard', entityId: 'card-1' },
    ]);
  });

  it('passes a VOID with an amount of zero (its amount is ignored)', () => {
    expect(inspect(CHECKS.GC_INVALID_AMOUNT, cardLedger(3_000, [{ type: 'VOID' }]))).toEqual([]);
  });
});

describe('GC_SUSPECTED_DOUBLE_DEBIT', () => {
  it('flags the same debit twice within a minute under different keys', () => {
    const ledger = cardLedger(10_000, [
      { type: 'DEBIT', amount: 1_250, ref: 'R', at: T0 },
      { type: 'DEBIT', amount: 1_250, ref: 'R', at: T0 + 20_000 },
    ]);
    expect(inspect(CHECKS.GC_SUSPECTED_DOUBLE_DEBIT, ledger)).toMatchObject([
      { entityId: 'card-1', referenceId: 'R', records: [{ id: 'card-1' }, { id: 'entry-1' }, { id: 'entry-2' }] },
    ]);
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

describe('GC_STATUS_LEDGER_MISMATCH', () => {
  it('flags an INACTIVE card without a VOID entry', () => {
    expect(
      inspect(
        CHECKS.GC_STATUS_LEDGER_MISMATCH,
        cardLedger(2_000, [{ type: 'DEBIT', amount: 500 }], { status: 'INACTIVE' }),
      ),
    ).toMatchObject([{ entityId: 'card-1' }]);
  });

  it('flags an ACTIVE card with an EXPIRE entry', () => {
    expect(
      inspect(CHECKS.GC_STATUS_LEDGER_MISMATCH, cardLedger(2_000, [{ type: 'EXPIRE' }], { status: 'ACTIVE' })),
    ).toMatchObject([{ entityId: 'card-1', records: [{ id: 'card-1' }, { id: 'entry-1' }] }]);
  });

  it('passes a FROZEN card without closing entries, and an EXPIRED card with its EXPIRE entry', () => {
    const frozen = cardLedger(2_500, [{ type: 'DEBIT', amount: 500 }], { status: 'FROZEN' });
    const expired = cardLedger(2_500, [{ type: 'EXPIRE' }]);
    expect([
      ...inspect(CHECKS.GC_STATUS_LEDGER_MISMATCH, frozen),
      ...inspect(CHECKS.GC_STATUS_LEDGER_MISMATCH, expired),
    ]).toEqual([]);
  });
});

describe('GC_EXPIRY_OVERDUE', () => {
  it('flags a card still ACTIVE five hours after it expired', () => {
    const ledger = cardLedger(4_000, [], { expiresAtMs: T0, readAtMs: T0 + 5 * 3_600_000 });
    expect(inspect(CHECKS.GC_EXPIRY_OVERDUE, ledger)).toMatchObject([{ entityId: 'card-1' }]);
  });

  it('passes a card expired 30 minutes ago, within the grace period', () => {
    expect(
      inspect(CHECKS.GC_EXPIRY_OVERDUE, cardLedger(4_000, [], { expiresAtMs: T0, readAtMs: T0 + 30 * 60_000 })),
    ).toEqual([]);
  });
});

describe('GC_FOREIGN_MERCHANT', () => {
  it('flags a card owned by another merchant', () => {
    expect(
      inspect(CHECKS.GC_FOREIGN_MERCHANT, cardLedger(5_000, [], { giftCardId: 'theirs', merchantId: OTHER_MERCHANT })),
    ).toMatchObject([{ entityId: 'theirs' }]);
  });

  it('passes our own cards', () => {
    expect(inspect(CHECKS.GC_FOREIGN_MERCHANT, cardLedger(5_000, []))).toEqual([]);
  });
});

const CHECKS_CARD = CATALOGUE.filter((c): c is CardCheck<CheckCode> => c.kind === 'card');
