import { describe, expect, it } from 'vitest';
import { cardLedger } from '../support/fixtures.js';
import {
  allBooksFindings,
  books,
  fx,
  LATE,
  messagesSaid,
  run,
  tender,
  useFixtureMirror,
} from '../support/check-kit.js';

useFixtureMirror();

describe('BK_AMOUNT_MISMATCH', () => {
  it('flags a payment whose amount differs from its debit, with both sides', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.50', 1), LATE]);
    const [finding] = await run('BK_AMOUNT_MISMATCH');
    expect(finding).toMatchObject({
      entityType: 'booksRow',
      referenceId: 'ORD-1',
      measure: { unit: 'cents', expected: 1_000, actual: 1_050 },
      atStakeCents: 50,
    });
    expect(finding?.records.map((r) => r.type)).toEqual(['booksRow', 'giftCard', 'giftCardTransaction']);
    expect(await run('BK_LEDGER_NOT_IN_BOOKS')).toEqual([]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "reference ORD-1: the books hold a payment of USD 10.50 (tenders-1.csv line 2), the ledger a DEBIT of USD 10.00 on card card-1 — USD 0.50 apart; find which side took the wrong amount",
      ]
    `);
  });

  it('passes the same difference within a tolerance of 0.50 for USD, and names the rule', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.50', 1), LATE]);
    expect(
      (await allBooksFindings({ booksToleranceCents: { USD: 50 } })).filter((f) => f.referenceId !== 'ORD-LATE'),
    ).toEqual([]);
    expect(await fx.column("SELECT DISTINCT rule FROM books_matches WHERE reference = 'ORD-1'")).toEqual(['tolerance']);
  });
});
