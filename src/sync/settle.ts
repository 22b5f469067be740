import type Database from 'better-sqlite3';
import { PayloadValidationError } from '../errors.js';
import { mapLimit, type SyncContext } from './context.js';
import { readCard } from './giftcards.js';
import { topUpLedgerHead } from './ledger.js';
import { giftCardRow } from './rows.js';

interface CardState {
  gift_card_id: string;
  version: number;
  status: string;
  remaining: number | null;
  updated_at_ms: number;
  tail_after: number | null;
  tail_created_ms: number;
  read_sync_run_id: number;
}

/**
 * Each card in the temporary table `settle_cards` that has ledger entries, with its newest
 * entry: two backward seeks per card into the covering index gift_card_transactions_card.
 * CROSS JOIN keeps the listed cards as the outer loop, so unlisted cards are never sought.
 */
const newestEntry = (column: string): string => `(
  SELECT t.${column} FROM gift_card_transactions t WHERE t.gift_card_id = c.gift_card_id AND t.vanished_sync_run_id IS NULL
  ORDER BY t.created_at_ms DESC, t.list_order DESC LIMIT 1)`;
const CARD_STATE_SQL = `
  SELECT * FROM (
    SELECT c.gift_card_id, c.version, c.status, c.remaining_balance_cents AS remaining, c.updated_at_ms, c.read_sync_run_id,
           ${newestEntry('balance_after_cents')} AS tail_after, ${newestEntry('created_at_ms')} AS tail_created_ms
    FROM temp.settle_cards s CROSS JOIN gift_cards c ON c.gift_card_id = s.gift_card_id)
  WHERE tail_created_ms IS NOT NULL`;

/**
 * Cards whose snapshot may be older than their ledger: entries first mirrored since the last
 * completed sync (@since), by this sync or by one killed before it re-read their cards; a
 * snapshot changed in this sync; and the cards a sync since @since (or @since itself) found in
 * flight, read again whether or not they moved since.
 */
const ACTIVE_CARDS = `
  SELECT DISTINCT gift_card_id FROM gift_card_transactions WHERE first_sync_run_id > @since
  UNION SELECT gift_card_id FROM gift_card_history WHERE sync_run_id = @run
  UNION SELECT gift_card_id FROM gift_cards_in_flight WHERE sync_run_id >= @since AND sync_run_id < @run`;

/** The newest sync before @run that completed (0: none). */
const LAST_COMPLETED = `SELECT COALESCE(MAX(sync_run_id), 0) FROM sync_runs WHERE status = 'completed' AND sync_run_id < ?`;

/** Makes the temporary table `settle_cards` hold the given cards, or every mirrored card. */
function fillSettleCards(sqlite: Database.Database, cards: Iterable<string> | 'all'): void {
  sqlite.exec('CREATE TEMP TABLE IF NOT EXISTS settle_cards (gift_card_id TEXT PRIMARY KEY); DELETE FROM temp.settle_cards;');
  if (cards === 'all') {
    sqlite.exec('INSERT INTO temp.settle_cards SELECT gift_card_id FROM gift_cards');
    return;
  }
  const insert = sqlite.prepare('INSERT OR IGNORE INTO temp.settle_cards VALUES (?)');
  // One transaction: committed one by one, each insert wrote a page and its journal copy to
  // the temporary file (165 MB for the 4,780 cards a 1 % night moves).
  sqlite.transaction(() => {
    for (const id of cards) insert.run(id);
  })();
}

/** A card snapshot disagrees with its ledger, or its ledger moved after the snapshot. */
const disagrees = (s: CardState): boolean => s.tail_after !== s.remaining || s.tail_created_ms > s.updated_at_ms;

/**
 * Checking like with like in time. Cards whose snapshot disagrees with their ledger, or
 * whose ledger moved this run after the snapshot, are read again by ID; the ledger head is
 * topped up; then a card that still disagrees because it kept moving (its version changed
 * between the reads, or entries arrived after its snapshot) is recorded as in flight for the
 * checker's GC_IN_FLIGHT. One that disagrees without moving is left for the checker: a break.
 * Finally, cards the ledger names but the mirror lacks are read by ID; a 404 marks them missing.
 */
export async function settle(context: SyncContext): Promise<void> {
  const { sqlite, writer, syncRunId } = context;
  const stats = context.stats.settle;
  const started = Date.now();
  // Comparing every card with its ledger takes a while on a large mirror: the line says so.
  stats.notes['comparing'] = 1;
  context.progress.update('settle', stats);
  // Which cards can disagree with their ledger: all on a full pass (the whole ledger was read
  // again); otherwise those with new entries or a changed snapshot: the active ones.
  const since = sqlite.prepare(LAST_COMPLETED).pluck().get(syncRunId) as number;
  const activeCards = () => new Set(sqlite.prepare(ACTIVE_CARDS).pluck().all({ run: syncRunId, since }) as string[]);
  let active = context.mode === 'full' ? undefined : activeCards();
  fillSettleCards(sqlite, active ?? 'all');
  const before = sqlite.prepare(CARD_STATE_SQL).all() as CardState[];
  // Re-read by ID: a card that disagrees, and an active one whose snapshot is older than this
  // run. On a first sync every snapshot is this run's: the active cards are never asked for.
  const candidates = before.filter((s) => disagrees(s) || (s.read_sync_run_id !== syncRunId && (active ??= activeCards()).has(s.gift_card_id)));
  const firstRead = new Map(candidates.map((s) => [s.gift_card_id, s]));
  delete stats.notes['comparing'];
  // Each card read again moves the line on (a resumed first sync re-reads every card: minutes).
  stats.expected = candidates.length;
  const reread = await mapLimit(candidates, context.concurrency, async (s) => {
    const read = { id: s.gift_card_id, record: await readCard(context, s.gift_card_id), readAtMs: Date.now() };
    stats.records += 1;
    context.progress.update('settle', stats);
    return read;
  });
  writer.transaction(() => {
    for (const { id, record, readAtMs } of reread) {
      if (record === 'missing') writer.missingCard(id, syncRunId, readAtMs);
      else if (record instanceof PayloadValidationError) writer.quarantine('giftCards', record, syncRunId);
      else writer.card(giftCardRow(record), syncRunId, readAtMs);
    }
  });
  stats.notes['cardsReread'] = reread.length;

  const added = await topUpLedgerHead(context);
  stats.notes['entriesToppedUp'] = added.length;
  stats.new += added.length;

  const inFlight = judgeMovedCards(context, [...candidates.map((s) => s.gift_card_id), ...cardsOf(context, added)], firstRead);
  stats.notes['inFlight'] = inFlight;
  stats.notes['lookingUp'] = 1;
  context.progress.update('settle', stats);
  stats.notes['missingCards'] = await readUnknownCards(context);
  delete stats.notes['lookingUp'];
  stats.records = reread.length;
  stats.durationMs = Date.now() - started;
  context.progress.done('settle', stats);
}

/** Cards the ledger names that the mirror does not hold: read each; a 404 marks it missing. */
async function readUnknownCards(context: SyncContext): Promise<number> {
  const { sqlite, writer, syncRunId } = context;
  // A full pass looks at every entry; otherwise this run's new entries and the cards already missing.
  const scope = context.mode === 'full' ? '' : 'AND (t.first_sync_run_id = @run OR t.gift_card_id IN (SELECT gift_card_id FROM missing_gift_cards))';
  const unknown = sqlite
    .prepare(
      `SELECT DISTINCT t.gift_card_id FROM gift_card_transactions t
       LEFT JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
       LEFT JOIN missing_gift_cards m ON m.gift_card_id = t.gift_card_id AND m.sync_run_id = @run
       WHERE c.gift_card_id IS NULL AND m.gift_card_id IS NULL AND t.vanished_sync_run_id IS NULL ${scope}`,
    )
    .pluck()
    .all({ run: syncRunId }) as string[];
  const results = await mapLimit(unknown, context.concurrency, async (id) => ({ id, record: await readCard(context, id), readAtMs: Date.now() }));
  let missing = 0;
  writer.transaction(() => {
    for (const { id, record, readAtMs } of results) {
      if (record === 'missing') {
        writer.missingCard(id, syncRunId, readAtMs);
        missing += 1;
      } else if (record instanceof PayloadValidationError) {
        writer.quarantine('giftCards', record, syncRunId);
      } else {
        writer.foundCard(id);
        writer.card(giftCardRow(record), syncRunId, readAtMs);
      }
    }
  });
  return missing;
}

/** The cards of the given ledger entries. */
function cardsOf(context: SyncContext, transactionIds: readonly string[]): string[] {
  const card = context.sqlite.prepare('SELECT gift_card_id FROM gift_card_transactions WHERE transaction_id = ?').pluck();
  return transactionIds.map((id) => card.get(id) as string);
}

/**
 * Records as in flight each given card whose snapshot still disagrees with its ledger
 * because it moved: its money or status changed since `firstRead` (a new version alone is not
 * a move), or its ledger has entries newer than its snapshot. @returns how many were recorded.
 */
function judgeMovedCards(context: SyncContext, cardIds: readonly string[], firstRead: ReadonlyMap<string, CardState>): number {
  const { sqlite, writer, syncRunId } = context;
  let inFlight = 0;
  writer.transaction(() => {
    fillSettleCards(sqlite, cardIds);
    for (const s of sqlite.prepare(CARD_STATE_SQL).all() as CardState[]) {
      if (!disagrees(s)) continue;
      const first = firstRead.get(s.gift_card_id);
      const moved = first !== undefined && (first.remaining !== s.remaining || first.status !== s.status);
      const ledgerAhead = s.tail_created_ms > s.updated_at_ms;
      if (!moved && !ledgerAhead) continue; // it stood still and still disagrees: a break, for the checker
      writer.inFlight(
        syncRunId,
        s.gift_card_id,
        moved ? `it went from ${first?.status} ${cents(first?.remaining)} to ${s.status} ${cents(s.remaining)} (version ${first?.version} to ${s.version}) during the sync` : 'ledger entries arrived after the card was read',
      );
      inFlight += 1;
    }
  });
  return inFlight;
}

const cents = (value: number | null | undefined): string => (value === null || value === undefined ? 'off the cent' : `${value} cents`);

/**
 * The sync's last step: reads the ledger head once more, so the mirror holds every entry
 * committed before the sync ended; cards those late entries moved are recorded in flight.
 */
export async function closeLedger(context: SyncContext): Promise<void> {
  context.ledgerReadUntilMs = Date.now();
  const added = await topUpLedgerHead(context);
  const stats = context.stats.settle;
  stats.notes['entriesToppedUp'] = (stats.notes['entriesToppedUp'] ?? 0) + added.length;
  stats.new += added.length;
  stats.notes['inFlight'] = (stats.notes['inFlight'] ?? 0) + judgeMovedCards(context, cardsOf(context, added), new Map());
}
