import { describe, expect, it } from 'vitest';
import { cardLedger } from '../support/fixtures.js';
import {
  allBooksFindings,
  books,
  fx,
  LATE,
  messagesSaid,
  run,
  secondCard,
  tender,
  useFixtureMirror,
} from '../support/check-kit.js';

useFixtureMirror();

describe('BK_LEDGER_NOT_IN_BOOKS', () => {
  it('flags a debit the books do not hold, naming the entry and its card', async () => {
    fx.ledger(
      cardLedger(10_000, [
        { type: 'DEBIT', amount: 1_000, ref: 'ORD-1' },
        { type: 'DEBIT', amount: 500, ref: 'ORD-2' },
      ]),
    );
    await books('tenders', [tender('ORD-1', '10.00', 1), LATE]);
    const [finding, ...rest] = await run('BK_LEDGER_NOT_IN_BOOKS');
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      entityType: 'giftCardTransaction',
      entityId: 'entry-2',
      giftCardId: 'card-1',
      referenceId: 'ORD-2',
      currency: 'USD',
      atStakeCents: 500,
    });
    expect(finding?.records).toEqual([
      { type: 'giftCard', id: 'card-1' },
      { type: 'giftCardTransaction', id: 'entry-2' },
    ]);
    expect(finding?.message).toContain('USD 5.00');
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "DEBIT entry-2 of USD 5.00 on card card-1 under reference ORD-2 (2026-10-01T12:02:00.000Z) has no payment in the books — find the order in the order system, or the export that left it out",
      ]
    `);
  });

  it('passes a tender split across two cards (one-to-many)', async () => {
    fx.ledger(cardLedger(2_000, [{ type: 'DEBIT', amount: 2_000, ref: 'ORD-1' }]));
    fx.ledger(
      secondCard(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }], { giftCardId: 'card-2' })),
    );
    await books('tenders', [tender('ORD-1', '30.00', 1), LATE]);
    expect((await allBooksFindings()).filter((f) => f.referenceId !== 'ORD-LATE')).toEqual([]);
    expect(await fx.column("SELECT DISTINCT rule FROM books_matches WHERE reference = 'ORD-1'")).toEqual([
      'one-to-many',
    ]);
  });
});
