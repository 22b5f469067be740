import type { QueryCheck } from './check.js';
import { cents, isoUtc, money, walletRef } from './refs.js';

interface Row {
  wallet_id: string;
  currency: string;
  balance_cents: number | null;
  read_at_ms: number;
  sync_run_id: number;
  previous_balance_cents: number | null;
  previous_read_at_ms: number;
  previous_sync_run_id: number;
}

export const dpWalletDrift: QueryCheck = {
  kind: 'query',
  code: 'DP_WALLET_DRIFT',
  severity: 'warning',
  lifecycle: 'event',
  title: 'Wallet moved more than its orders explain',
  description:
    "Between two syncs a wallet's balance should move only by the orders placed in between (deducted) and the orders that failed in between (credited back). Any other movement — a top-up, a fee, a charge without an order — is reported for someone to explain.",
  run({ sqlite, syncRunId }) {
    // Every pair of consecutive snapshots, not only the newest: a drift is an event between two
    // snapshots, found again on every later night (and after a night that could not check it).
    const wallets = sqlite
      .prepare(
        `SELECT s.wallet_id, s.currency, s.balance_cents, s.read_at_ms, s.sync_run_id, p.balance_cents AS previous_balance_cents, p.read_at_ms AS previous_read_at_ms, p.sync_run_id AS previous_sync_run_id
         FROM dp_wallet_snapshots s
         JOIN dp_wallet_snapshots p ON p.wallet_id = s.wallet_id
          AND p.sync_run_id = (SELECT MAX(sync_run_id) FROM dp_wallet_snapshots q WHERE q.wallet_id = s.wallet_id AND q.sync_run_id < s.sync_run_id)
         WHERE s.sync_run_id <= ? ORDER BY s.wallet_id, s.sync_run_id`,
      )
      .all(syncRunId) as Row[];
    const placed = sqlite.prepare(`SELECT COALESCE(SUM(total_amount_cents), 0) FROM dp_orders WHERE currency = ? AND created_at_ms > ? AND created_at_ms <= ?`).pluck();
    const failed = sqlite.prepare(`SELECT COALESCE(SUM(total_amount_cents), 0) FROM dp_orders WHERE currency = ? AND status = 'FAILED' AND updated_at_ms > ? AND updated_at_ms <= ?`).pluck();
    return wallets.flatMap((w) => {
      if (w.balance_cents === null || w.previous_balance_cents === null) return [];
      const window = [w.currency, w.previous_read_at_ms, w.read_at_ms] as const;
      const ordered = placed.get(...window) as number;
      const refunded = failed.get(...window) as number;
      const expected = w.previous_balance_cents - ordered + refunded;
      if (expected === w.balance_cents) return [];
      const unexplained = w.balance_cents - expected;
      return [
        {
          entityType: 'dpWallet' as const,
          entityId: w.wallet_id,
          currency: w.currency,
          // The wallet and the two snapshots the drift lies between.
          identity: [String(w.previous_sync_run_id), String(w.sync_run_id)],
          measure: cents(expected, w.balance_cents),
          message:
            `wallet ${w.wallet_id} went from ${money(w.previous_balance_cents, w.currency)} (sync ${w.previous_sync_run_id}, ${isoUtc(w.previous_read_at_ms)}) to ${money(w.balance_cents, w.currency)} (sync ${w.sync_run_id}, ${isoUtc(w.read_at_ms)}); ` +
            `orders placed in between explain −${money(ordered, w.currency)} and failed orders +${money(refunded, w.currency)}, leaving ${money(Math.abs(unexplained), w.currency)} ${unexplained > 0 ? 'credited' : 'charged'} without an order — ask the partner for the wallet statement`,
          records: [walletRef(w.wallet_id)],
        },
      ];
    });
  },
};
