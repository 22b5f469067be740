import type { Transaction } from '../api/wire-types.js';
import type { SyncContext } from './context.js';
import { transactionRow } from './rows.js';
import { walk } from './walk.js';

/**
 * The service's list order as a number, higher for newer: a walk numbers entries newest
 * first from its base. Each run's bases sit above all earlier runs', and a run's head top-up
 * above its own walk, because what a later walk or top-up finds for the first time was
 * committed later. Entries keep the number they were first seen with.
 */
const RUN_SPAN = 1_000_000_000;
const TOP_UP_OFFSET = RUN_SPAN / 2;
const TOP_UP_SPAN = 10_000_000;
export const walkListOrder = (walkId: number, position: number): number => walkId * RUN_SPAN - position;
/** A run's n-th top-up reads newer entries than its walk and than its earlier top-ups. */
const topUpListOrder = (syncRunId: number, topUp: number, position: number): number =>
  syncRunId * RUN_SPAN + TOP_UP_OFFSET + topUp * TOP_UP_SPAN - position;

/**
 * The ledger: the first run and --full walk all of it (and then record entries that vanished);
 * later runs walk newest first only until past the newest mirrored entry minus the overlap.
 */
export async function syncLedger(context: SyncContext): Promise<void> {
  const { store, giftcard, syncRunId } = context;
  const stats = context.stats.giftCardTransactions;
  // An empty ledger is a bulk load: its indexes are built once, sorted, at the end.
  const empty = await store.beginLoad('gift_card_transactions');
  const stopBeforeMs = context.mode === 'full' ? null : (await store.ledger.newestEntryMs()) - context.overlapMs;
  await walk<Transaction>(context, {
    resource: 'giftCardTransactions',
    quarantineAs: 'giftCardTransactions',
    list: (startCursor) => giftcard.listTransactions(startCursor ? { startCursor } : {}),
    stopBeforeMs: () => stopBeforeMs,
    expected: async () =>
      context.mode === 'full' && !empty ? store.lists.listedCount('gift_card_transactions') : undefined,
    stopAfter: (page, checkpoint) =>
      checkpoint.mode !== 'full' &&
      checkpoint.stopBeforeMs !== null &&
      wholePageBefore(page.records, checkpoint.stopBeforeMs),
    // A bulk load looks nothing up; otherwise a batch's entries are read at once (on a server).
    ...(empty
      ? {}
      : {
          lookUp: (entries: Transaction[]) =>
            store.lookUp(
              'gift_card_transactions',
              entries.map((entry) => entry.transactionId),
            ),
        }),
    // A full walk notes each entry it finds again, so that it can tell which ones vanished.
    write: (entry, position, { walkId, mode }) =>
      store.ledger.entry(transactionRow(entry), syncRunId, walkListOrder(walkId, position), {
        bulkLoad: empty,
        fullWalkId: mode === 'full' ? walkId : undefined,
      }),
    onComplete: async (checkpoint) => {
      if (checkpoint.mode !== 'full') return;
      const vanished = await store.ledger.markVanished(checkpoint.walkId, syncRunId);
      stats.notes['vanished'] = vanished;
    },
    finish: async () => {
      // After a bulk load the builds take a while (about 2.5 s a million entries), with no
      // page to count meanwhile: the progress line says what the sync is doing.
      if (empty) {
        stats.notes['buildingIndexes'] = 1;
        context.progress.update('giftCardTransactions', stats);
      }
      // Entries a bulk load mirrored twice (the list shifted under the walk) count once.
      const indexing = context.now();
      stats.new -= await store.endLoad('gift_card_transactions', syncRunId);
      if (empty) {
        delete stats.notes['buildingIndexes'];
        stats.notes['indexBuildMs'] = context.now() - indexing;
      }
    },
  });
}

/**
 * Reads the ledger's head again until past what the mirror already holds (minus the
 * overlap): the entries committed while the sync ran. Returns the IDs it added.
 */
export async function topUpLedgerHead(context: SyncContext): Promise<string[]> {
  const { store, giftcard, syncRunId } = context;
  const stopBeforeMs = (await store.ledger.newestEntryMs()) - context.overlapMs;
  context.ledgerReadUntilMs = context.now();
  const added: string[] = [];
  let position = 0;
  for await (const page of giftcard.listTransactions()) {
    await store.batch(async () => {
      // The page's entries read at once (on a server), as the walk's are: most are known.
      await store.lookUp(
        'gift_card_transactions',
        page.records.map((entry) => entry.transactionId),
      );
      for (const entry of page.records) {
        const outcome = await store.ledger.entry(
          transactionRow(entry),
          syncRunId,
          topUpListOrder(syncRunId, context.topUps, position),
        );
        position += 1;
        if (outcome === 'new') added.push(entry.transactionId);
      }
      for (const rejected of page.rejected) await store.runs.quarantine('giftCardTransactions', rejected, syncRunId);
    });
    if (!page.hasMore || wholePageBefore(page.records, stopBeforeMs)) break;
  }
  context.topUps += 1;
  return added;
}

/**
 * Whether a page of the newest-first ledger lies wholly before the boundary: every entry on it
 * older. One old entry among new ones (a late commit, a list that is not strictly ordered)
 * never ends the walk; only a page with nothing newer does.
 */
export function wholePageBefore(records: readonly { createdAt: string }[], stopBeforeMs: number): boolean {
  return records.length > 0 && records.every((entry) => Date.parse(entry.createdAt) < stopBeforeMs);
}
