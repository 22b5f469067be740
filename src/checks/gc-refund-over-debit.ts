import { byReference } from '../ledger/references.js';
import { cardCheck, type FindingDraft } from './check.js';
import { cardRef, cents, entryRef, money } from './refs.js';

export const gcRefundOverDebit = cardCheck({
  kind: 'card',
  code: 'GC_REFUND_OVER_DEBIT',
  severity: 'error',
  lifecycle: 'state',
  title: 'Refunded more than was debited',
  description:
    'Refunds under one order reference on one card may not add up to more than the debits under that reference. More means the customer got back more than they paid with the card.',
  timeSensitive: false,
  inspect({ card, entries }) {
    const findings: FindingDraft[] = [];
    for (const [referenceId, group] of byReference(entries)) {
      if (group.debits.length === 0 || group.refunds.length === 0) continue;
      const debited = group.debitedCents;
      const refunded = group.refundedCents;
      if (debited === null || refunded === null || refunded <= debited) continue;
      findings.push({
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        referenceId,
        currency: card.currency,
        measure: cents(debited, refunded),
        message: `card ${card.giftCardId}: reference ${referenceId} was refunded ${money(refunded, card.currency)} against ${money(debited, card.currency)} debited, ${money(refunded - debited, card.currency)} too much — review the ${group.refunds.length} refund(s) under it`,
        records: [
          cardRef(card.giftCardId),
          ...group.debits.map((e) => entryRef(e.transactionId)),
          ...group.refunds.map((e) => entryRef(e.transactionId)),
        ],
      });
    }
    return findings;
  },
});
