/**
 * Refunds by reference: a card's DEBITs and REFUNDs grouped by the order reference they name,
 * with what each group debited and refunded. The refund checks and the Refunds sheet read
 * these groups and nothing else (pure: no I/O).
 */
import type { LedgerEntry } from './types.js';

/** What grouping needs of an entry. */
export type ReferencedEntry = Pick<LedgerEntry, 'type' | 'referenceId' | 'amountCents'>;

/** One reference's DEBITs and REFUNDs on one card, in ledger order, and their sums. */
export interface ReferenceGroup<E extends ReferencedEntry> {
  debits: E[];
  refunds: E[];
  /** Σ the debits' amounts; null when one is off the cent (unknown, never guessed). */
  debitedCents: number | null;
  /** Σ the refunds' amounts; null when one is off the cent. */
  refundedCents: number | null;
}

/** A card's DEBITs and REFUNDs grouped by referenceId, in ledger order (the first reference seen first). */
export function byReference<E extends ReferencedEntry>(entries: readonly E[]): Map<string, ReferenceGroup<E>> {
  const groups = new Map<string, ReferenceGroup<E>>();
  for (const entry of entries) {
    if (entry.type !== 'DEBIT' && entry.type !== 'REFUND') continue;
    let group = groups.get(entry.referenceId);
    if (!group) {
      group = { debits: [], refunds: [], debitedCents: 0, refundedCents: 0 };
      groups.set(entry.referenceId, group);
    }
    const amount = entry.amountCents;
    if (entry.type === 'DEBIT') {
      group.debits.push(entry);
      group.debitedCents = amount === null || group.debitedCents === null ? null : group.debitedCents + amount;
    } else {
      group.refunds.push(entry);
      group.refundedCents = amount === null || group.refundedCents === null ? null : group.refundedCents + amount;
    }
  }
  return groups;
}

/** What a reference can still refund: debited − refunded; null when either is unknown. */
export function refundableLeftCents(group: ReferenceGroup<ReferencedEntry>): number | null {
  return group.debitedCents === null || group.refundedCents === null ? null : group.debitedCents - group.refundedCents;
}
