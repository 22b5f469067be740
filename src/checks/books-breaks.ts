/**
 * What the books checks share: the latest matching's groups (the books stage keeps them) turned
 * into drafts that name records on both sides, a books row by its file and line.
 */
import { matchGroups, type MatchGroup, type MatchRecord } from '../books/store.js';
import type { MatchStatus } from '../books/match.js';
import type { CheckContext, FindingDraft, RecordRef } from './check.js';
import { cardRef, couponRef, entryRef, isoUtc, money, orderRef } from './refs.js';

export const booksRowRef = (id: string): RecordRef => ({ type: 'booksRow', id });

/** The records a group names: books rows, entries with their cards, coupons, orders. */
export function groupRefs(group: MatchGroup): RecordRef[] {
  const refs = new Map<string, RecordRef>();
  for (const r of group.records) {
    const own = r.side === 'books' ? [booksRowRef(r.recordId)] : r.side === 'ledger' ? [...(r.giftCardId ? [cardRef(r.giftCardId)] : []), entryRef(r.recordId)] : r.side === 'coupon' ? [couponRef(r.recordId)] : [orderRef(r.recordId)];
    for (const ref of own) refs.set(`${ref.type} ${ref.id}`, ref);
  }
  return [...refs.values()];
}

/** Where a books row is: "tenders.csv line 12". */
export const placeOf = (r: MatchRecord): string => `${r.file ?? 'the books'} line ${r.line ?? '?'}`;

/** A record's amount as money, or "an amount" when it has none. */
export const amountOf = (r: MatchRecord): string => (r.amountCents !== null && r.currency !== null ? money(r.amountCents, r.currency) : 'an amount');

export const whenOf = (r: MatchRecord): string => (r.atMs !== null ? isoUtc(r.atMs) : 'an unknown time');

const BOOKS_TYPE: Record<string, string> = { DEBIT: 'payment', REFUND: 'refund' };
/** A tender as the books name it: payment or refund. */
export const booksType = (r: MatchRecord): string => BOOKS_TYPE[r.entryType ?? ''] ?? r.entryType ?? 'row';

export const sumOf = (records: readonly MatchRecord[]): number => records.reduce((total, r) => total + (r.amountCents ?? 0), 0);

export function sides(group: MatchGroup): { books: MatchRecord[]; service: MatchRecord[] } {
  return { books: group.records.filter((r) => r.side === 'books'), service: group.records.filter((r) => r.side !== 'books') };
}

/** Drafts for the groups of a kind in a state, one per group. */
export function draftsOf(context: CheckContext, kind: string, statuses: readonly MatchStatus[], draft: (group: MatchGroup) => FindingDraft | null): FindingDraft[] {
  return matchGroups(context.sqlite, kind, statuses).flatMap((group) => {
    const made = draft(group);
    return made ? [made] : [];
  });
}

/** A record left without a partner: a books row or a service record, as a finding about it. */
export function aloneDraft(record: MatchRecord, group: MatchGroup, message: string): FindingDraft {
  const entity =
    record.side === 'books'
      ? { entityType: 'booksRow' as const, entityId: record.recordId }
      : record.side === 'ledger'
        ? { entityType: 'giftCardTransaction' as const, entityId: record.recordId, ...(record.giftCardId ? { giftCardId: record.giftCardId } : {}) }
        : record.side === 'coupon'
          ? { entityType: 'coupon' as const, entityId: record.recordId }
          : { entityType: 'dpOrder' as const, entityId: record.recordId };
  return {
    ...entity,
    ...(record.reference !== null ? { referenceId: record.reference } : {}),
    ...(record.currency !== null ? { currency: record.currency } : {}),
    atStakeCents: record.amountCents ?? 0,
    message,
    records: groupRefs(group),
  };
}
