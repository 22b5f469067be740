import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger, T0 } from '../support/fixtures.js';
import {
  allBooksFindings,
  books,
  fx,
  HOUR,
  messagesSaid,
  run,
  tender,
  useFixtureMirror,
} from '../support/check-kit.js';

useFixtureMirror();

describe('BK_IN_TRANSIT', () => {
  it('flags as info a payment within the cut-off of the end of the data that has no entry yet', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.00', 1), tender('ORD-NEW', '5.00', 47 * 60 + 30)]);
    expect(CHECKS.BK_IN_TRANSIT.severity).toBe('info');
    expect(await run('BK_IN_TRANSIT')).toMatchObject([{ entityType: 'booksRow', referenceId: 'ORD-NEW' }]);
    expect(await run('BK_BOOKS_NOT_IN_LEDGER')).toEqual([]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "tenders-1.csv line 3 (payment ORD-NEW of USD 5.00, 2026-10-03T11:30:00.000Z) has no partner yet, within the cut-off of the end of the data — matched again next run",
      ]
    `);
  });

  it('passes a payment within the cut-off that has its entry', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1', at: T0 + 47 * HOUR }]));
    await books('tenders', [tender('ORD-1', '10.00', 47 * 60)]);
    expect(await allBooksFindings()).toEqual([]);
  });
});
