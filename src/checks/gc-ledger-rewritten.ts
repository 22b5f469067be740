import { rowsCheck } from './check.js';
import { cardRef, entryRef } from './refs.js';
import type { EntryRewrite } from './store.js';

export const gcLedgerRewritten = rowsCheck({
  kind: 'rows',
  code: 'GC_LEDGER_REWRITTEN',
  severity: 'error',
  lifecycle: 'event',
  title: 'Ledger entry changed or vanished',
  description:
    'Ledger entries are immutable. An entry mirrored earlier that later came back different, or no longer came back at all, means the ledger was rewritten. The mirror keeps both versions (gift_card_transaction_versions). An entry the ledger list returns but that reads 404 or other figures by ID is the service disagreeing with itself, and is reported the same way. It stays open until a person accepts it.',
  // Those recorded by the checked sync or before (a past night re-performed reads its own).
  read: (store, { syncRunId }) => store.cards.entryRewrites(syncRunId),
  decide(rows: readonly EntryRewrite[]) {
    return rows.map((row) => ({
      entityType: 'giftCardTransaction',
      entityId: row.transaction_id,
      ...(row.gift_card_id ? { giftCardId: row.gift_card_id } : {}),
      // The entry and the version the mirror recorded: each rewrite or disappearance is an event of its own.
      identity: [row.change, String(row.sync_run_id)],
      message:
        row.change === 'vanished'
          ? `entry ${row.transaction_id}${row.gift_card_id ? ` of card ${row.gift_card_id}` : ''} was mirrored earlier but no longer appears in the ledger (full pass of sync ${row.sync_run_id}) — ask the service why it was removed`
          : `entry ${row.transaction_id}${row.gift_card_id ? ` of card ${row.gift_card_id}` : ''} came back changed in sync ${row.sync_run_id}${row.fields ? ` (${row.fields})` : ''} — both versions are in gift_card_transaction_versions`,
      records: [...(row.gift_card_id ? [cardRef(row.gift_card_id)] : []), entryRef(row.transaction_id)],
    }));
  },
});
