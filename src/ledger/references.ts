/**
 * Refunds by reference: a card's DEBITs and REFUNDs grouped by the order reference they name,
 * with what each group debited and refunded. The refund checks and the Refunds sheet read
 * these groups and nothing else (pure: no I/O).
 */
import { type Cents, minusCents, plusCents, ZERO_CENTS } from '../money.js';
import type { LedgerEntry } from './types.js';

/** What grouping needs of an entry. */
export type ReferencedEntry = Pick<LedgerEntry, 'type' | 'referenceId' | 'amountCents'>;

/** One reference's DEBITs and REFUNDs on one card, in ledger order, and their sums. */
export interface ReferenceGroup<E extends ReferencedEntry> {
  debits: E[];
  refunds: E[];
  /** Σ the debits' amounts; null when one is off the cent (unknown, never guessed). */
  debitedCents: Cents | null;
  /** Σ the refunds' amounts; null when one is off the cent. */
  refundedCents: Cents | null;
}

/**
 * The last card's groups, by its entries: the walk hands each card to the three reference checks
 * and to the kept figures, and each asks for the same groups (a million cards: grouped once, not
 * four times). The entries of a card do not change once it is walked.
 */
let last: { entries: readonly ReferencedEntry[]; groups: Map<string, ReferenceGroup<ReferencedEntry>> } | null = null;

/**
 * A card's DEBITs and REFUNDs grouped by referenceId, in ledger order (the first reference seen
 * first). The groups are shared with the next caller that asks for the same entries: read them,
 * never change them.
 */
export function byReference<E extends ReferencedEntry>(entries: readonly E[]): Map<string, ReferenceGroup<E>> {
  if (last?.entries === entries) return last.groups as Map<string, ReferenceGroup<E>>;
  const groups = new Map<string, ReferenceGroup<E>>();
  for (const entry of entries) {
    if (entry.type !== 'DEBIT' && entry.type !== 'REFUND') continue;
    let group = groups.get(entry.referenceId);
    if (!group) {
      group = { debits: [], refunds: [], debitedCents: ZERO_CENTS, refundedCents: ZERO_CENTS };
      groups.set(entry.referenceId, group);
    }
    const amount = entry.amountCents;
    if (entry.type === 'DEBIT') {
      group.debits.push(entry);
      group.debitedCents =
        amount === null || group.debitedCents === null ? null : plusCents(group.debitedCents, amount);
    } else {
      group.refunds.push(entry);
      group.refundedCents =
        amount === null || group.refundedCents === null ? null : plusCents(group.refundedCents, amount);
    }
  }
  last = { entries, groups: groups as Map<string, ReferenceGroup<ReferencedEntry>> };
  return groups;
}

/** What a reference can still refund: debited − refunded; null when either is unknown. */
export function refundableLeftCents(group: Pick<RefundGroup, 'debitedCents' | 'refundedCents'>): Cents | null {
  return group.debitedCents === null || group.refundedCents === null
    ? null
    : minusCents(group.debitedCents, group.refundedCents);
}

/** A reference with a refund on one card, as the Refunds by reference sheet lists it (and a run keeps it). */
export interface RefundGroup {
  referenceId: string;
  /** How many debits and refunds name it. */
  debits: number;
  refunds: number;
  debitedCents: Cents | null;
  refundedCents: Cents | null;
  /** The refunds' transaction IDs, in ledger order: the findings about them are the row's too. */
  refundIds: string[];
}

/** A card's references with a refund, in ledger order (the first reference seen first). */
export function refundGroupsOf(entries: readonly (ReferencedEntry & { transactionId: string })[]): RefundGroup[] {
  const out: RefundGroup[] = [];
  for (const [referenceId, group] of byReference(entries)) {
    if (group.refunds.length === 0) continue;
    out.push({
      referenceId,
      debits: group.debits.length,
      refunds: group.refunds.length,
      debitedCents: group.debitedCents,
      refundedCents: group.refundedCents,
      refundIds: group.refunds.map((refund) => refund.transactionId),
    });
  }
  return out;
}
