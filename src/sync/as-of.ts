/**
 * The services' lists as the mirror held them when a past sync finished, rebuilt from what it
 * kept (`verify --run N` re-performs the night's checks over coupons, DP orders and wallets on
 * them): each coupon and order from its newest version of that sync or before, made rows by the
 * sync's own builders (an order's vouchers from the hashes its kept JSON holds; a record unlisted
 * then keeps its last listed text and the sync it went unlisted), the coupons' history rows and
 * the wallets' snapshots of that sync or before. They are written into a scratch mirror (SQLite,
 * whatever the source's database), under the tables' own names, so the checks read them with
 * their own SQL.
 */
import type { Mirror } from '../db/mirror.js';
import { keptCouponRow, keptOrderRows } from './rows.js';
import { type KeptVersion, KeptReads, ScratchWrites } from './store-kept.js';

/** What was rebuilt, and what could not be (a kept text that no longer parses: changed by hand). */
export interface ListsAsOf {
  coupons: number;
  orders: number;
  /** Each kept record that is not a valid record of its kind, one line each. */
  unreadable: string[];
}

/** Rebuilds into `scratch` (a freshly made mirror) the lists `source` held as of sync `asOf`. */
export async function rebuildListsAsOf(source: Mirror, asOf: number, scratch: Mirror): Promise<ListsAsOf> {
  const reads = new KeptReads(source);
  const writes = new ScratchWrites(scratch);
  const unreadable: string[] = [];
  let coupons = 0;
  let orders = 0;
  await writes.transaction(async () => {
    for await (const batch of reads.couponVersions(asOf)) {
      const rows = batch.flatMap((kept) => {
        const row = made(kept, 'coupon', keptCouponRow, unreadable);
        return row === undefined ? [] : [{ ...row, ...standing(kept) }];
      });
      coupons += rows.length;
      await writes.insert('coupons', rows);
    }
    for await (const batch of reads.orderVersions(asOf))
      for (const kept of batch) {
        const rows = made(kept, 'DP order', keptOrderRows, unreadable);
        if (rows === undefined) continue;
        orders += 1;
        await writes.insert('dp_orders', [{ ...rows.order, ...standing(kept) }]);
        await writes.insert('dp_order_lines', rows.lines);
        await writes.insert('dp_vouchers', rows.vouchers);
      }
    for await (const batch of reads.couponHistory(asOf)) await writes.insert('coupon_history', batch);
    for await (const batch of reads.walletSnapshots(asOf)) await writes.insert('dp_wallet_snapshots', batch);
  });
  return { coupons, orders, unreadable };
}

/** When the record was first mirrored, and since which sync it was unlisted as of then (null: listed). */
function standing(kept: KeptVersion): { first_sync_run_id: number; vanished_sync_run_id: number | null } {
  return {
    first_sync_run_id: Number(kept.first_sync_run_id),
    vanished_sync_run_id: kept.raw === null ? Number(kept.sync_run_id) : null,
  };
}

/** The record's rows from its text as last listed then, or undefined (and why, in `unreadable`). */
function made<T>(kept: KeptVersion, kind: string, rowsOf: (raw: string) => T, unreadable: string[]): T | undefined {
  if (kept.listed_raw === null) {
    unreadable.push(`${kind} ${kept.id}: no version of it holds its record`);
    return undefined;
  }
  try {
    return rowsOf(kept.listed_raw);
  } catch (error) {
    unreadable.push(`${kind} ${kept.id}: its kept record does not read: ${(error as Error).message}`);
    return undefined;
  }
}
