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
    const findings: FindingDraft[] = [];
    let previous: { id: string | null; after: number | null } = { id: null, after: card.initialCents };
    for (const entry of entries) {
      if (previous.after !== null && entry.beforeCents !== null && entry.beforeCents !== previous.after) {
        const difference = entry.beforeCents - previous.after;
        const where = previous.id
          ? `the previous entry ${previous.id} ended at ${money(previous.after, card.currency)}`
          : `the card was issued with ${money(previous.after, card.currency)}`;
        const between = previous.id
          ? `between entry ${previous.id} and entry ${entry.transactionId}`
          : `before entry ${entry.transactionId}`;
        findings.push({
          entityType: 'giftCardTransaction',
          entityId: entry.transactionId,
          giftCardId: card.giftCardId,
          currency: card.currency,
          measure: cents(previous.after, entry.beforeCents),
          stakeKey: cardBalanceStake(card.giftCardId),
          message: `card ${card.giftCardId}: entry ${entry.transactionId} starts at ${money(entry.beforeCents, card.currency)} but ${where} — a ${money(Math.abs(difference), card.currency)} entry is missing or was rewritten ${between}`,
          records: [
            cardRef(card.giftCardId),
            ...(previous.id ? [entryRef(previous.id)] : []),
            entryRef(entry.transactionId),
          ],
        });
      }
      previous = { id: entry.transactionId, after: entry.afterCents };
    }
    return findings;
  },
});
