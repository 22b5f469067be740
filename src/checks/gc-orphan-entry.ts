import { queryCheck } from './check.js';
import { entryRef } from './refs.js';

interface Row {
  transaction_id: string;
  gift_card_id: string;
  type: string;
  reference_id: string;
  confirmed: number;
}

export const gcOrphanEntry = queryCheck({
  kind: 'query',
  code: 'GC_ORPHAN_ENTRY',
  severity: 'error',
  lifecycle: 'state',
  title: 'Entry of a card the service cannot find',
  description: "Every ledger entry belongs to a card. An entry whose card the service answers 'not found' for moved money on a card that no longer exists for this merchant.",
  run({ sqlite, orphanCardIds }) {
    // The card walk has met every orphan already; without it, find them in SQL.
    const orphans = orphanCardIds
      ? 'SELECT value FROM json_each(@cards)'
      : 'SELECT DISTINCT gift_card_id FROM gift_card_transactions EXCEPT SELECT gift_card_id FROM gift_cards';
    if (orphanCardIds?.length === 0) return [];
    const rows = sqlite
      .prepare(
        `SELECT t.transaction_id, t.gift_card_id, t.type, t.reference_id, m.gift_card_id IS NOT NULL AS confirmed
         FROM gift_card_transactions t
         LEFT JOIN missing_gift_cards m ON m.gift_card_id = t.gift_card_id
         WHERE t.gift_card_id IN (${orphans})
           AND t.vanished_sync_run_id IS NULL
         ORDER BY t.gift_card_id, t.created_at_ms, t.list_order`,
      )
      .all(...(orphanCardIds ? [{ cards: JSON.stringify(orphanCardIds) }] : [])) as Row[];
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
