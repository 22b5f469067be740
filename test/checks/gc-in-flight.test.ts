import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('GC_IN_FLIGHT', () => {
  it('flags a card that moved during this sync, as info', async () => {
    fx.ledger(cardLedger(5_000, []));
    fx.run(
      'INSERT INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?)',
      fx.syncRunId,
      'card-1',
      'version moved from 3 to 4 during the sync',
    );
    expect(CHECKS.GC_IN_FLIGHT.severity).toBe('info');
    expect(await readAndDecide(CHECKS.GC_IN_FLIGHT, fx.context())).toMatchObject([
      { entityId: 'card-1', currency: 'USD' },
    ]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1 moved while the sync read it (version moved from 3 to 4 during the sync); its balance checks wait for the next run",
      ]
    `);
  });

  it('forgets a card that moved during an earlier sync', async () => {
    fx.ledger(cardLedger(5_000, []));
    fx.run(
      'INSERT INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?)',
      fx.syncRunId,
      'card-1',
      'moved',
    );
    fx.sync();
    expect(await readAndDecide(CHECKS.GC_IN_FLIGHT, fx.context())).toEqual([]);
  });
});
