import { cardReconciliation } from '../ledger/state.js';
import { cardCheck } from './check.js';
import { cardBalanceStake, cardRef, cents, money } from './refs.js';

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
    const figures = cardReconciliation(card, entries);
    const expected = figures.recomputedCents;
    if (
      card.initialCents === null ||
      expected === null ||
      figures.differenceCents === null ||
      figures.differenceCents === 0
    )
      return [];
    const difference = figures.differenceCents;
    const reported = expected + difference;
    return [
      {
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        currency: card.currency,
        measure: cents(expected, reported),
        stakeKey: cardBalanceStake(card.giftCardId),
        message:
          `card ${card.giftCardId}: the ledger gives ${money(expected, card.currency)} (initial ${money(card.initialCents, card.currency)} − debits ${money(figures.debitedCents, card.currency)} + refunds ${money(figures.refundedCents, card.currency)}) ` +
          `but the card reports ${money(reported, card.currency)}; ${money(Math.abs(difference), card.currency)} ${difference > 0 ? 'appeared without' : 'went missing without'} a ledger entry — compare the card's history with its entries`,
        records: [cardRef(card.giftCardId)],
      },
    ];
  },
});
