/**
 * Our merchant, as the credentials resolve it: lists may carry another merchant's records (a
 * service at fault), but a lookup by ID is scoped to the client's merchant and answers "not
 * found" for another's (both specs). So one card of each merchant the mirror holds, most
 * numerous first, is looked up by ID: the first found names ours. Never a vote.
 */
import { NotFoundError } from '../errors.js';
import type { SyncContext } from './context.js';

/** How many merchants are tried before the question is left open. */
const MAX_CANDIDATES = 5;

/** @returns our merchant's ID, or null when no card or coupon of the mirror can tell. */
export async function resolveMerchant(context: SyncContext): Promise<string | null> {
  const { store, giftcard } = context;
  const sources: Array<{ table: 'gift_cards' | 'coupons'; lookup: (id: string) => Promise<{ merchantId: string }> }> = [
    { table: 'gift_cards', lookup: (id) => giftcard.getGiftCard(id) },
    { table: 'coupons', lookup: (id) => giftcard.getCoupon(id) },
  ];
  for (const source of sources) {
    for (const candidate of await store.lists.oneRecordPerMerchant(source.table, MAX_CANDIDATES)) {
      const found = await ours(() => source.lookup(candidate));
      if (found) return found.merchantId;
    }
  }
  return null;
}

/** The record if the lookup found it (ours), null if not found (another merchant's). */
async function ours<T>(lookup: () => Promise<T>): Promise<T | null> {
  try {
    return await lookup();
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
