/**
 * The confirmation pass of the nightly run: before gift card errors reach auditors, the
 * records behind them are re-read by ID from the service and compared with the mirror. A
 * break whose records still read the same reproduces; a card or entry that reads differently
 * moved since the sync read it, and is reported as in flight instead.
 */
import type Database from 'better-sqlite3';
import type { GiftCardClient } from '../api/giftcard-client.js';
import type { Finding } from '../checks/finding.js';
import { NotFoundError } from '../errors.js';
import { mapLimit } from './context.js';
import { giftCardRow, transactionRow } from './rows.js';

export interface ConfirmStats {
  cards: number;
  entries: number;
  moved: number;
}

/**
 * Re-reads the card and the entries behind every gift card error in `findings`.
 * @returns the cards that did not reproduce, with what changed.
 */
export async function confirmGiftCardBreaks(sqlite: Database.Database, giftcard: GiftCardClient, findings: readonly Finding[], concurrency = 8, stats?: ConfirmStats): Promise<Map<string, string>> {
  const byCard = new Map<string, Set<string>>();
  for (const f of findings) {
    if (f.severity !== 'error' || !f.code.startsWith('GC_') || f.giftCardId === null) continue;
    const entries = byCard.get(f.giftCardId) ?? new Set<string>();
    for (const record of f.records) if (record.type === 'giftCardTransaction') entries.add(record.id);
    byCard.set(f.giftCardId, entries);
  }
  const cardRow = sqlite.prepare('SELECT remaining_balance_cents, status, version FROM gift_cards WHERE gift_card_id = ?');
  const entryRow = sqlite.prepare('SELECT type, amount_cents, balance_before_cents, balance_after_cents, created_at_ms FROM gift_card_transactions WHERE transaction_id = ?');
  const moved = new Map<string, string>();
  await mapLimit([...byCard], concurrency, async ([giftCardId, entryIds]) => {
    const changes: string[] = [];
    const mirrored = cardRow.get(giftCardId) as { remaining_balance_cents: number | null; status: string; version: number } | undefined;
    const card = await readOrNull(() => giftcard.getGiftCard(giftCardId));
    if (stats) stats.cards += 1;
    if (mirrored && !card) changes.push('the card is no longer found');
    else if (!mirrored && card) changes.push('the card is found now');
    else if (mirrored && card) {
      const now = giftCardRow(card);
      if (now.version !== mirrored.version || now.remaining_balance_cents !== mirrored.remaining_balance_cents || now.status !== mirrored.status) {
        changes.push(`the card reads version ${now.version}, ${now.status}, remaining ${now.remaining_balance_cents} cents (mirrored: version ${mirrored.version}, ${mirrored.status}, ${mirrored.remaining_balance_cents})`);
      }
    }
    for (const id of entryIds) {
      const before = entryRow.get(id) as { type: string; amount_cents: number | null; balance_before_cents: number | null; balance_after_cents: number | null; created_at_ms: number } | undefined;
      const entry = await readOrNull(() => giftcard.getTransaction(id));
      if (stats) stats.entries += 1;
      if (!entry) {
        changes.push(`entry ${id} is no longer found`);
        continue;
      }
      const now = transactionRow(entry);
      if (!before || now.type !== before.type || now.amount_cents !== before.amount_cents || now.balance_before_cents !== before.balance_before_cents || now.balance_after_cents !== before.balance_after_cents || now.created_at_ms !== before.created_at_ms) {
        changes.push(`entry ${id} reads differently`);
      }
    }
    if (changes.length > 0) moved.set(giftCardId, `re-read to confirm: ${changes.join('; ')}`);
  });
  if (stats) stats.moved = moved.size;
  return moved;
}

async function readOrNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
