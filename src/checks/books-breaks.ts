/**
 * What the books checks share: the latest matching's groups (the books stage keeps them) turned
 * into drafts that name records on both sides, a books row by its file and line.
 */
import type { MatchGroup, MatchRecord } from '../books/store.js';
import type { MatchStatus } from '../books/match.js';
import type { FindingDraft, RecordRef, RecordType } from './check.js';
import { cardRef, isoUtc, money } from './refs.js';

/** The record type of each side of a match: a books row, a ledger entry, a coupon, a DP order. */
const SIDE_TYPE: Record<MatchRecord['side'], RecordType> = {
  books: 'booksRow',
  ledger: 'giftCardTransaction',
  coupon: 'coupon',
  'dp-order': 'dpOrder',
};

/** The records a group names: books rows, entries with their cards, coupons, orders. */
export function groupRefs(group: MatchGroup): RecordRef[] {
  const refs = new Map<string, RecordRef>();
  for (const r of group.records) {
    const own: RecordRef[] = [
      ...(r.side === 'ledger' && r.giftCardId ? [cardRef(r.giftCardId)] : []),
      { type: SIDE_TYPE[r.side], id: r.recordId },
    ];
    for (const ref of own) refs.set(`${ref.type} ${ref.id}`, ref);
  }
  return [...refs.values()];
}

/** Where a books row is: "tenders.csv line 12". */
export const placeOf = (r: MatchRecord): string => `${r.file ?? 'the books'} line ${r.line ?? '?'}`;

/** A record's amount as money, or "an amount" when it has none. */
export const amountOf = (r: MatchRecord): string =>
  r.amountCents !== null && r.currency !== null ? money(r.amountCents, r.currency) : 'an amount';

export const whenOf = (r: MatchRecord): string => (r.atMs !== null ? isoUtc(r.atMs) : 'an unknown time');

const BOOKS_TYPE: Record<string, string> = { DEBIT: 'payment', REFUND: 'refund' };
/** A tender as the books name it: payment or refund. */
export const booksType = (r: MatchRecord): string => BOOKS_TYPE[r.entryType ?? ''] ?? r.entryType ?? 'row';

export const sumOf = (records: readonly MatchRecord[]): number =>
  records.reduce((total, r) => total + (r.amountCents ?? 0), 0);

export function sides(group: MatchGroup): { books: MatchRecord[]; service: MatchRecord[] } {
  return {
    books: group.records.filter((r) => r.side === 'books'),
    service: group.records.filter((r) => r.side !== 'books'),
  };
}

/** Drafts for the groups (as the check read them) of a kind in a state, one per group: pure. */
export function draftsOf(
  groups: readonly MatchGroup[],
  kind: string,
  statuses: readonly MatchStatus[],
  draft: (group: MatchGroup) => FindingDraft | null,
): FindingDraft[] {
  return groups.flatMap((group) => {
    if (group.kind !== kind || !statuses.includes(group.status)) return [];
    const made = draft(group);
    return made ? [made] : [];
  });
}

/** A record left without a partner: a books row or a service record, as a finding about it. */
export function aloneDraft(record: MatchRecord, group: MatchGroup, message: string): FindingDraft {
  return {
    entityType: SIDE_TYPE[record.side],
    entityId: record.recordId,
    ...(record.side === 'ledger' && record.giftCardId ? { giftCardId: record.giftCardId } : {}),
    ...(record.reference !== null ? { referenceId: record.reference } : {}),
    ...(record.currency !== null ? { currency: record.currency } : {}),
    atStakeCents: record.amountCents ?? 0,
    message,
    records: groupRefs(group),
  };
}
