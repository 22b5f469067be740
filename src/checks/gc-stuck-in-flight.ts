import type { QueryCheck } from './check.js';
import { cardRef } from './refs.js';

/** The syncs a card was in flight on, newest first: this one and the completed ones before it. */
const STUCK_SQL = `
  WITH recent AS (
    SELECT sync_run_id FROM sync_runs WHERE sync_run_id = @run OR (sync_run_id < @run AND status = 'completed')
    ORDER BY sync_run_id DESC LIMIT @runs)
  SELECT f.gift_card_id AS giftCardId, c.currency AS currency, MIN(f.sync_run_id) AS sinceSyncRunId
  FROM gift_cards_in_flight f JOIN recent r ON r.sync_run_id = f.sync_run_id
  LEFT JOIN gift_cards c ON c.gift_card_id = f.gift_card_id
  GROUP BY f.gift_card_id HAVING COUNT(*) = @runs AND (SELECT COUNT(*) FROM recent) = @runs
  ORDER BY f.gift_card_id`;

export const gcStuckInFlight: QueryCheck = {
  kind: 'query',
  code: 'GC_STUCK_IN_FLIGHT',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Card in flight run after run',
  description:
    'A card in flight is read again every run; one still in flight after several consecutive runs (3 by default) cannot hide behind "in flight" any longer: its snapshot and its ledger never come to agree, which a card that merely moves does not do. Look at its entries and the service\'s own record of it.',
  run({ sqlite, syncRunId, options }) {
    const rows = sqlite.prepare(STUCK_SQL).all({ run: syncRunId, runs: options.stuckInFlightRuns }) as { giftCardId: string; currency: string | null; sinceSyncRunId: number }[];
    return rows.map((row) => ({
      entityType: 'giftCard' as const,
      entityId: row.giftCardId,
      giftCardId: row.giftCardId,
      ...(row.currency ? { currency: row.currency } : {}),
      message: `card ${row.giftCardId} has been in flight on ${options.stuckInFlightRuns} consecutive syncs (since sync ${row.sinceSyncRunId}): its snapshot and its ledger never agree — read it by ID and compare its remainingBalance with its newest entry's balanceAfter`,
      records: [cardRef(row.giftCardId)],
    }));
  },
};
