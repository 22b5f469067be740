/**
 * The ledger beside a past night's books, for its matching to run again: the cards and the
 * payments and refunds as of the night's sync (the ledger stage's reads as of a sync), copied
 * into the scratch mirror that holds the books as the night's matching read them. The matching
 * reads the ledger from the books' first tender on, less its time window: only those entries are
 * copied.
 */
import { getTableColumns } from 'drizzle-orm';
import type { Mirror } from '../db/mirror.js';
import { giftCards, giftCardTransactions } from '../db/schema.js';
import { LedgerStore } from '../ledger/store.js';
import { EvidenceStore } from './store.js';

const CARD_COLUMNS = Object.values(getTableColumns(giftCards));
const ENTRY_COLUMNS = Object.values(getTableColumns(giftCardTransactions));

/** An entry's column's place in a row of ENTRY_COLUMNS. */
const at = (name: string): number => ENTRY_COLUMNS.findIndex((column) => column.name === name);
const TYPE = at('type');
const CREATED_AT_MS = at('created_at_ms');
const VANISHED = at('vanished_sync_run_id');

/** The entry types the matching pairs with the books' tenders. */
const TENDERS = new Set(['DEBIT', 'REFUND']);

/**
 * Copies into `scratch` the cards `mirror` held as of sync `syncRunId` and their payments and
 * refunds made from `fromMs` on, each as that sync left it (not vanished then).
 */
export async function ledgerForBooks(
  mirror: Mirror,
  syncRunId: number,
  fromMs: number,
  scratch: Mirror,
): Promise<void> {
  const { cards, entries } = new LedgerStore(mirror).ledgerCursors(CARD_COLUMNS, ENTRY_COLUMNS, undefined, syncRunId);
  const store = new EvidenceStore(scratch);
  // Only what the matching and the books' checks read by: a card by its ID (the primary key), an entry by its ID.
  await store.intoScratch(
    giftCards,
    CARD_COLUMNS.map((column) => column.name),
    cards,
  );
  await store.intoScratch(
    giftCardTransactions,
    ENTRY_COLUMNS.map((column) => column.name),
    tendersOf(entries, fromMs),
    ['gift_card_transactions_id'],
  );
}

/** The payments and refunds among `entries` made from `fromMs` on, each cut to its columns (the walk may key them) and not vanished. */
async function* tendersOf(entries: AsyncIterable<unknown[][]>, fromMs: number): AsyncGenerator<unknown[][]> {
  for await (const batch of entries) {
    const tenders = batch.flatMap((row) => {
      if (!TENDERS.has(row[TYPE] as string) || Number(row[CREATED_AT_MS]) < fromMs) return [];
      const entry = row.slice(0, ENTRY_COLUMNS.length);
      entry[VANISHED] = null;
      return [entry];
    });
    if (tenders.length > 0) yield tenders;
  }
}
