import type { GiftCardListElement } from '../api/giftcard-client.js';
import type { GiftCard } from '../api/wire-types.js';
import { createCardIndexes, dropCardIndexes, isEmpty } from '../db/mirror.js';
import { NotFoundError, PayloadValidationError } from '../errors.js';
import { listedCount, mapLimit, type SyncContext } from './context.js';
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
  const { writer, sqlite, giftcard, syncRunId } = context;
  const statusOf = sqlite.prepare('SELECT status FROM gift_cards WHERE gift_card_id = ?').pluck();
  if (isEmpty(sqlite, 'gift_cards')) dropCardIndexes(sqlite); // a bulk load: build them once, sorted, at the end
  await walk<GiftCardListElement, FullRecords>(context, {
    resource: 'giftCards',
    expected: () => listedCount(sqlite, 'gift_cards'),
    quarantineAs: 'giftCards',
    list: (startCursor) => giftcard.listGiftCards(startCursor ? { startCursor } : {}),
    prepare: async (page) => {
      const wanted = page.records.filter((element) => {
        if (element.full) return false;
        const known = statusOf.get(element.giftCardId) as string | undefined;
        return context.mode === 'full' || known === undefined || known !== element.status;
      });
      const fetched: FullRecords = new Map();
      await mapLimit(wanted, context.concurrency, async (element) => {
        fetched.set(element.giftCardId, await readCard(context, element.giftCardId));
      });
      return fetched;
    },
    write: (element, _position, _walk, fetched) => {
      const readAtMs = Date.now();
      const record = element.full ?? fetched?.get(element.giftCardId);
      if (record === undefined) return undefined; // minimal, known and unchanged: the mirror's snapshot stands
      if (record === 'missing') return undefined; // listed, then gone before we read it
      if (record instanceof PayloadValidationError) {
        writer.quarantine('giftCards', record, syncRunId);
        context.stats.giftCards.quarantined += 1;
        return undefined;
      }
      return writer.card(giftCardRow(record), syncRunId, readAtMs);
    },
    finish: () => createCardIndexes(sqlite),
  });
}

/** Reads one card by ID: the record, its validation failure, or 'missing' on 404. */
export async function readCard(context: SyncContext, giftCardId: string): Promise<GiftCard | PayloadValidationError | 'missing'> {
  try {
    return await context.giftcard.getGiftCard(giftCardId);
  } catch (error) {
    if (error instanceof NotFoundError) return 'missing';
    if (error instanceof PayloadValidationError) return error;
    throw error;
  }
}
