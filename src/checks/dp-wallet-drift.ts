import type Database from 'better-sqlite3';
import { and, asc, eq, gte, isNotNull, lte, max, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { alias } from 'drizzle-orm/sqlite-core';
import { dpOrders, dpWalletSnapshots } from '../db/schema.js';
import { queryCheck, type FindingDraft } from './check.js';
import { cents, isoUtc, money, walletRef } from './refs.js';

/** A wallet read: the wallet carries no timestamp, so the read is an interval from the request sent to the answer received. */
export interface WalletRead {
  walletId: string;
  currency: string;
  balanceCents: number;
  requestedAtMs: number;
  answeredAtMs: number;
  syncRunId: number;
}

/** What moved a wallet between two reads: orders placed (deducted) and orders that failed (credited back), with when. */
export interface WalletMove {
  cents: number;
  atMs: number;
  kind: 'placed' | 'failed';
}

/**
 * Judges a wallet between two reads (pure). Moves between the first answer and the second
 * request are certain. A read's balance is the wallet at one moment inside its interval: the
 * moves inside the interval before that moment are in it, those after are not. So the moves
 * inside the first read's interval that count between the reads are a latest part of them, and
 * those inside the second's an earliest part. The movement is explained when some such split
 * of each accounts for it exactly: it is then in flight (the next pair of reads judges it),
 * never a drift.
 * @returns the expected balance (every move after the first answer, up to the second answer,
 * counted) and whether the movement is explained.
 */
export function judgeWallet(previous: WalletRead, current: WalletRead, moves: readonly WalletMove[]): { expectedCents: number; explained: boolean } {
  const signed = (move: WalletMove): number => (move.kind === 'placed' ? -move.cents : move.cents);
  const inside = (read: WalletRead) => moves.filter((m) => m.atMs >= read.requestedAtMs && m.atMs <= read.answeredAtMs).sort((a, b) => a.atMs - b.atMs);
  const first = inside(previous);
  const second = inside(current).filter((m) => !first.includes(m));
  const certain = moves.filter((m) => m.atMs > previous.answeredAtMs && m.atMs < current.requestedAtMs).reduce((sum, m) => sum + signed(m), 0);
  const secondTotal = second.reduce((sum, m) => sum + signed(m), 0);
  const expectedCents = previous.balanceCents + certain + secondTotal;
  if (expectedCents === current.balanceCents) return { expectedCents, explained: true };
  // What the first read's interval may add: the moves after its moment, for every moment.
  const fromFirst = new Set<number>();
  let suffix = 0;
  fromFirst.add(0);
  for (let i = first.length - 1; i >= 0; i -= 1) {
    suffix += signed(first[i] as WalletMove);
    fromFirst.add(suffix);
  }
  let prefix = 0;
  const target = current.balanceCents - previous.balanceCents - certain;
  if (fromFirst.has(target)) return { expectedCents, explained: true };
  for (const move of second) {
    prefix += signed(move);
    if (fromFirst.has(target - prefix)) return { expectedCents, explained: true };
  }
  return { expectedCents, explained: false };
}

/**
 * Every pair of consecutive snapshots of a wallet up to sync `syncRunId`, not only the newest: a
 * drift is an event between two snapshots, found again on every later night (and after a night
 * that could not check it). Typed from the schema.
 */
function walletPairs(sqlite: Database.Database, syncRunId: number) {
  const current = alias(dpWalletSnapshots, 's');
  const previous = alias(dpWalletSnapshots, 'p');
  const before = alias(dpWalletSnapshots, 'q');
  const previousRun = drizzle(sqlite)
    .select({ run: max(before.syncRunId) })
    .from(before)
    .where(and(eq(before.walletId, current.walletId), sql`${before.syncRunId} < ${current.syncRunId}`));
  return drizzle(sqlite)
    .select({
      walletId: current.walletId,
      currency: current.currency,
      balanceCents: current.balanceCents,
      requestedAtMs: current.requestedAtMs,
      readAtMs: current.readAtMs,
      syncRunId: current.syncRunId,
      previousBalanceCents: previous.balanceCents,
      previousRequestedAtMs: previous.requestedAtMs,
      previousReadAtMs: previous.readAtMs,
      previousSyncRunId: previous.syncRunId,
    })
    .from(current)
    .innerJoin(previous, and(eq(previous.walletId, current.walletId), eq(previous.syncRunId, sql`(${previousRun})`)))
    .where(lte(current.syncRunId, syncRunId))
    .orderBy(asc(current.walletId), asc(current.syncRunId))
    .all();
}

/** The orders placed, and the orders that failed, in a currency between two instants (both included). */
function walletMoves(sqlite: Database.Database, currency: string, fromMs: number, toMs: number): WalletMove[] {
  const db = drizzle(sqlite);
  const placed = db
    .select({ cents: dpOrders.totalAmountCents, atMs: dpOrders.createdAtMs })
    .from(dpOrders)
    .where(and(eq(dpOrders.currency, currency), gte(dpOrders.createdAtMs, fromMs), lte(dpOrders.createdAtMs, toMs), isNotNull(dpOrders.totalAmountCents)))
    .all();
  const failed = db
    .select({ cents: dpOrders.totalAmountCents, atMs: dpOrders.updatedAtMs })
    .from(dpOrders)
    .where(and(eq(dpOrders.currency, currency), eq(dpOrders.status, 'FAILED'), gte(dpOrders.updatedAtMs, fromMs), lte(dpOrders.updatedAtMs, toMs), isNotNull(dpOrders.totalAmountCents)))
    .all();
  const move = (kind: WalletMove['kind']) => (row: { cents: number | null; atMs: number }): WalletMove[] => (row.cents === null ? [] : [{ cents: row.cents, atMs: row.atMs, kind }]);
  return [...placed.flatMap(move('placed')), ...failed.flatMap(move('failed'))];
}

export const dpWalletDrift = queryCheck({
  kind: 'query',
  code: 'DP_WALLET_DRIFT',
  severity: 'warning',
  lifecycle: 'event',
  title: 'Wallet moved more than its orders explain',
  description:
    "Between two syncs a wallet's balance should move only by the orders placed in between (deducted) and the orders that failed in between (credited back). Any other movement — a top-up, a fee, a charge without an order — is reported for someone to explain. A wallet read is an interval (the request sent to the answer received): an order placed inside it may be on either side, so a movement such orders explain is in flight, not drift.",
  run({ sqlite, syncRunId }) {
    const wallets = walletPairs(sqlite, syncRunId);
    return wallets.flatMap((w): FindingDraft[] => {
      if (w.balanceCents === null || w.previousBalanceCents === null) return [];
      // Snapshots kept before the request was stamped: their read is the instant of the answer.
      const previous: WalletRead = { walletId: w.walletId, currency: w.currency, balanceCents: w.previousBalanceCents, requestedAtMs: w.previousRequestedAtMs ?? w.previousReadAtMs, answeredAtMs: w.previousReadAtMs, syncRunId: w.previousSyncRunId };
      const current: WalletRead = { walletId: w.walletId, currency: w.currency, balanceCents: w.balanceCents, requestedAtMs: w.requestedAtMs ?? w.readAtMs, answeredAtMs: w.readAtMs, syncRunId: w.syncRunId };
      const between = walletMoves(sqlite, w.currency, previous.requestedAtMs, current.answeredAtMs);
      const { expectedCents, explained } = judgeWallet(previous, current, between);
      if (explained) return [];
      const ordered = between.filter((m) => m.kind === 'placed' && m.atMs > previous.answeredAtMs).reduce((sum, m) => sum + m.cents, 0);
      const refunded = between.filter((m) => m.kind === 'failed' && m.atMs > previous.answeredAtMs).reduce((sum, m) => sum + m.cents, 0);
      const unexplained = w.balanceCents - expectedCents;
      return [
        {
          entityType: 'dpWallet' as const,
          entityId: w.walletId,
          currency: w.currency,
          // The wallet and the two snapshots the drift lies between.
          identity: [String(w.previousSyncRunId), String(w.syncRunId)],
          measure: cents(expectedCents, w.balanceCents),
          message:
            `wallet ${w.walletId} went from ${money(w.previousBalanceCents, w.currency)} (sync ${w.previousSyncRunId}, ${isoUtc(w.previousReadAtMs)}) to ${money(w.balanceCents, w.currency)} (sync ${w.syncRunId}, ${isoUtc(w.readAtMs)}); ` +
            `orders placed in between explain −${money(ordered, w.currency)} and failed orders +${money(refunded, w.currency)}, leaving ${money(Math.abs(unexplained), w.currency)} ${unexplained > 0 ? 'credited' : 'charged'} without an order — ask the partner for the wallet statement`,
          records: [walletRef(w.walletId)],
        },
      ];
    });
  },
});
