/**
 * The confirmation pass's reads: before breaks reach auditors, the cards and entries behind
 * them are re-read by ID from the service. This module only reads and reports what it read,
 * beside what the mirror holds; the findings stage decides what that means for each break.
 */
import type { GiftCardClient } from '../api/giftcard-client.js';
import type { Mirror } from '../db/mirror.js';
import { NotFoundError, PayloadValidationError } from '../errors.js';
import { mapLimit } from './context.js';
import { giftCardRow, transactionRow } from './rows.js';
import { SyncStore } from './store.js';

/** What to re-read: cards and ledger entries by ID. */
export interface RereadRequest {
  cards: readonly string[];
  entries: readonly string[];
}

/** A card's figures that move when the card moves. */
export interface CardState {
  version: number;
  remainingCents: number | null;
  status: string;
}

/** A ledger entry's figures, which never change. */
export interface EntryFigures {
  giftCardId: string;
  type: string;
  amountCents: number | null;
  beforeCents: number | null;
  afterCents: number | null;
  createdAtMs: number;
}

/** What a read by ID answered: the record, a 404, or a record that failed validation. */
export type ReadBack<T> = { kind: 'found'; record: T } | { kind: 'not found' } | { kind: 'unreadable'; reason: string };

export interface CardReread {
  giftCardId: string;
  /** As the mirror holds it; null when the mirror has no such card. */
  mirrored: CardState | null;
  read: ReadBack<CardState>;
}

export interface EntryReread {
  transactionId: string;
  /** As the mirror holds it, with the sync since which the ledger list no longer returns it. */
  mirrored: (EntryFigures & { vanishedSyncRunId: number | null }) | null;
  read: ReadBack<EntryFigures>;
}

export interface Rereads {
  cards: CardReread[];
  entries: EntryReread[];
}

export interface ConfirmStats {
  cards: number;
  entries: number;
}

/**
 * Re-reads the requested cards and entries by ID, at most `concurrency` at a time.
 * @throws AuthError, ServiceUnavailableError when the service cannot answer (the run is incomplete).
 */
export async function rereadGiftCards(
  mirror: Mirror,
  giftcard: GiftCardClient,
  request: RereadRequest,
  concurrency = 8,
  stats?: ConfirmStats,
): Promise<Rereads> {
  const store = new SyncStore(mirror);
  const cards: CardReread[] = [];
  const entries: EntryReread[] = [];
  await mapLimit([...request.cards], concurrency, async (giftCardId) => {
    const card = await store.cards.mirroredCard(giftCardId);
    const mirrored = card
      ? { version: card.version, remainingCents: card.remaining_balance_cents, status: card.status }
      : null;
    const read = await readBack(async () => {
      const row = giftCardRow(await giftcard.getGiftCard(giftCardId));
      return { version: row.version, remainingCents: row.remaining_balance_cents, status: row.status };
    });
    if (stats) stats.cards += 1;
    cards.push({ giftCardId, mirrored, read });
  });
  await mapLimit([...request.entries], concurrency, async (transactionId) => {
    const entry = await store.ledger.mirroredEntry(transactionId);
    const mirrored = entry
      ? {
          giftCardId: entry.gift_card_id,
          type: entry.type,
          amountCents: entry.amount_cents,
          beforeCents: entry.balance_before_cents,
          afterCents: entry.balance_after_cents,
          createdAtMs: entry.created_at_ms,
          vanishedSyncRunId: entry.vanished_sync_run_id,
        }
      : null;
    const read = await readBack(async () => {
      const row = transactionRow(await giftcard.getTransaction(transactionId));
      return {
        giftCardId: row.gift_card_id,
        type: row.type,
        amountCents: row.amount_cents,
        beforeCents: row.balance_before_cents,
        afterCents: row.balance_after_cents,
        createdAtMs: row.created_at_ms,
      };
    });
    if (stats) stats.entries += 1;
    entries.push({ transactionId, mirrored, read });
  });
  // Reads finish in any order: hand them back in a stable one.
  cards.sort((a, b) => a.giftCardId.localeCompare(b.giftCardId));
  entries.sort((a, b) => a.transactionId.localeCompare(b.transactionId));
  return { cards, entries };
}

async function readBack<T>(read: () => Promise<T>): Promise<ReadBack<T>> {
  try {
    return { kind: 'found', record: await read() };
  } catch (error) {
    if (error instanceof NotFoundError) return { kind: 'not found' };
    if (error instanceof PayloadValidationError) return { kind: 'unreadable', reason: error.message };
    throw error;
  }
}
