import { cardCheck, type FindingDraft } from './check.js';
import { cardRef, closesCard, entryRef, isoUtc, movesMoney } from './refs.js';

export const gcActivityAfterClose = cardCheck({
  kind: 'card',
  code: 'GC_ACTIVITY_AFTER_CLOSE',
  severity: 'error',
  lifecycle: 'state',
  title: 'Used after it was voided or expired',
  description:
    'Once a card has a VOID or EXPIRE entry it is closed: no DEBIT or REFUND may follow. One that does means a closed card was still accepted.',
  timeSensitive: false,
  inspect({ card, entries }) {
    const findings: FindingDraft[] = [];
    const close = entries.find(closesCard);
    if (!close) return findings;
    for (const entry of entries.slice(entries.indexOf(close) + 1)) {
      if (!movesMoney(entry)) continue;
      findings.push({
        entityType: 'giftCardTransaction',
        entityId: entry.transactionId,
        giftCardId: card.giftCardId,
        referenceId: entry.referenceId,
        currency: card.currency,
        message: `card ${card.giftCardId}: ${entry.type} ${entry.transactionId} at ${isoUtc(entry.createdAtMs)} follows the card's ${close.type} entry ${close.transactionId} at ${isoUtc(close.createdAtMs)} — a closed card was still accepted`,
        records: [cardRef(card.giftCardId), entryRef(close.transactionId), entryRef(entry.transactionId)],
      });
    }
    return findings;
  },
});
