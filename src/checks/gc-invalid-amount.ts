import { cardCheck, type FindingDraft } from './check.js';
import { cardRef, entryRef, money, movesMoney } from './refs.js';

export const gcInvalidAmount = cardCheck({
  kind: 'card',
  code: 'GC_INVALID_AMOUNT',
  severity: 'error',
  lifecycle: 'state',
  title: 'Amount not positive or not on a cent',
  description:
    "DEBIT and REFUND amounts must be greater than zero, and every amount must sit on a whole cent. An amount that does not is reported as sent (never rounded); the record's raw JSON in the mirror holds the exact value.",
  timeSensitive: false,
  inspect({ card, entries }) {
    const findings: FindingDraft[] = [];
    const cardFields = [
      ['initialBalance', card.initialCents],
      ['remainingBalance', card.remainingCents],
    ] as const;
    const offCent = cardFields.filter(([, value]) => value === null).map(([name]) => name);
    if (offCent.length > 0) {
      findings.push({
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        currency: card.currency,
        message: `card ${card.giftCardId}: ${offCent.join(' and ')} ${offCent.length > 1 ? 'are' : 'is'} not on a whole cent — see the card's raw_json in the mirror`,
        records: [cardRef(card.giftCardId)],
      });
    }
    for (const entry of entries) {
      const fields = [
        ...(movesMoney(entry) ? [['amount', entry.amountCents] as const] : []),
        ['balanceBefore', entry.beforeCents] as const,
        ['balanceAfter', entry.afterCents] as const,
      ];
      const notOnCent = fields.filter(([, value]) => value === null).map(([name]) => name);
      const notPositive = movesMoney(entry) && entry.amountCents !== null && entry.amountCents <= 0;
      if (notOnCent.length === 0 && !notPositive) continue;
      const problems = [
        ...(notPositive
          ? [`a ${entry.type} of ${money(entry.amountCents ?? 0, card.currency)}, which is not above zero`]
          : []),
        ...(notOnCent.length > 0 ? [`${notOnCent.join(', ')} not on a whole cent (see its raw_json)`] : []),
      ];
      findings.push({
        entityType: 'giftCardTransaction',
        entityId: entry.transactionId,
        giftCardId: card.giftCardId,
        referenceId: entry.referenceId,
        currency: card.currency,
        message: `card ${card.giftCardId}: entry ${entry.transactionId} has ${problems.join(' and ')} — the service should have refused it`,
        records: [cardRef(card.giftCardId), entryRef(entry.transactionId)],
      });
    }
    return findings;
  },
});
