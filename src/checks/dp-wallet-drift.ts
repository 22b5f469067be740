import type { FindingDraft, QueryCheck } from './check.js';
import { cents, isoUtc, money, walletRef } from './refs.js';

interface Row {
  wallet_id: string;
  currency: string;
  balance_cents: number | null;
  requested_at_ms: number | null;
  read_at_ms: number;
  sync_run_id: number;
  previous_balance_cents: number | null;
  previous_requested_at_ms: number | null;
  previous_read_at_ms: number;
  previous_sync_run_id: number;
}

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

export const dpWalletDrift: QueryCheck = {
  kind: 'query',
  code: 'DP_WALLET_DRIFT',
  severity: 'warning',
  lifecycle: 'event',
  title: 'Wallet moved more than its orders explain',
  description:
    "Between two syncs a wallet's balance should move only by the orders placed in between (deducted) and the orders that failed in between (credited back). Any other movement — a top-up, a fee, a charge without an order — is reported for someone to explain. A wallet read is an interval (the request sent to the answer received): an order placed inside it may be on either side, so a movement such orders explain is in flight, not drift.",
  run({ sqlite, syncRunId }) {
    // Every pair of consecutive snapshots, not only the newest: a drift is an event between two
    // snapshots, found again on every later night (and after a night that could not check it).
    const wallets = sqlite
      .prepare(
        `SELECT s.wallet_id, s.currency, s.balance_cents, s.requested_at_ms, s.read_at_ms, s.sync_run_id,
                p.balance_cents AS previous_balance_cents, p.requested_at_ms AS previous_requested_at_ms, p.read_at_ms AS previous_read_at_ms, p.sync_run_id AS previous_sync_run_id
         FROM dp_wallet_snapshots s
         JOIN dp_wallet_snapshots p ON p.wallet_id = s.wallet_id
          AND p.sync_run_id = (SELECT MAX(sync_run_id) FROM dp_wallet_snapshots q WHERE q.wallet_id = s.wallet_id AND q.sync_run_id < s.sync_run_id)
         WHERE s.sync_run_id <= ? ORDER BY s.wallet_id, s.sync_run_id`,
      )
      .all(syncRunId) as Row[];
    const moves = sqlite.prepare(
      `SELECT total_amount_cents AS cents, created_at_ms AS atMs, 'placed' AS kind FROM dp_orders WHERE currency = @currency AND created_at_ms >= @from AND created_at_ms <= @to AND total_amount_cents IS NOT NULL
       UNION ALL
       SELECT total_amount_cents, updated_at_ms, 'failed' FROM dp_orders WHERE currency = @currency AND status = 'FAILED' AND updated_at_ms >= @from AND updated_at_ms <= @to AND total_amount_cents IS NOT NULL`,
    );
    return wallets.flatMap((w): FindingDraft[] => {
      if (w.balance_cents === null || w.previous_balance_cents === null) return [];
      // Snapshots kept before the request was stamped: their read is the instant of the answer.
      const previous: WalletRead = { walletId: w.wallet_id, currency: w.currency, balanceCents: w.previous_balance_cents, requestedAtMs: w.previous_requested_at_ms ?? w.previous_read_at_ms, answeredAtMs: w.previous_read_at_ms, syncRunId: w.previous_sync_run_id };
      const current: WalletRead = { walletId: w.wallet_id, currency: w.currency, balanceCents: w.balance_cents, requestedAtMs: w.requested_at_ms ?? w.read_at_ms, answeredAtMs: w.read_at_ms, syncRunId: w.sync_run_id };
      const between = moves.all({ currency: w.currency, from: previous.requestedAtMs, to: current.answeredAtMs }) as WalletMove[];
      const { expectedCents, explained } = judgeWallet(previous, current, between);
      if (explained) return [];
      const ordered = between.filter((m) => m.kind === 'placed' && m.atMs > previous.answeredAtMs).reduce((sum, m) => sum + m.cents, 0);
      const refunded = between.filter((m) => m.kind === 'failed' && m.atMs > previous.answeredAtMs).reduce((sum, m) => sum + m.cents, 0);
      const unexplained = w.balance_cents - expectedCents;
      return [
        {
          entityType: 'dpWallet' as const,
          entityId: w.wallet_id,
          currency: w.currency,
          // The wallet and the two snapshots the drift lies between.
          identity: [String(w.previous_sync_run_id), String(w.sync_run_id)],
          measure: cents(expectedCents, w.balance_cents),
          message:
            `wallet ${w.wallet_id} went from ${money(w.previous_balance_cents, w.currency)} (sync ${w.previous_sync_run_id}, ${isoUtc(w.previous_read_at_ms)}) to ${money(w.balance_cents, w.currency)} (sync ${w.sync_run_id}, ${isoUtc(w.read_at_ms)}); ` +
            `orders placed in between explain −${money(ordered, w.currency)} and failed orders +${money(refunded, w.currency)}, leaving ${money(Math.abs(unexplained), w.currency)} ${unexplained > 0 ? 'credited' : 'charged'} without an order — ask the partner for the wallet statement`,
          records: [walletRef(w.wallet_id)],
        },
      ];
    });
  },
};
