import { rowsCheck } from './check.js';
import { cardRef } from './refs.js';
import type { StuckCard } from './store.js';

export const gcStuckInFlight = rowsCheck({
  kind: 'rows',
  code: 'GC_STUCK_IN_FLIGHT',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Card in flight run after run',
  description:
    'A card in flight is read again every run; one still in flight after several consecutive runs (3 by default) cannot hide behind "in flight" any longer: its snapshot and its ledger never come to agree, which a card that merely moves does not do. Look at its entries and the service\'s own record of it.',
  read: (store, { syncRunId, options }) => store.cards.cardsInFlightOnEach(syncRunId, options.stuckInFlightRuns),
  decide(rows: readonly StuckCard[], { options }) {
    return rows.map((row) => ({
      entityType: 'giftCard' as const,
      entityId: row.giftCardId,
      giftCardId: row.giftCardId,
      ...(row.currency ? { currency: row.currency } : {}),
      message: `card ${row.giftCardId} has been in flight on ${options.stuckInFlightRuns} consecutive syncs (since sync ${row.sinceSyncRunId}): its snapshot and its ledger never agree — read it by ID and compare its remainingBalance with its newest entry's balanceAfter`,
      records: [cardRef(row.giftCardId)],
    }));
  },
});
