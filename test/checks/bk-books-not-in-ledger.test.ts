import { describe, expect, it } from 'vitest';
import { cardLedger, T0 } from '../support/fixtures.js';
import {
  allBooksFindings,
  books,
  fx,
  HOUR,
  LATE,
  MINUTE,
  messagesSaid,
  run,
  tender,
  useFixtureMirror,
} from '../support/check-kit.js';

useFixtureMirror();

describe('BK_BOOKS_NOT_IN_LEDGER', () => {
  it('flags a books payment with no entry, naming its file and line', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.00', 1), tender('ORD-9', '12.34', 5), LATE]);
    const findings = await run('BK_BOOKS_NOT_IN_LEDGER');
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ entityType: 'booksRow', referenceId: 'ORD-9', atStakeCents: 1_234 });
    expect(findings[0]?.message).toMatch(/^tenders-1\.csv line 3: payment of USD 12\.34 under reference ORD-9/);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "tenders-1.csv line 3: payment of USD 12.34 under reference ORD-9 (2026-10-01T12:05:00.000Z) has no DEBIT on the gift card ledger — the order system recorded a gift card payment the service never made",
      ]
    `);
  });

  it('passes a refund in three parts on the ledger booked as one refund a day later', async () => {
    fx.ledger(
      cardLedger(10_000, [
        { type: 'DEBIT', amount: 6_000, ref: 'ORD-1' },
        { type: 'REFUND', amount: 1_000, ref: 'ORD-1', at: T0 + 24 * HOUR },
        { type: 'REFUND', amount: 2_000, ref: 'ORD-1', at: T0 + 24 * HOUR + MINUTE },
        { type: 'REFUND', amount: 500, ref: 'ORD-1', at: T0 + 24 * HOUR + 2 * MINUTE },
      ]),
    );
    await books('tenders', [
      tender('ORD-1', '60.00', 1),
      { ...tender('ORD-1', '35.00', 24 * 60 + 3), type: 'refund' },
      LATE,
    ]);
    expect((await allBooksFindings()).filter((f) => f.referenceId !== 'ORD-LATE')).toEqual([]);
  });
});
