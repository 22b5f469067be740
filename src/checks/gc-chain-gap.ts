import { brokenLinks } from '../ledger/state.js';
import { cardCheck, type FindingDraft } from './check.js';
import { cardBalanceStake, cardRef, cents, entryRef, money } from './refs.js';

export const gcChainGap = cardCheck({
  kind: 'card',
  code: 'GC_CHAIN_GAP',
  severity: 'error',
  lifecycle: 'state',
  title: 'Ledger chain broken',
  description:
    "Each entry's balance before must equal the previous entry's balance after (the first entry's must equal the initial balance). A gap means an entry is missing from the ledger, or an entry was rewritten.",
  timeSensitive: false,
  inspect({ card, entries }) {
    return brokenLinks(card.initialCents, entries).map(
      ({ previous, previousAfterCents, entry, gapCents }): FindingDraft => {
        const before = entry.beforeCents as number;
        const where = previous
          ? `the previous entry ${previous.transactionId} ended at ${money(previousAfterCents, card.currency)}`
          : `the card was issued with ${money(previousAfterCents, card.currency)}`;
        const between = previous
          ? `between entry ${previous.transactionId} and entry ${entry.transactionId}`
          : `before entry ${entry.transactionId}`;
        return {
          entityType: 'giftCardTransaction',
          entityId: entry.transactionId,
          giftCardId: card.giftCardId,
          currency: card.currency,
          measure: cents(previousAfterCents, before),
          stakeKey: cardBalanceStake(card.giftCardId),
          message: `card ${card.giftCardId}: entry ${entry.transactionId} starts at ${money(before, card.currency)} but ${where} — a ${money(Math.abs(gapCents), card.currency)} entry is missing or was rewritten ${between}`,
          records: [
            cardRef(card.giftCardId),
            ...(previous ? [entryRef(previous.transactionId)] : []),
            entryRef(entry.transactionId),
          ],
        };
      },
    );
  },
});
