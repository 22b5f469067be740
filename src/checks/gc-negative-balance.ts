import { cardCheck } from './check.js';
import { cardRef, cents, entryRef, money } from './refs.js';

export const gcNegativeBalance = cardCheck({
  kind: 'card',
  code: 'GC_NEGATIVE_BALANCE',
  severity: 'error',
  lifecycle: 'state',
  title: 'Balance below zero',
  description:
    'A gift card balance can never go below zero: a debit may only take what is on the card. A negative balance anywhere in the ledger or on the card means a debit was allowed beyond the balance.',
  timeSensitive: false,
  inspect({ card, entries }) {
    const first = entries.find((e) => (e.beforeCents ?? 0) < 0 || (e.afterCents ?? 0) < 0);
    const lowest = first ? Math.min(first.beforeCents ?? 0, first.afterCents ?? 0) : (card.remainingCents ?? 0);
    if (!first && lowest >= 0) return [];
    const where = first
      ? `entry ${first.transactionId} takes it to ${money(lowest, card.currency)}`
      : `the card reports ${money(lowest, card.currency)}`;
    return [
      {
        entityType: 'giftCard',
        entityId: card.giftCardId,
        giftCardId: card.giftCardId,
        currency: card.currency,
        measure: cents(0, lowest),
        message: `card ${card.giftCardId}: the balance went below zero — ${where}; find the debit that was allowed beyond the balance`,
        records: [cardRef(card.giftCardId), ...(first ? [entryRef(first.transactionId)] : [])],
      },
    ];
  },
});
