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

describe('BK_DUPLICATE', () => {
  it('flags a payment the books hold twice (in two files), matched once', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.00', 1), LATE]);
    await books('tenders', [tender('ORD-1', '10.00', 1)]);
    const findings = await run('BK_DUPLICATE');
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ entityType: 'booksRow', referenceId: 'ORD-1', atStakeCents: 1_000 });
    expect(findings[0]?.message).toContain('tenders-2.csv line 2');
    expect(findings[0]?.records).toContainEqual({ type: 'giftCardTransaction', id: 'entry-1' });
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "tenders-2.csv line 2 repeats the payment of USD 10.00 under reference ORD-1 that another books row already matched with entry entry-1 — the books record it twice; remove the copy from the books",
      ]
    `);
  });

  it('passes two equal payments under one reference on two cards the books name', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }]));
    fx.ledger(
      secondCard(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }], { giftCardId: 'card-2' })),
    );
    await books('tenders', [
      tender('ORD-1', '15.00', 1, { giftCardId: 'card-2' }),
      tender('ORD-1', '15.00', 1, { giftCardId: 'card-1' }),
      LATE,
    ]);
    expect((await allBooksFindings()).filter((f) => f.referenceId !== 'ORD-LATE')).toEqual([]);
  });
});
