import type { QueryCheck } from './check.js';
import { cardRef } from './refs.js';

export const gcForeignMerchant: QueryCheck = {
  kind: 'query',
  code: 'GC_FOREIGN_MERCHANT',
  severity: 'error',
  title: "Another merchant's card",
  description: "Every request is scoped to the API client's merchant. A card owned by another merchant in our lists means the service's merchant scoping leaked.",
  run({ sqlite, merchantId }) {
    if (merchantId === null) return [];
    const rows = sqlite.prepare('SELECT gift_card_id, merchant_id, currency FROM gift_cards WHERE merchant_id <> ? ORDER BY gift_card_id').all(merchantId) as { gift_card_id: string; merchant_id: string; currency: string }[];
    return rows.map((row) => ({
      entityType: 'giftCard',
      entityId: row.gift_card_id,
      giftCardId: row.gift_card_id,
      currency: row.currency,
      message: `card ${row.gift_card_id} belongs to merchant ${row.merchant_id}, not to our merchant ${merchantId} — the service's merchant scoping let it through`,
      records: [cardRef(row.gift_card_id)],
    }));
  },
};
