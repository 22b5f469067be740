import { rowsCheck } from './check.js';
import type { CardInFlight } from './store.js';
import { cardRef } from './refs.js';

export const gcInFlight = rowsCheck({
  kind: 'rows',
  code: 'GC_IN_FLIGHT',
  severity: 'info',
  lifecycle: 'state',
  title: 'Card moved during the sync',
  description:
    'The services keep working while the sync reads them. A card that still moved after the settle pass, or that the confirmation pass finds moved on (another balance or status; a new version alone is not a move), cannot be compared like with like; its balance checks wait for the next run, and a balance break seen before is held with its first-seen date. Not a break.',
  read: (store, { syncRunId }) => store.cards.cardsInFlight(syncRunId),
  decide: (rows: readonly CardInFlight[]) =>
    rows.map((row) => ({
      entityType: 'giftCard',
      entityId: row.giftCardId,
      giftCardId: row.giftCardId,
      ...(row.currency ? { currency: row.currency } : {}),
      message: `card ${row.giftCardId} moved while the sync read it (${row.detail}); its balance checks wait for the next run`,
      records: [cardRef(row.giftCardId)],
    })),
});
