import { rowsCheck } from './check.js';
import { entryRef } from './refs.js';
import type { OrphanEntry } from './store.js';

export const gcOrphanEntry = rowsCheck({
  kind: 'rows',
  code: 'GC_ORPHAN_ENTRY',
  severity: 'error',
  lifecycle: 'state',
  title: 'Entry of a card the service cannot find',
  description:
    "Every ledger entry belongs to a card. An entry whose card the service answers 'not found' for moved money on a card that no longer exists for this merchant.",
  // The card walk has met every orphan already; without it, the store finds them.
  read: (store, { orphanCardIds, asOfSync }) => store.cards.orphanEntries(orphanCardIds, asOfSync),
  decide(rows: readonly OrphanEntry[]) {
    return rows.map((row) => ({
      entityType: 'giftCardTransaction',
      entityId: row.transaction_id,
      giftCardId: row.gift_card_id,
      referenceId: row.reference_id,
      message: `${row.type} ${row.transaction_id} belongs to card ${row.gift_card_id}, which ${row.confirmed ? 'the service answers "not found" for' : 'is not in the mirror'} — ask the service what happened to the card`,
      records: [entryRef(row.transaction_id)],
    }));
  },
});
