/**
 * Two-sided matching of the merchant's tenders and refunds against the gift card ledger: the
 * rules in order, each naming the pairs it matched (DESIGN.md, "The merchant's books"). Pure:
 * rows in, groups out; what the mirror holds and keeps is matching.ts's.
 *
 * 1. exact: reference, type, currency and amount to the cent. Several books rows and several
 *    entries on more than one card under one such key pair up by the card the books name, or
 *    the key is ambiguous (reported, never guessed); more books rows than entries are duplicates.
 * 2. tolerance: reference, type and currency, amounts within the currency's tolerance and times
 *    within the window (only where a tolerance is set).
 * 3. one-to-many: what is left of a reference, type and currency adds up to the same on both
 *    sides (a split tender, a refund in parts).
 * 4. code hash: a books row naming a card (its code's SHA-256 or its ID) matches an entry of
 *    that card of the same type and amount within the window, whatever the reference.
 * What is still left under one reference on both sides is an amount mismatch; the rest is
 * unmatched, or in transit when it lies within the cut-off of the end of the data.
 */

export type TenderType = 'DEBIT' | 'REFUND';

export interface BooksTender {
  rowId: number;
  reference: string | null;
  type: TenderType;
  amountCents: number;
  currency: string;
  atMs: number;
  /** The card the books name: resolved from its code's hash or its ID, when they name one. */
  giftCardId: string | null;
}

export interface LedgerTender {
  transactionId: string;
  giftCardId: string;
  type: TenderType;
  amountCents: number;
  currency: string;
  reference: string;
  atMs: number;
}

export type MatchRule = 'exact' | 'tolerance' | 'one-to-many' | 'code-hash';
export type MatchStatus =
  | 'matched'
  | 'amount-mismatch'
  | 'duplicate'
  | 'ambiguous'
  | 'unmatched'
  | 'in-transit'
  | 'uses-mismatch';

export interface TenderGroup {
  status: MatchStatus;
  rule: MatchRule | null;
  books: BooksTender[];
  ledger: LedgerTender[];
}

export interface MatchOptions {
  /** Cents per currency an amount may differ by and still match (default 0). */
  toleranceCents: Readonly<Record<string, number>>;
  /** How far apart in time a books row and an entry may be for the tolerance and code-hash rules. */
  windowMs: number;
  /** Unmatched within this of the end of the data is in transit, not a break. */
  cutoffMs: number;
}

export const DEFAULT_MATCH_OPTIONS: MatchOptions = {
  toleranceCents: {},
  windowMs: 3 * 86_400_000,
  cutoffMs: 3_600_000,
};

const keyOf = (row: { reference: string | null; type: TenderType; currency: string }): string =>
  `${row.type}\u0000${row.currency}\u0000${row.reference ?? ''}`;
const byTime = <T extends { atMs: number }>(a: T, b: T): number => a.atMs - b.atMs;
const sum = (rows: ReadonlyArray<{ amountCents: number }>): number =>
  rows.reduce((total, row) => total + row.amountCents, 0);

/** Rows by a key, each group in the rows' order. */
export function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/**
 * Matches books tenders against ledger entries.
 * @param endMs the end of the data: the earlier of the books' newest row and the sync's start.
 */
export function matchTenders(
  books: readonly BooksTender[],
  ledger: readonly LedgerTender[],
  options: MatchOptions,
  endMs: number,
): TenderGroup[] {
  const m: Matching = { groups: [], leftBooks: new Set(), leftLedger: new Set() };
  exactPass(m, books, ledger);
  tolerancePass(m, options);
  oneToManyPass(m);
  codeHashPass(m, options);
  return leftoverPass(m, options, endMs);
}

/** The groups made so far, and the rows of each side no group holds yet. */
interface Matching {
  groups: TenderGroup[];
  leftBooks: Set<BooksTender>;
  leftLedger: Set<LedgerTender>;
}

/** What is left, grouped by reference: the books rows that have one, and the entries. */
function pending({ leftBooks, leftLedger }: Matching): {
  bookRows: Map<string, BooksTender[]>;
  entries: Map<string, LedgerTender[]>;
} {
  return {
    bookRows: groupBy([...leftBooks].filter((b) => b.reference !== null).sort(byTime), keyOf),
    entries: groupBy([...leftLedger].sort(byTime), keyOf),
  };
}

/** 1. exact: a reference and an amount on both sides. */
function exactPass(
  { groups, leftBooks, leftLedger }: Matching,
  books: readonly BooksTender[],
  ledger: readonly LedgerTender[],
): void {
  const booksByKey = groupBy([...books].sort(byTime), keyOf);
  const ledgerByKey = groupBy([...ledger].sort(byTime), keyOf);
  for (const [key, bookRows] of booksByKey) {
    const entries = ledgerByKey.get(key) ?? [];
    const entriesByAmount = groupBy(entries, (e) => String(e.amountCents));
    for (const [amount, sameBooks] of groupBy(bookRows, (b) => String(b.amountCents))) {
      const sameEntries = entriesByAmount.get(amount) ?? [];
      entriesByAmount.delete(amount);
      exact(sameBooks, sameEntries, groups, leftBooks, leftLedger);
    }
  }
  for (const [key, entries] of ledgerByKey) {
    const bookRows = booksByKey.get(key) ?? [];
    const amounts = new Set(bookRows.map((b) => b.amountCents));
    for (const entry of entries) if (!amounts.has(entry.amountCents)) leftLedger.add(entry);
  }
}

/** 2. tolerance: within a reference, the nearest amount within the currency's tolerance and the window. */
function tolerancePass(m: Matching, options: MatchOptions): void {
  const { groups, leftBooks, leftLedger } = m;
  const left = pending(m);
  for (const [key, bookRows] of left.bookRows) {
    const entries = left.entries.get(key) ?? [];
    for (const row of bookRows) {
      const tolerance = options.toleranceCents[row.currency] ?? 0;
      if (tolerance <= 0) break;
      const partner = entries
        .filter(
          (e) =>
            leftLedger.has(e) &&
            Math.abs(e.amountCents - row.amountCents) <= tolerance &&
            Math.abs(e.atMs - row.atMs) <= options.windowMs,
        )
        .sort(
          (a, b) =>
            Math.abs(a.amountCents - row.amountCents) - Math.abs(b.amountCents - row.amountCents) ||
            Math.abs(a.atMs - row.atMs) - Math.abs(b.atMs - row.atMs),
        )[0];
      if (partner)
        take(groups, leftBooks, leftLedger, { status: 'matched', rule: 'tolerance', books: [row], ledger: [partner] });
    }
  }
}

/** 3. one-to-many: within a reference, what is left on each side sums to the same. */
function oneToManyPass(m: Matching): void {
  const { groups, leftBooks, leftLedger } = m;
  const left = pending(m);
  for (const [key, bookRows] of left.bookRows) {
    const restBooks = bookRows.filter((b) => leftBooks.has(b));
    const restEntries = (left.entries.get(key) ?? []).filter((e) => leftLedger.has(e));
    if (restBooks.length === 0 || restEntries.length === 0 || restBooks.length + restEntries.length < 3) continue;
    if (sum(restBooks) === sum(restEntries))
      take(groups, leftBooks, leftLedger, {
        status: 'matched',
        rule: 'one-to-many',
        books: restBooks,
        ledger: restEntries,
      });
  }
}

/** 4. code hash: the card the books name, whatever the reference. */
function codeHashPass({ groups, leftBooks, leftLedger }: Matching, options: MatchOptions): void {
  const entriesByCard = groupBy([...leftLedger].sort(byTime), (e) => `${e.giftCardId}\u0000${e.type}`);
  for (const row of [...leftBooks].sort(byTime)) {
    if (row.giftCardId === null) continue;
    const tolerance = options.toleranceCents[row.currency] ?? 0;
    const partner = (entriesByCard.get(`${row.giftCardId}\u0000${row.type}`) ?? [])
      .filter(
        (e) =>
          leftLedger.has(e) &&
          e.currency === row.currency &&
          Math.abs(e.amountCents - row.amountCents) <= tolerance &&
          Math.abs(e.atMs - row.atMs) <= options.windowMs,
      )
      .sort((a, b) => Math.abs(a.atMs - row.atMs) - Math.abs(b.atMs - row.atMs))[0];
    if (partner)
      take(groups, leftBooks, leftLedger, { status: 'matched', rule: 'code-hash', books: [row], ledger: [partner] });
  }
}

/** What is left: a reference on both sides whose amounts differ, or one side alone (in transit near the end). */
function leftoverPass(m: Matching, options: MatchOptions, endMs: number): TenderGroup[] {
  const { groups, leftBooks, leftLedger } = m;
  const left = pending(m);
  for (const [key, bookRows] of left.bookRows) {
    const restBooks = bookRows.filter((b) => leftBooks.has(b));
    const restEntries = (left.entries.get(key) ?? []).filter((e) => leftLedger.has(e));
    if (restBooks.length > 0 && restEntries.length > 0)
      take(groups, leftBooks, leftLedger, {
        status: 'amount-mismatch',
        rule: null,
        books: restBooks,
        ledger: restEntries,
      });
  }
  const transitFrom = endMs - options.cutoffMs;
  const alone = (atMs: number): MatchStatus => (atMs >= transitFrom ? 'in-transit' : 'unmatched');
  for (const row of [...leftBooks].sort(byTime))
    groups.push({ status: alone(row.atMs), rule: null, books: [row], ledger: [] });
  for (const entry of [...leftLedger].sort(byTime))
    groups.push({ status: alone(entry.atMs), rule: null, books: [], ledger: [entry] });
  return groups;
}

/** Moves a group's rows out of what is left, and keeps the group. */
function take(
  groups: TenderGroup[],
  leftBooks: Set<BooksTender>,
  leftLedger: Set<LedgerTender>,
  group: TenderGroup,
): void {
  for (const row of group.books) leftBooks.delete(row);
  for (const entry of group.ledger) leftLedger.delete(entry);
  groups.push(group);
}

/**
 * The exact rule on one key (reference, type, currency, amount), books and entries in time
 * order. One entry takes the first books row; the books rows beyond it are duplicates. Several
 * on both sides pair by the card each books row names, or the whole key is ambiguous.
 */
function exact(
  bookRows: BooksTender[],
  entries: LedgerTender[],
  groups: TenderGroup[],
  leftBooks: Set<BooksTender>,
  leftLedger: Set<LedgerTender>,
): void {
  if (entries.length === 0) {
    for (const row of bookRows) leftBooks.add(row);
    return;
  }
  // Equal entries on one card are interchangeable: pairing them any way means the same.
  if (bookRows.length >= 2 && entries.length >= 2 && new Set(entries.map((e) => e.giftCardId)).size > 1) {
    if (bookRows.every((b) => b.giftCardId !== null)) {
      const free = [...entries];
      for (const row of bookRows) {
        const at = free.findIndex((e) => e.giftCardId === row.giftCardId);
        if (at < 0) leftBooks.add(row);
        else groups.push({ status: 'matched', rule: 'exact', books: [row], ledger: free.splice(at, 1) });
      }
      for (const entry of free) leftLedger.add(entry);
      return;
    }
    groups.push({ status: 'ambiguous', rule: null, books: bookRows, ledger: entries });
    return;
  }
  const pairs = Math.min(bookRows.length, entries.length);
  for (let i = 0; i < pairs; i += 1)
    groups.push({ status: 'matched', rule: 'exact', books: [bookRows[i]!], ledger: [entries[i]!] });
  // One entry, more books rows: the books recorded it more than once.
  for (const row of bookRows.slice(pairs))
    groups.push({ status: 'duplicate', rule: null, books: [row], ledger: [entries[0]!] });
  for (const entry of entries.slice(pairs)) leftLedger.add(entry);
}
