import { rowsCheck } from './check.js';
import type { ListedNotFound } from './store.js';

/** How many of the cards the message names; the finding's records name every one. */
const NAMED = 10;

export const gcListedNotFound = rowsCheck({
  kind: 'rows',
  code: 'GC_LISTED_NOT_FOUND',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Listed cards the service cannot find',
  description:
    "The card list answered with cards that a read by ID answers 'not found' for: the service disagrees with itself about which cards exist. Cards of ours with ledger entries are GC_ORPHAN_ENTRY errors, an entry each; the others move no money the checks can see, and one finding a night names them all, until the service lists only what it can find.",
  // The night's own sightings: a night re-performed reads the cards as that night met them.
  read: (store, { syncRunId }) => store.cards.listedNotFound(syncRunId),
  decide(rows: readonly ListedNotFound[]) {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.gift_card_id);
    const named = ids.slice(0, NAMED).join(', ');
    return [
      {
        entityType: 'giftCard',
        // One finding while any listed card cannot be found, whichever they are tonight.
        entityId: 'listed-cards-not-found',
        message: `the card list answered with ${ids.length} card${ids.length === 1 ? '' : 's'} that a read by ID answers "not found" for: ${named}${ids.length > NAMED ? ` and ${ids.length - NAMED} more (the finding's records name them all)` : ''} — ask the service why it lists cards it cannot find`,
        records: ids.map((id) => ({ type: 'giftCard', id })),
      },
    ];
  },
});
