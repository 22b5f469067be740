import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

describe('GC_STUCK_IN_FLIGHT', () => {
  const inFlight = (card = 'card-1') =>
    fx.run(
      'INSERT INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?)',
      fx.syncRunId,
      card,
      'ledger entries arrived after the card was read',
    );

  it('flags a card in flight on three consecutive syncs, as a warning naming since which sync', async () => {
    fx.ledger(cardLedger(5_000, []));
    const first = fx.syncRunId;
    inFlight();
    fx.sync();
    inFlight();
    fx.sync();
    inFlight();
    expect(CHECKS.GC_STUCK_IN_FLIGHT.severity).toBe('warning');
    const [finding] = await readAndDecide(CHECKS.GC_STUCK_IN_FLIGHT, fx.context());
    expect(finding).toMatchObject({ entityId: 'card-1', currency: 'USD' });
    expect(finding?.message).toContain(`since sync ${first}`);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1 has been in flight on 3 consecutive syncs (since sync 1): its snapshot and its ledger never agree — read it by ID and compare its remainingBalance with its newest entry's balanceAfter",
      ]
    `);
  });

  it('passes a card in flight on two syncs out of three, and one whose syncs between failed count for nothing', async () => {
    fx.ledger(cardLedger(5_000, []));
    inFlight();
    fx.sync();
    fx.sync();
    inFlight();
    expect(await readAndDecide(CHECKS.GC_STUCK_IN_FLIGHT, fx.context())).toEqual([]);
    fx.sync('failed');
    fx.sync();
    inFlight();
    expect(await readAndDecide(CHECKS.GC_STUCK_IN_FLIGHT, fx.context())).toEqual([]);
  });
});
