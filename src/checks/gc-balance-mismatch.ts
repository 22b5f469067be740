import { cardCheck } from './check.js';
import { cardBalanceStake, cardRef, cents, ledgerSums, money } from './refs.js';

export const gcBalanceMismatch = cardCheck({
  kind: 'card',
  code: 'GC_BALANCE_MISMATCH',
  severity: 'error',
  lifecycle: 'state',
  title: 'Balance does not follow from the ledger',
  description:
    "The card's initial balance minus every debit plus every refund in its ledger must equal the balance the service reports as remaining. A difference means value was created or lost without a ledger entry, or an entry is missing.",
  timeSensitive: true,
  inspect({ card, entries }) {
    const sums = ledgerSums({ card, entries });
    if (sums === null || card.initialCents === null || card.remainingCents === null) return [];
    const expected = card.initialCents - sums.debits + sums.refunds;
    if (expected === card.remainingCents) return [];
    const difference = card.remainingCents - expected;
    return [
      {
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        currency: card.currency,
        measure: cents(expected, card.remainingCents),
        stakeKey: cardBalanceStake(card.giftCardId),
        message:
          `card ${card.giftCardId}: the ledger gives ${money(expected, card.currency)} (initial ${money(card.initialCents, card.currency)} − debits ${money(sums.debits, card.currency)} + refunds ${money(sums.refunds, card.currency)}) ` +
          `but the card reports ${money(card.remainingCents, card.currency)}; ${money(Math.abs(difference), card.currency)} ${difference > 0 ? 'appeared without' : 'went missing without'} a ledger entry — compare the card's history with its entries`,
        records: [cardRef(card.giftCardId)],
      },
    ];
  },
});
