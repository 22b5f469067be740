import { byReference } from '../ledger/references.js';
import { cardCheck, type FindingDraft } from './check.js';
import { cardRef, cents, entryRef, money } from './refs.js';

export const gcRefundWithoutDebit = cardCheck({
  kind: 'card',
  code: 'GC_REFUND_WITHOUT_DEBIT',
  severity: 'error',
  lifecycle: 'state',
  title: 'Refund of something never debited',
  description:
    'Every refund names the order reference it refunds; that reference must have a debit on the same card. A refund without one put value on the card that was never taken from it.',
  timeSensitive: false,
  inspect({ card, entries }) {
    const findings: FindingDraft[] = [];
    for (const [referenceId, group] of byReference(entries)) {
      if (group.debits.length > 0) continue;
      for (const refund of group.refunds) {
        findings.push({
          entityType: 'giftCardTransaction',
          entityId: refund.transactionId,
          giftCardId: card.giftCardId,
          referenceId,
          currency: card.currency,
          ...(refund.amountCents !== null ? { measure: cents(0, refund.amountCents) } : {}),
          message: `card ${card.giftCardId}: refund ${refund.transactionId}${refund.amountCents !== null ? ` of ${money(refund.amountCents, card.currency)}` : ''} names reference ${referenceId}, which has no debit on this card — find the order it belongs to`,
          records: [cardRef(card.giftCardId), entryRef(refund.transactionId)],
        });
      }
    }
    return findings;
  },
});
