import type { GiftCardListElement } from '../api/giftcard-client.js';
import type { GiftCard } from '../api/wire-types.js';
import { NotFoundError, PayloadValidationError } from '../errors.js';
import { mapLimit, type SyncContext } from './context.js';
import { giftCardRow } from './rows.js';
import { walk } from './walk.js';

type FullRecords = Map<string, GiftCard | PayloadValidationError | 'missing'>;

/**
 * Gift cards: walks the card list every run (it is how new cards appear). Elements that
 * carry a full record are mirrored as they are; for minimal elements the full record is read
 * by ID, with bounded concurrency, when the card is new, its status moved, or the pass is full.
 * Cards with new ledger activity are re-read later, by the settle pass.
 */
export async function syncGiftCards(context: SyncContext): Promise<void> {
  const { store, giftcard, syncRunId } = context;
  await store.beginLoad('gift_cards'); // an empty table is a bulk load: its indexes are built once, sorted, at the end
  await walk<GiftCardListElement, FullRecords>(context, {
    resource: 'giftCards',
    expected: () => store.lists.listedCount('gift_cards'),
    quarantineAs: 'giftCards',
    list: (startCursor) => giftcard.listGiftCards(startCursor ? { startCursor } : {}),
    lookUp: (elements) =>
      store.lookUp(
        'gift_cards',
        elements.map((element) => element.giftCardId),
      ),
    beforeWrite: async (page) => {
      const statuses = await store.cards.cardStatuses(
        page.records.filter((element) => !element.full).map((element) => element.giftCardId),
      );
      const wanted = page.records.filter((element) => {
        if (element.full) return false;
        const known = statuses.get(element.giftCardId);
        return context.mode === 'full' || known === undefined || known !== element.status;
      });
      const fetched: FullRecords = new Map();
      await mapLimit(wanted, context.concurrency, async (element) => {
        fetched.set(element.giftCardId, await readCard(context, element.giftCardId));
      });
      return fetched;
    },
    write: async (element, _position, _walk, fetched) => {
      const readAtMs = context.now();
      const record = element.full ?? fetched?.get(element.giftCardId);
      if (record === undefined) return undefined; // minimal, known and unchanged: the mirror's snapshot stands
      if (record === 'missing') {
        // Listed, yet not found by ID: the service disagrees with itself. Recorded as missing, so
        // its entries are GC_ORPHAN_ENTRY breaks naming the 404, and as this night's sighting,
        // named by GC_LISTED_NOT_FOUND; counted on the sync's line.
        await store.cards.missingCard(element.giftCardId, syncRunId, readAtMs, true);
        context.stats.giftCards.notes['listedNotFound'] = (context.stats.giftCards.notes['listedNotFound'] ?? 0) + 1;
        return undefined;
      }
      if (record instanceof PayloadValidationError) {
        await store.runs.quarantine('giftCards', record, syncRunId);
        context.stats.giftCards.quarantined += 1;
        return undefined;
      }
      return store.cards.card(giftCardRow(record), syncRunId, readAtMs);
    },
    finish: () => store.endLoad('gift_cards', syncRunId),
  });
}

/** Reads one card by ID: the record, its validation failure, or 'missing' on 404. */
export async function readCard(
  context: SyncContext,
  giftCardId: string,
): Promise<GiftCard | PayloadValidationError | 'missing'> {
  try {
    return await context.giftcard.getGiftCard(giftCardId);
  } catch (error) {
    if (error instanceof NotFoundError) return 'missing';
    if (error instanceof PayloadValidationError) return error;
    throw error;
  }
}
