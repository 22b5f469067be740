import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

/** The night's sync met `giftCardId` in the list, and a read by ID answered 404. */
function listedNotFound(giftCardId: string, syncRunId = fx.syncRunId): void {
  fx.run('INSERT INTO listed_not_found (sync_run_id, gift_card_id) VALUES (?, ?)', syncRunId, giftCardId);
}

describe('GC_LISTED_NOT_FOUND', () => {
  it('flags the cards the list answered with that a read by ID did not find, in one finding', async () => {
    listedNotFound('ghost-b');
    listedNotFound('ghost-a');
    const [finding, ...more] = await readAndDecide(CHECKS.GC_LISTED_NOT_FOUND, fx.context());
    expect(more).toEqual([]);
    expect(finding).toMatchObject({
      entityType: 'giftCard',
      entityId: 'listed-cards-not-found',
      records: [
        { type: 'giftCard', id: 'ghost-a' },
        { type: 'giftCard', id: 'ghost-b' },
      ],
    });
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "the card list answered with 2 cards that a read by ID answers "not found" for: ghost-a, ghost-b — ask the service why it lists cards it cannot find",
      ]
    `);
  });

  it('passes a card with ledger entries (each is a GC_ORPHAN_ENTRY) and the sightings of another night', async () => {
    const ledger = cardLedger(2_000, [{ type: 'DEBIT', amount: 700 }], { giftCardId: 'lost-card' });
    fx.entry('lost-card', ledger.entries[0]!);
    listedNotFound('lost-card');
    listedNotFound('found-again', fx.syncRunId - 1);
    expect(await readAndDecide(CHECKS.GC_LISTED_NOT_FOUND, fx.context())).toEqual([]);
  });
});
