import { expectedAfter } from '../ledger/state.js';
import { cardCheck, type FindingDraft } from './check.js';
import { cardBalanceStake, cardRef, cents, entryRef, money, signedAmount } from './refs.js';

export const gcEntryArithmetic = cardCheck({
  kind: 'card',
  code: 'GC_ENTRY_ARITHMETIC',
  severity: 'error',
  lifecycle: 'state',
  title: 'Entry does not add up',
  description:
    'Within one entry, balance after must be balance before minus the amount for a DEBIT, plus the amount for a REFUND, and unchanged for a VOID or EXPIRE. A difference means the service moved the balance by more or less than the entry says.',
  timeSensitive: false,
  inspect({ card, entries }) {
    const findings: FindingDraft[] = [];
    for (const entry of entries) {
      const expected = expectedAfter(entry);
      const delta = signedAmount(entry);
      if (expected === null || delta === null || entry.beforeCents === null || entry.afterCents === null) continue;
      if (expected === entry.afterCents) continue;
      const what =
        entry.type === 'DEBIT' || entry.type === 'REFUND'
          ? `a ${entry.type} of ${money(Math.abs(delta), card.currency)}`
          : `a ${entry.type}, which leaves the balance unchanged,`;
      findings.push({
        entityType: 'giftCardTransaction',
        entityId: entry.transactionId,
        giftCardId: card.giftCardId,
        referenceId: entry.referenceId,
        currency: card.currency,
        measure: cents(expected, entry.afterCents),
        stakeKey: cardBalanceStake(card.giftCardId),
        message: `card ${card.giftCardId}: entry ${entry.transactionId} is ${what} from ${money(entry.beforeCents, card.currency)}, so it should end at ${money(expected, card.currency)}, but it ends at ${money(entry.afterCents, card.currency)} — check how much the service really moved`,
        records: [cardRef(card.giftCardId), entryRef(entry.transactionId)],
      });
    }
    return findings;
  },
});
