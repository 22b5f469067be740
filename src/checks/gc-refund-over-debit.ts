import { cardCheck, type FindingDraft, type LedgerEntry } from './check.js';
import { cardRef, cents, entryRef, money } from './refs.js';

/** DEBITs and REFUNDs of one card grouped by referenceId, in ledger order. */
export function byReference(
  entries: readonly LedgerEntry[],
): Map<string, { debits: LedgerEntry[]; refunds: LedgerEntry[] }> {
  const groups = new Map<string, { debits: LedgerEntry[]; refunds: LedgerEntry[] }>();
  for (const entry of entries) {
    if (entry.type !== 'DEBIT' && entry.type !== 'REFUND') continue;
    let group = groups.get(entry.referenceId);
    if (!group) {
      group = { debits: [], refunds: [] };
      groups.set(entry.referenceId, group);
    }
    (entry.type === 'DEBIT' ? group.debits : group.refunds).push(entry);
  }
  return groups;
}

const total = (entries: readonly LedgerEntry[]): number | null => {
  let sum = 0;
  for (const entry of entries) {
    if (entry.amountCents === null) return null;
    sum += entry.amountCents;
  }
  return sum;
};

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
      const debited = total(group.debits);
      const refunded = total(group.refunds);
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
