import { cardCheck } from './check.js';
import { cardBalanceStake, cardRef, cents, entryRef, money } from './refs.js';

export const gcLedgerTailMismatch = cardCheck({
  kind: 'card',
  code: 'GC_LEDGER_TAIL_MISMATCH',
  severity: 'error',
  lifecycle: 'state',
  title: 'Newest entry disagrees with the card',
  description:
    "The balance after the card's newest ledger entry must equal the card's remaining balance. A difference means the card was changed outside its ledger, or its newest entry is missing.",
  timeSensitive: true,
  inspect({ card, entries }) {
    const last = entries.at(-1);
    if (!last || last.afterCents === null || card.remainingCents === null || last.afterCents === card.remainingCents)
      return [];
    return [
      {
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        currency: card.currency,
        measure: cents(last.afterCents, card.remainingCents),
        stakeKey: cardBalanceStake(card.giftCardId),
        message: `card ${card.giftCardId}: its newest entry ${last.transactionId} leaves ${money(last.afterCents, card.currency)} but the card reports ${money(card.remainingCents, card.currency)} — look for a change to the card after that entry`,
        records: [cardRef(card.giftCardId), entryRef(last.transactionId)],
      },
    ];
  },
});
