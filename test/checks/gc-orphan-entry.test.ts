import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger, T0 } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('GC_ORPHAN_ENTRY', () => {
  it('flags an entry whose card the service answered not found for', async () => {
    const ledger = cardLedger(2_000, [{ type: 'DEBIT', amount: 700 }], { giftCardId: 'lost-card' });
    fx.entry('lost-card', ledger.entries[0]!);
    fx.run(
      'INSERT INTO missing_gift_cards (gift_card_id, sync_run_id, checked_at_ms) VALUES (?, ?, ?)',
      'lost-card',
      fx.syncRunId,
      T0,
    );
    const [finding] = await readAndDecide(CHECKS.GC_ORPHAN_ENTRY, fx.context());
    expect(finding).toMatchObject({ entityType: 'giftCardTransaction', entityId: 'entry-1', giftCardId: 'lost-card' });
    expect(finding?.message).toContain('not found');
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "DEBIT entry-1 belongs to card lost-card, which the service answers "not found" for — ask the service what happened to the card",
      ]
    `);
  });

  it('passes entries of a mirrored card', async () => {
    fx.ledger(cardLedger(2_000, [{ type: 'DEBIT', amount: 700 }]));
    expect(await readAndDecide(CHECKS.GC_ORPHAN_ENTRY, fx.context())).toEqual([]);
  });
});
