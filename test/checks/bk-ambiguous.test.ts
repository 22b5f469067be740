import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { sha256Hex as sha256 } from '../../src/hash.js';
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

describe('BK_AMBIGUOUS', () => {
  it('flags two equal payments and two equal debits under one reference with no card named, matching neither', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }]));
    fx.ledger(
      secondCard(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }], { giftCardId: 'card-2' })),
    );
    await books('tenders', [tender('ORD-1', '15.00', 1), tender('ORD-1', '15.00', 2), LATE]);
    expect(CHECKS.BK_AMBIGUOUS.severity).toBe('warning');
    const [finding, ...rest] = await run('BK_AMBIGUOUS');
    expect(rest).toEqual([]);
    expect(finding?.records).toHaveLength(6);
    expect(finding?.message).toContain('could pair more than one way');
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "reference ORD-1: 2 payments of USD 15.00 in the books (tenders-1.csv line 2, tenders-1.csv line 3) and 2 DEBITs on cards card-2, card-1 could pair more than one way — not matched; match them by hand, or have the export name each card",
      ]
    `);
  });

  it('passes a tender that names its card only by the code, matched by its hash whatever the reference', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }]));
    fx.run(
      "UPDATE gift_cards SET raw_json = ? WHERE gift_card_id = 'card-1'",
      JSON.stringify({ codeHash: sha256('GIFT-CODE-1') }),
    );
    await books('tenders', [tender('WEB-77', '15.00', 1, { cardCode: 'GIFT-CODE-1' }), LATE]);
    expect((await allBooksFindings()).filter((f) => f.referenceId !== 'ORD-LATE')).toEqual([]);
    expect(await fx.column("SELECT DISTINCT rule FROM books_matches WHERE reference = 'WEB-77'")).toEqual([
      'code-hash',
    ]);
    expect((await fx.column('SELECT raw_json FROM books_rows')).join()).not.toContain('GIFT-CODE-1');
  });
});
