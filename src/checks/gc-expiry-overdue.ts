import { cardCheck } from './check.js';
import { cardRef, isoUtc } from './refs.js';

export const gcExpiryOverdue = cardCheck({
  kind: 'card',
  code: 'GC_EXPIRY_OVERDUE',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Expired card still active',
  description:
    "The service's hourly job expires cards past their expiry date. A card still ACTIVE more than the grace period (default 2 hours) after it expired was missed by the job and could still be spent.",
  timeSensitive: true,
  inspect({ card }, { options }) {
    const overdueMs = card.readAtMs - card.expiresAtMs;
    if (card.status !== 'ACTIVE' || overdueMs <= options.expiryGraceMinutes * 60_000) return [];
    return [
      {
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        currency: card.currency,
        message: `card ${card.giftCardId} expired at ${isoUtc(card.expiresAtMs)} but was still ACTIVE ${Math.floor(overdueMs / 60_000)} minutes later when read at ${isoUtc(card.readAtMs)} — the hourly expiry job passed it by`,
        records: [cardRef(card.giftCardId)],
      },
    ];
  },
});
