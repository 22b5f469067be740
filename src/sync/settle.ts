import { PayloadValidationError } from '../errors.js';
import { mapLimit, type SyncContext } from './context.js';
import { readCard } from './giftcards.js';
import { topUpLedgerHead } from './ledger.js';
import { giftCardRow } from './rows.js';
import type { CardState } from './store.js';

/** A card snapshot disagrees with its ledger, or its ledger moved after the snapshot. */
const disagrees = (s: CardState): boolean => s.tail_after !== s.remaining || s.tail_created_ms > s.updated_at_ms;

/**
 * Checking like with like in time. Cards whose snapshot disagrees with their ledger, or whose
 * ledger moved this run after the snapshot, are read again by ID, and so is every card the
 * previous night left in flight, held or behind a gift card break (`context.recheck`), moved or
 * not; the ledger head is topped up; then a card that still disagrees because it moved during
 * this sync (its money or status changed between two reads of this sync, or entries committed
 * since the sync began are newer than its snapshot) is recorded as in flight for the checker's
 * GC_IN_FLIGHT. One that disagrees without moving is left for the checker: a break, that night.
 * Finally, cards the ledger names but the mirror lacks are read by ID; a 404 marks them missing.
 */
export async function settle(context: SyncContext): Promise<void> {
  const { store, syncRunId } = context;
  const stats = context.stats.settle;
  const started = context.now();
  // Comparing every card with its ledger takes a while on a large mirror: the line says so.
  stats.notes['comparing'] = 1;
  context.progress.update('settle', stats);
  // Which cards can disagree with their ledger: all on a full pass (the whole ledger was read
  // again); otherwise those with new entries or a changed snapshot: the active ones.
  const since = await store.runs.lastCompletedBefore(syncRunId);
  let active = context.mode === 'full' ? undefined : await store.cards.activeCards(syncRunId, since);
  const before = await store.cards.cardStates(active === undefined ? 'all' : [...active, ...context.recheck]);
  // A full pass asks which cards are active only if one agrees but was read by an earlier sync.
  if (active === undefined && before.some((s) => !disagrees(s) && s.read_sync_run_id !== syncRunId))
    active = await store.cards.activeCards(syncRunId, since);
  // Re-read by ID: a card that disagrees, an active one whose snapshot is older than this run,
  // and every card the previous night left in flight, held or broken (with entries or not).
  // On a first sync every snapshot is this run's: the active cards are never asked for.
  const chosen = before.filter(
    (s) =>
      disagrees(s) ||
      context.recheck.has(s.gift_card_id) ||
      (s.read_sync_run_id !== syncRunId && active !== undefined && active.has(s.gift_card_id)),
  );
  const firstRead = new Map(chosen.map((s) => [s.gift_card_id, s]));
  const candidates = [...firstRead.keys(), ...[...context.recheck].filter((id) => !firstRead.has(id)).sort()];
  delete stats.notes['comparing'];
  // Each card read again moves the line on (a resumed first sync re-reads every card: minutes).
  stats.expected = candidates.length;
  const reread = await mapLimit(candidates, context.concurrency, async (id) => {
    const read = { id, record: await readCard(context, id), readAtMs: context.now() };
    stats.records += 1;
    context.progress.update('settle', stats);
    return read;
  });
  await store.batch(async () => {
    for (const { id, record, readAtMs } of reread) {
      if (record === 'missing') await store.cards.missingCard(id, syncRunId, readAtMs);
      else if (record instanceof PayloadValidationError) await store.runs.quarantine('giftCards', record, syncRunId);
      else await store.cards.card(giftCardRow(record), syncRunId, readAtMs);
    }
  });
  stats.notes['cardsReread'] = reread.length;

  const added = await topUpLedgerHead(context);
  stats.notes['entriesToppedUp'] = added.length;
  stats.new += added.length;

  const inFlight = await judgeMovedCards(
    context,
    [...candidates, ...(await store.ledger.cardsOfEntries(added))],
    firstRead,
  );
  stats.notes['inFlight'] = inFlight;
  stats.notes['lookingUp'] = 1;
  context.progress.update('settle', stats);
  stats.notes['missingCards'] = await readUnknownCards(context);
  delete stats.notes['lookingUp'];
  stats.records = reread.length;
  stats.durationMs = context.now() - started;
  context.progress.done('settle', stats);
}

/** Cards the ledger names that the mirror does not hold: read each; a 404 marks it missing. */
async function readUnknownCards(context: SyncContext): Promise<number> {
  const { store, syncRunId } = context;
  // A full pass looks at every entry; otherwise this run's new entries and the cards already missing.
  const unknown = await store.cards.unknownCards(syncRunId, context.mode === 'full');
  const results = await mapLimit(unknown, context.concurrency, async (id) => ({
    id,
    record: await readCard(context, id),
    readAtMs: context.now(),
  }));
  let missing = 0;
  await store.batch(async () => {
    for (const { id, record, readAtMs } of results) {
      if (record === 'missing') {
        await store.cards.missingCard(id, syncRunId, readAtMs);
        missing += 1;
      } else if (record instanceof PayloadValidationError) {
        await store.runs.quarantine('giftCards', record, syncRunId);
      } else {
        await store.cards.foundCard(id);
        await store.cards.card(giftCardRow(record), syncRunId, readAtMs);
      }
    }
  });
  return missing;
}

/**
 * Records as in flight each given card whose snapshot still disagrees with its ledger because
 * it moved during this sync: its money or status changed between this sync's reads of it
 * (`firstRead`, when this sync wrote it; a new version alone is not a move), or its ledger has
 * entries newer than its snapshot that were committed after the sync began. A snapshot of an
 * earlier night is never the first read: a card that disagrees with entries committed before
 * the sync began, however its version moved, is a break tonight. @returns how many were recorded.
 */
async function judgeMovedCards(
  context: SyncContext,
  cardIds: readonly string[],
  firstRead: ReadonlyMap<string, CardState>,
): Promise<number> {
  const { store, syncRunId } = context;
  let inFlight = 0;
  const states = await store.cards.cardStates(cardIds);
  await store.batch(async () => {
    for (const s of states) {
      if (!disagrees(s)) continue;
      // The mirror's snapshot before the re-read counts only when this sync's walk wrote it.
      const first = firstRead.get(s.gift_card_id);
      const readThisSync = first !== undefined && first.read_sync_run_id === syncRunId;
      const moved = readThisSync && (first.remaining !== s.remaining || first.status !== s.status);
      const ledgerAhead = s.tail_created_ms > s.updated_at_ms && s.tail_created_ms >= context.startedAtMs;
      if (!moved && !ledgerAhead) continue; // it stood still and still disagrees: a break, for the checker
      await store.cards.inFlight(
        syncRunId,
        s.gift_card_id,
        moved
          ? `it went from ${first?.status} ${cents(first?.remaining)} to ${s.status} ${cents(s.remaining)} (version ${first?.version} to ${s.version}) during the sync`
          : 'ledger entries arrived after the card was read',
      );
      inFlight += 1;
    }
  });
  return inFlight;
}

const cents = (value: number | null | undefined): string =>
  value === null || value === undefined ? 'off the cent' : `${value} cents`;

/**
 * The sync's last step: reads the ledger head once more, so the mirror holds every entry
 * committed before the sync ended; cards those late entries moved are recorded in flight.
 */
export async function closeLedger(context: SyncContext): Promise<void> {
  context.ledgerReadUntilMs = context.now();
  const added = await topUpLedgerHead(context);
  const stats = context.stats.settle;
  stats.notes['entriesToppedUp'] = (stats.notes['entriesToppedUp'] ?? 0) + added.length;
  stats.new += added.length;
  stats.notes['inFlight'] =
    (stats.notes['inFlight'] ?? 0) +
    (await judgeMovedCards(context, await context.store.ledger.cardsOfEntries(added), new Map()));
}
