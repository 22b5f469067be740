import type Database from 'better-sqlite3';
import type { Mirror } from '../../src/db/mirror.js';
import { toCents } from '../../src/money.js';
import type { GroundTruth } from '../../src/sim/simulator.js';

const cents = (value: unknown): number | null => {
  if (typeof value !== 'number') return null;
  const result = toCents(value);
  return result.ok ? result.cents : null;
};

/** A comparable picture of a mirror, whichever database holds it: its statements are read by both. */
export async function pictureOf(mirror: Mirror) {
  const rows = new Map<string, unknown[]>();
  for (const sql of pictureReads()) rows.set(sql, await mirror.connection.read<unknown>(sql).all());
  return picture(<T>(sql: string) => rows.get(sql) as T[]);
}

/** Every statement the picture reads, in order. */
function pictureReads(): string[] {
  const asked: string[] = [];
  picture(<T>(sql: string) => {
    asked.push(sql);
    return [] as T[];
  });
  return asked;
}

/** A comparable picture of a mirror: per-record figures keyed by ID, in cents. */
export function mirrorPicture(sqlite: Database.Database) {
  return picture(<T>(sql: string) => sqlite.prepare(sql).all() as T[]);
}

function picture(rows: <T>(sql: string) => T[]) {
  return {
    giftCards: Object.fromEntries(
      rows<{ id: string; initial: number; remaining: number; status: string; version: number }>(
        'SELECT gift_card_id AS id, initial_balance_cents AS initial, remaining_balance_cents AS remaining, status, version FROM gift_cards',
      ).map((r) => [r.id, [r.initial, r.remaining, r.status, r.version]]),
    ),
    transactions: Object.fromEntries(
      rows<{ id: string; card: string; amount: number; after: number; type: string }>(
        'SELECT transaction_id AS id, gift_card_id AS card, amount_cents AS amount, balance_after_cents AS after, type FROM gift_card_transactions WHERE vanished_sync_run_id IS NULL',
      ).map((r) => [r.id, [r.card, r.type, r.amount, r.after]]),
    ),
    coupons: Object.fromEntries(
      rows<{ id: string; status: string; count: number }>(
        'SELECT coupon_id AS id, status, redemption_count AS count FROM coupons WHERE vanished_sync_run_id IS NULL',
      ).map((r) => [r.id, [r.status, r.count]]),
    ),
    orders: Object.fromEntries(
      rows<{
        id: string;
        status: string;
        total: number;
        lines: number;
        vouchers: number;
      }>(`SELECT o.order_id AS id, o.status, o.total_amount_cents AS total,
        (SELECT COUNT(*) FROM dp_order_lines l WHERE l.order_id = o.order_id) AS lines, (SELECT COUNT(*) FROM dp_vouchers v WHERE v.order_id = o.order_id) AS vouchers FROM dp_orders o WHERE o.vanished_sync_run_id IS NULL`).map(
        (r) => [r.id, [r.status, r.total, r.lines, r.vouchers]],
      ),
    ),
    products: rows<{ id: string }>(
      'SELECT product_id AS id FROM dp_products WHERE vanished_sync_run_id IS NULL ORDER BY product_id',
    ).map((r) => r.id),
    wallets: Object.fromEntries(
      rows<{ id: string; balance: number }>(
        'SELECT wallet_id AS id, balance_cents AS balance FROM dp_wallet_snapshots WHERE sync_run_id = (SELECT MAX(sync_run_id) FROM dp_wallet_snapshots)',
      ).map((r) => [r.id, r.balance]),
    ),
  };
}

/** The same picture drawn from the simulator's ground truth; malformed records are the quarantine's. */
export function truthPicture(truth: GroundTruth) {
  const valid = <T extends Record<string, unknown>>(records: T[], field: string) =>
    records.filter((r) => typeof r[field] === 'number');
  return {
    giftCards: Object.fromEntries(
      truth.giftCards.map((c) => [
        c.giftCardId,
        [cents(c.initialBalance), cents(c.remainingBalance), c.status, c.version],
      ]),
    ),
    transactions: Object.fromEntries(
      truth.transactions.map((t) => [t.transactionId, [t.giftCardId, t.type, cents(t.amount), cents(t.balanceAfter)]]),
    ),
    coupons: Object.fromEntries(
      valid(truth.coupons, 'redemptionCount').map((c) => [c.couponId, [c.status, c.redemptionCount]]),
    ),
    orders: Object.fromEntries(
      valid(truth.orders, 'totalAmount').map((o) => [
        o.orderID,
        [o.status, cents(o.totalAmount), o.lineItems.length, o.lineItems.reduce((n, l) => n + l.vouchers.length, 0)],
      ]),
    ),
    products: truth.products.map((p) => p.productID).sort(),
    wallets: Object.fromEntries(truth.wallets.map((w) => [w.walletID, cents(w.balance)])),
  };
}

/** Cents per currency of the cards' remaining balances, and of the ledger's entries per card, whichever database holds the mirror. */
export async function centsTotals(mirror: Mirror) {
  const rows = (sql: string) => mirror.connection.read<Record<string, unknown>>(sql).all();
  return {
    remainingByCurrency: await rows(
      'SELECT currency, SUM(remaining_balance_cents) AS total FROM gift_cards GROUP BY currency ORDER BY currency',
    ),
    ledgerByCard: await rows(
      "SELECT gift_card_id, SUM(CASE type WHEN 'DEBIT' THEN -amount_cents WHEN 'REFUND' THEN amount_cents ELSE 0 END) AS net FROM gift_card_transactions WHERE vanished_sync_run_id IS NULL GROUP BY gift_card_id ORDER BY gift_card_id",
    ),
  };
}
