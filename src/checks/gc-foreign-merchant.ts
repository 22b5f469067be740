import { cardCheck } from './check.js';
import { cardRef } from './refs.js';

export const gcForeignMerchant = cardCheck({
  kind: 'card',
  code: 'GC_FOREIGN_MERCHANT',
  severity: 'error',
  lifecycle: 'state',
  title: "Another merchant's card",
  description:
    "Every request is scoped to the API client's merchant. A card owned by another merchant in our lists means the service's merchant scoping leaked.",
  timeSensitive: false,
  inspect({ card }, { merchantId }) {
    if (merchantId === null || card.merchantId === merchantId) return [];
    return [
      {
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        currency: card.currency,
        message: `card ${card.giftCardId} belongs to merchant ${card.merchantId}, not to our merchant ${merchantId} — the service's merchant scoping let it through`,
        records: [cardRef(card.giftCardId)],
      },
    ];
  },
});
