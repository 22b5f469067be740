import { cardCheck, type FindingDraft } from './check.js';
import { cardRef, entryRef, isoUtc, movesMoney } from './refs.js';

export const gcActivityAfterExpiry = cardCheck({
  kind: 'card',
  code: 'GC_ACTIVITY_AFTER_EXPIRY',
  severity: 'error',
  lifecycle: 'state',
  title: 'Used after its expiry date',
  description:
    'DEBIT and REFUND need an unexpired card. An entry created after the card expired means an expired card was still accepted.',
  timeSensitive: false,
  inspect({ card, entries }) {
    const findings: FindingDraft[] = [];
    for (const entry of entries) {
      if (!movesMoney(entry) || entry.createdAtMs <= card.expiresAtMs) continue;
      findings.push({
        entityType: 'giftCardTransaction',
        entityId: entry.transactionId,
        giftCardId: card.giftCardId,
        referenceId: entry.referenceId,
        currency: card.currency,
        message: `card ${card.giftCardId}: ${entry.type} ${entry.transactionId} at ${isoUtc(entry.createdAtMs)} came after the card expired at ${isoUtc(card.expiresAtMs)} — an expired card was still accepted`,
        records: [cardRef(card.giftCardId), entryRef(entry.transactionId)],
      });
    }
    return findings;
  },
});
