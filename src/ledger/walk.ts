/**
 * Streams every mirrored gift card with its ledger, oldest entry first, in one ordered pass
 * over two indexes (cards by ID, entries by card, createdAt, list order): memory holds one
 * card's entries at a time, whatever the mirror's size.
 */
import type { AnyColumn } from 'drizzle-orm';
import type { Mirror } from '../db/mirror.js';
import { giftCards, giftCardTransactions } from '../db/schema.js';
import type { RowOf } from '../db/typed-rows.js';
import { storedCents } from '../money.js';
import { LedgerStore } from './store.js';
import type { CardLedger, CardSnapshot, LedgerEntry } from './types.js';
import type { EntryFacts } from './state.js';

/** What following an entry's links needs of it. */
type LinkedEntry = Pick<LedgerEntry, 'createdAtMs' | 'beforeCents' | 'afterCents'>;

/** A card as the walk yields it, with what the roll-forward needs. */
export interface WalkedCard extends CardLedger {
  firstSyncRunId: number;
  entries: WalkedEntry[];
}

/** An entry with the sync that first mirrored it. */
export interface WalkedEntry extends LedgerEntry {
  firstSyncRunId: number;
}

/** What the walk reads of a card and of an entry, in this order: its rows' types come from these columns. */
export const CARD_COLUMNS = [
  giftCards.giftCardId,
  giftCards.merchantId,
  giftCards.status,
  giftCards.currency,
  giftCards.programId,
  giftCards.issuedAtMs,
  giftCards.initialBalanceCents,
  giftCards.remainingBalanceCents,
  giftCards.expiresAtMs,
  giftCards.readAtMs,
  giftCards.firstSyncRunId,
] as const;
const ENTRY_COLUMNS = [
  giftCardTransactions.giftCardId,
  giftCardTransactions.transactionId,
  giftCardTransactions.type,
  giftCardTransactions.amountCents,
  giftCardTransactions.balanceBeforeCents,
  giftCardTransactions.balanceAfterCents,
  giftCardTransactions.referenceId,
  giftCardTransactions.idempotencyKey,
  giftCardTransactions.createdAtMs,
  giftCardTransactions.listOrder,
  giftCardTransactions.firstSyncRunId,
] as const;

/** What the liability needs of an entry, in this order: the figures alone, for the period close's walk. */
const FIGURE_COLUMNS = [
  giftCardTransactions.giftCardId,
  giftCardTransactions.type,
  giftCardTransactions.amountCents,
  giftCardTransactions.balanceBeforeCents,
  giftCardTransactions.balanceAfterCents,
  giftCardTransactions.createdAtMs,
] as const;

/** How a walk reads an entry: its columns (the card's ID first) and the entry a row makes. */
interface EntryReader<C extends readonly AnyColumn[], E> {
  columns: C;
  cardOf(row: RowOf<C>): string;
  entry(row: RowOf<C>): E;
  /** A card's entries in ledger order, from the index's (createdAt, list order): mended by their links, or as read when order asks nothing. */
  order(entries: E[], initialCents: number | null): E[];
  /** When an entry was made, for an orphan's report; undefined when this reader does not read it (no orphans asked). */
  createdAtMs(entry: E): number;
}

const FULL: EntryReader<typeof ENTRY_COLUMNS, WalkedEntry> = {
  columns: ENTRY_COLUMNS,
  cardOf: (e) => e[0],
  entry: (e) => ({
    transactionId: e[1],
    type: e[2],
    amountCents: storedCents(e[3]),
    beforeCents: storedCents(e[4]),
    afterCents: storedCents(e[5]),
    referenceId: e[6],
    idempotencyKey: e[7],
    createdAtMs: e[8],
    listOrder: e[9],
    firstSyncRunId: e[10],
  }),
  order: orderByLinks,
  createdAtMs: (e) => e.createdAtMs,
};

const FIGURES: EntryReader<typeof FIGURE_COLUMNS, EntryFacts> = {
  columns: FIGURE_COLUMNS,
  cardOf: (e) => e[0],
  entry: (e) => ({
    type: e[1],
    amountCents: storedCents(e[2]),
    beforeCents: storedCents(e[3]),
    afterCents: storedCents(e[4]),
    createdAtMs: e[5],
  }),
  order: orderByLinks,
  createdAtMs: (e) => e.createdAtMs,
};

/** What a card's reconciliation needs of an entry, in this order: its type and amount, summed in any order. */
const SUM_COLUMNS = [
  giftCardTransactions.giftCardId,
  giftCardTransactions.type,
  giftCardTransactions.amountCents,
] as const;

/** An entry as a card's reconciliation sums it. */
export type SummedEntry = Pick<EntryFacts, 'type' | 'amountCents'>;

const SUMS: EntryReader<typeof SUM_COLUMNS, SummedEntry> = {
  columns: SUM_COLUMNS,
  cardOf: (e) => e[0],
  entry: (e) => ({ type: e[1], amountCents: storedCents(e[2]) }),
  // Sums ask no order: the entries stay as the index gives them.
  order: (entries) => entries,
  // Never asked: the sums' walk reports no orphans (the check's walk does).
  createdAtMs: () => Number.NaN,
};

/** Called for each entry whose card the mirror does not hold (GC_ORPHAN_ENTRY reports them). */
type OnOrphan = (giftCardId: string, createdAtMs: number) => void;

/**
 * Yields each card with its entries ordered by createdAt, equal timestamps by the service's
 * list order, then mended by the chain's own links ({@link orderByLinks}); never by ID.
 * Entries whose card is not mirrored are passed to `onOrphan` by card ID (GC_ORPHAN_ENTRY
 * reports them); entries a full pass found vanished are skipped (GC_LEDGER_REWRITTEN).
 * `only`: a JSON array of card IDs, to walk those cards alone (a report's flagged rows).
 */
export function walkCardLedgers(mirror: Mirror, onOrphan?: OnOrphan, only?: string): AsyncGenerator<WalkedCard[]> {
  return walk(new LedgerStore(mirror), FULL, onOrphan, only);
}

/**
 * The same walk over the mirror as it stood when sync `syncRunId` finished, rebuilt from its
 * history (a past night's population, re-performed; a past night's report): see LedgerStore's
 * cursors as of a sync. `only`: a JSON array of card IDs, to walk those cards alone.
 */
export function walkCardLedgersAsOf(
  mirror: Mirror,
  syncRunId: number,
  onOrphan?: OnOrphan,
  only?: string,
): AsyncGenerator<WalkedCard[]> {
  return walk(new LedgerStore(mirror), FULL, onOrphan, only, syncRunId);
}

/**
 * The same walk reading only what the liability needs of each entry (its figures, not its
 * identities): the period close's, a third faster over a large ledger.
 */
export function walkCardFigures(
  mirror: Mirror,
  onOrphan?: OnOrphan,
  asOfSync?: number,
): AsyncGenerator<Array<{ card: CardSnapshot; entries: EntryFacts[] }>> {
  return walk(new LedgerStore(mirror), FIGURES, onOrphan, undefined, asOfSync);
}

/**
 * The walk of the cards in `only` (a JSON array of IDs), or of every card, as sync `asOfSync`
 * left them, reading what a card's reconciliation sums (a past night's Card sheet): each entry's
 * type and amount, in no particular order (the sums ask none).
 */
export function walkCardSumsOf(
  mirror: Mirror,
  only: string | undefined,
  asOfSync: number,
): AsyncGenerator<Array<{ card: CardSnapshot; entries: SummedEntry[] }>> {
  return walk(new LedgerStore(mirror), SUMS, undefined, only, asOfSync);
}

/** A card's snapshot from its row of the walk's cards cursor. */
export function snapshotOf(row: RowOf<typeof CARD_COLUMNS>): CardSnapshot {
  return {
    giftCardId: row[0],
    merchantId: row[1],
    status: row[2],
    currency: row[3],
    programId: row[4],
    issuedAtMs: row[5],
    initialCents: storedCents(row[6]),
    remainingCents: storedCents(row[7]),
    expiresAtMs: row[8],
    readAtMs: row[9],
  };
}

/**
 * Cards handed out per batch. Few: a card held in a batch while the checks allocate outlives a
 * young-generation collection and is promoted (512 a batch: the 1M check's peak RSS 351 MB, its
 * walk 2.3 s; 16: 285 MB and 1.8 s, as the synchronous walk); one a batch costs a promise per card.
 */
const CARDS_PER_BATCH = 16;

async function* walk<C extends readonly AnyColumn[], E>(
  store: LedgerStore,
  reader: EntryReader<C, E>,
  onOrphan: OnOrphan | undefined,
  only: string | undefined,
  asOfSync?: number,
  onAThread = false,
): AsyncGenerator<Array<{ card: CardSnapshot; entries: E[]; firstSyncRunId: number }>> {
  const { cards, entries } = store.ledgerCursors(CARD_COLUMNS, reader.columns, only, asOfSync, onAThread);
  const cardOf = reader.cardOf;
  // The entries' cursor, a batch at a time: `pending` is the next entry (undefined: none left).
  let batch: Array<RowOf<C>> = [];
  let at = 0;
  const nextEntry = async (): Promise<RowOf<C> | undefined> => {
    const next = await entries.next();
    if (next.done) return undefined;
    batch = next.value;
    at = 0;
    return batch[at++];
  };
  let pending = await nextEntry();
  let out: Array<{ card: CardSnapshot; entries: E[]; firstSyncRunId: number }> = [];
  try {
    for await (const rows of cards) {
      for (const row of rows) {
        const card = snapshotOf(row);
        // IDs are ASCII UUIDs, ordered byte by byte by the cursors: as JavaScript compares them.
        while (pending !== undefined && cardOf(pending) < card.giftCardId) {
          onOrphan?.(cardOf(pending), reader.createdAtMs(reader.entry(pending)));
          pending = at < batch.length ? batch[at++] : await nextEntry();
        }
        const own: E[] = [];
        while (pending !== undefined && cardOf(pending) === card.giftCardId) {
          own.push(reader.entry(pending));
          pending = at < batch.length ? batch[at++] : await nextEntry();
        }
        out.push({ card, entries: reader.order(own, card.initialCents), firstSyncRunId: row[10] });
        if (out.length === CARDS_PER_BATCH) {
          yield out;
          out = [];
        }
      }
    }
    if (out.length > 0) yield out;
    for (; pending !== undefined; pending = at < batch.length ? batch[at++] : await nextEntry())
      onOrphan?.(cardOf(pending), reader.createdAtMs(reader.entry(pending)));
  } finally {
    await entries.return(undefined);
    await cards.return(undefined);
  }
}

/**
 * Within each run of entries sharing one createdAt (already in list order), follows the
 * chain's own links: the order, among those that keep balanceBefore equal to the balance so
 * far at every step, that stays closest to list order; when none links up, list order stands.
 * A chain that is whole in some order is never reported broken because two entries share a
 * millisecond.
 */
export function orderByLinks<T extends LinkedEntry>(entries: readonly T[], initialCents: number | null): T[] {
  const result: T[] = [];
  let balance = initialCents;
  let i = 0;
  while (i < entries.length) {
    let j = i + 1;
    const at = entries[i]?.createdAtMs;
    while (j < entries.length && entries[j]?.createdAtMs === at) j += 1;
    const group = entries.slice(i, j);
    const linked = group.length > 1 && group.length <= MAX_LINKED_GROUP ? linkUp(group, balance) : null;
    for (const entry of linked ?? group) {
      result.push(entry);
      balance = entry.afterCents;
    }
    i = j;
  }
  return result;
}

/** Equal-timestamp groups are a handful of entries; beyond this, list order stands. */
const MAX_LINKED_GROUP = 8;

/** A depth-first search for an order of `group` whose links all hold, from `balance`. */
function linkUp<T extends LinkedEntry>(group: readonly T[], balance: number | null): T[] | null {
  if (balance === null) return null;
  const used = new Array<boolean>(group.length).fill(false);
  const path: T[] = [];
  const search = (current: number | null): boolean => {
    if (path.length === group.length) return true;
    for (let k = 0; k < group.length; k += 1) {
      const entry = group[k] as T;
      if (used[k] || current === null || entry.beforeCents !== current) continue;
      used[k] = true;
      path.push(entry);
      if (search(entry.afterCents)) return true;
      path.pop();
      used[k] = false;
    }
    return false;
  };
  return search(balance) ? path : null;
}
