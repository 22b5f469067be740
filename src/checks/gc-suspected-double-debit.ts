import { byReference } from '../ledger/references.js';
import { cardCheck, type FindingDraft } from './check.js';
import { cardRef, entryRef, money } from './refs.js';

export const gcSuspectedDoubleDebit = cardCheck({
  kind: 'card',
  code: 'GC_SUSPECTED_DOUBLE_DEBIT',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Same debit twice within a minute',
  description:
    'Two DEBITs on one card for the same amount under the same order reference within the double-debit window (default 60 s), under different idempotency keys, look like a checkout that charged twice because a retry did not reuse its key. Confirm with the merchant whether two purchases were meant.',
  timeSensitive: false,
  inspect({ card, entries }, { options }) {
    const findings: FindingDraft[] = [];
    const windowMs = options.doubleDebitWindowSeconds * 1000;
    for (const [referenceId, { debits }] of byReference(entries)) {
      for (let i = 1; i < debits.length; i += 1) {
        const second = debits[i];
        const first = debits
          .slice(0, i)
          .find(
            (d) =>
              second &&
              d.amountCents === second.amountCents &&
              d.idempotencyKey !== second.idempotencyKey &&
              second.createdAtMs - d.createdAtMs <= windowMs,
          );
        if (!first || !second) continue;
        findings.push({
          entityType: 'giftCard',
          entityId: card.giftCardId,
          giftCardId: card.giftCardId,
          referenceId,
          currency: card.currency,
          identity: [second.transactionId],
          atStakeCents: second.amountCents ?? 0,
          message: `card ${card.giftCardId}: debits ${first.transactionId} and ${second.transactionId} both take ${money(second.amountCents ?? 0, card.currency)} under reference ${referenceId}, ${Math.round((second.createdAtMs - first.createdAtMs) / 1000)} s apart with different idempotency keys — ask whether the customer was charged twice`,
          records: [cardRef(card.giftCardId), entryRef(first.transactionId), entryRef(second.transactionId)],
        });
      }
    }
    return findings;
  },
});
