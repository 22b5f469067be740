import { queryCheck, type FindingDraft } from './check.js';
import { cardRef, count, entryRef } from './refs.js';

interface Row {
  idempotency_key: string;
  entries: number;
  gift_card_id: string;
  currency: string | null;
  ids: string;
  repeated_cents: number;
  cards: string;
}

export const gcDuplicateIdempotencyKey = queryCheck({
  kind: 'query',
  code: 'GC_DUPLICATE_IDEMPOTENCY_KEY',
  severity: 'error',
  lifecycle: 'state',
  title: 'One idempotency key, several entries',
  description:
    'An idempotency key makes a retried request safe: the service must commit it once. Several entries under one key mean a retry was applied twice, usually a double charge or a double refund.',
  run({ sqlite }) {
    const rows = sqlite
      .prepare(
        `SELECT t.idempotency_key, COUNT(*) AS entries, MIN(t.gift_card_id) AS gift_card_id, MIN(c.currency) AS currency,
                GROUP_CONCAT(t.transaction_id, ' ') AS ids, COALESCE(SUM(t.amount_cents) - MAX(t.amount_cents), 0) AS repeated_cents, GROUP_CONCAT(DISTINCT t.gift_card_id) AS cards
         FROM gift_card_transactions t LEFT JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
         WHERE t.vanished_sync_run_id IS NULL
           -- Candidates from the index alone (vanished entries included); the outer query drops those.
           AND t.idempotency_key IN (SELECT idempotency_key FROM gift_card_transactions GROUP BY idempotency_key HAVING COUNT(*) > 1)
         GROUP BY t.idempotency_key HAVING COUNT(*) > 1 ORDER BY t.idempotency_key`,
      )
      .all() as Row[];
    return rows.map((row): FindingDraft => {
      const ids = row.ids.split(' ');
      const cards = row.cards.split(',');
      return {
        entityType: 'giftCard',
        entityId: row.gift_card_id,
        giftCardId: row.gift_card_id,
        ...(row.currency ? { currency: row.currency } : {}),
        measure: count(1, row.entries),
        // The amounts committed beyond the one that was due.
        atStakeCents: row.repeated_cents,
        identity: [row.idempotency_key],
        message: `idempotency key ${row.idempotency_key} committed ${row.entries} entries (${ids.join(', ')}) on card ${cards.join(', ')} where one was due — a retried request was applied again`,
        records: [...cards.map(cardRef), ...ids.map(entryRef)],
      };
    });
  },
});
