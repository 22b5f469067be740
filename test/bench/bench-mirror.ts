/**
 * Bench mirrors written directly (not over HTTP): legal ledgers with entries interleaved in
 * time across cards as a real ledger is, plus coupons and orders. Built once under
 * data/bench/ and reused by later runs.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openMirror } from '../../src/db/mirror.js';
import { createLedgerIndexes, dropLedgerIndexes } from '../../src/db/sqlite/indexes.js';
import { Random } from '../../src/sim/random.js';
import { testNow } from '../support/test-clock.js';

const DAY = 86_400_000;
const CURRENCIES = ['USD', 'EUR', 'GBP', 'INR'];
const iso = (ms: number): string => new Date(ms).toISOString();

const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Writes a mirror of `entries` legal ledger entries over `cards` cards, plus coupons and orders. */
export function build(path: string, entries: number, cards: number): void {
  const started = performance.now();
  const temporary = `${path}.building`;
  rmSync(temporary, { force: true });
  const mirror = openMirror(temporary);
  const { sqlite } = mirror;
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('cache_size = -1048576');
  dropLedgerIndexes(sqlite);
  const random = new Random(7);
  const merchantId = randomUUID();
  const nowMs = testNow();
  const t0 = nowMs - 400 * DAY;
  sqlite
    .prepare(
      `INSERT INTO sync_runs (mode, status, started_at, started_at_ms, finished_at_ms, pid, giftcard_base_url, dp_base_url) VALUES ('full', 'completed', ?, ?, ?, 1, 'bench', 'bench')`,
    )
    .run(iso(nowMs), nowMs, nowMs);

  const ids: string[] = Array.from({ length: cards }, () => randomUUID());
  const initial = new Int32Array(cards);
  const balance = new Int32Array(cards);
  const closed = new Uint8Array(cards);
  const lastDebit = new Int32Array(cards);
  const lastRef: string[] = new Array<string>(cards).fill('');
  for (let c = 0; c < cards; c += 1) {
    initial[c] = [2_500, 5_000, 10_000, 20_000][c % 4] ?? 5_000;
    balance[c] = initial[c] ?? 0;
  }

  const insertEntry = sqlite.prepare(
    `INSERT INTO gift_card_transactions (transaction_id, gift_card_id, type, amount_cents, balance_before_cents, balance_after_cents, reference_id, idempotency_key, created_at, created_at_ms, list_order, first_sync_run_id, raw_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
  );
  const step = (400 * DAY) / entries;
  const batch = 50_000;
  for (let start = 0; start < entries; start += batch) {
    sqlite.transaction(() => {
      for (let i = start; i < Math.min(entries, start + batch); i += 1) {
        let c = random.int(0, cards - 1);
        while (closed[c]) c = (c + 1) % cards;
        const before = balance[c] ?? 0;
        let type = 'DEBIT';
        let amount: number;
        let reference: string;
        const roll = random.next();
        if (roll < 0.0005 || before === 0) {
          type = roll < 0.00025 ? 'VOID' : 'EXPIRE';
          amount = 0;
          reference = `CLOSE-${i}`;
          closed[c] = 1;
        } else if (roll < 0.15 && (lastDebit[c] ?? 0) > 0) {
          type = 'REFUND';
          amount = lastDebit[c] ?? 0;
          reference = lastRef[c] ?? '';
          lastDebit[c] = 0;
        } else {
          amount = Math.max(1, Math.floor(before * random.next() * 0.5));
          reference = `ORD-${i}`;
          lastDebit[c] = amount;
          lastRef[c] = reference;
        }
        const after = type === 'DEBIT' ? before - amount : type === 'REFUND' ? before + amount : before;
        balance[c] = after;
        const id = randomUUID();
        const key = randomUUID();
        const at = Math.floor(t0 + i * step);
        const card = ids[c] ?? '';
        const raw = `{"transactionId":"${id}","giftCardId":"${card}","type":"${type}","amount":${amount / 100},"balanceBefore":${before / 100},"balanceAfter":${after / 100},"referenceId":"${reference}","idempotencyKey":"${key}","createdAt":"${iso(at)}"}`;
        insertEntry.run(id, card, type, amount, before, after, reference, key, iso(at), at, i, raw);
      }
    })();
  }
  const insertCard = sqlite.prepare(
    `INSERT INTO gift_cards (gift_card_id, merchant_id, status, currency, initial_balance_cents, remaining_balance_cents, version, issued_at, issued_at_ms, expires_at, expires_at_ms, created_at, updated_at, updated_at_ms, read_at_ms, read_sync_run_id, first_sync_run_id, raw_json)
     VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1, ?)`,
  );
  sqlite.transaction(() => {
    for (let c = 0; c < cards; c += 1) {
      const id = ids[c] ?? '';
      const status = closed[c] ? 'INACTIVE' : 'ACTIVE';
      const currency = CURRENCIES[c % CURRENCIES.length] ?? 'USD';
      const expires = nowMs + 365 * DAY;
      insertCard.run(
        id,
        merchantId,
        status,
        currency,
        initial[c],
        balance[c],
        iso(t0),
        t0,
        iso(expires),
        expires,
        iso(t0),
        iso(nowMs),
        nowMs,
        nowMs,
        `{"giftCardId":"${id}","merchantId":"${merchantId}","status":"${status}","currency":"${currency}","initialBalance":${(initial[c] ?? 0) / 100},"remainingBalance":${(balance[c] ?? 0) / 100}}`,
      );
    }
  })();
  // Cards closed by VOID are INACTIVE; by EXPIRE, EXPIRED.
  sqlite.exec(
    `UPDATE gift_cards SET status = 'EXPIRED' WHERE gift_card_id IN (SELECT gift_card_id FROM gift_card_transactions WHERE type = 'EXPIRE')`,
  );
  // Each card's history row, as the sync writes one for a new card: a night re-performs from it.
  sqlite.exec(
    `INSERT INTO gift_card_history (gift_card_id, sync_run_id, read_at_ms, status, remaining_balance_cents, version)
     SELECT gift_card_id, 1, read_at_ms, status, remaining_balance_cents, version FROM gift_cards`,
  );
  // Coupons and orders as a sync keeps them: each row with the service's record as its raw JSON
  // (an order's voucher codes as their hashes) and the version the sync wrote of it, so a night
  // over this mirror re-performs its checks over them (verify --run rebuilds them from the versions).
  const insertCoupon = sqlite.prepare(
    `INSERT INTO coupons (coupon_id, merchant_id, status, redemption_count, usage_limit_total, version, expires_at, expires_at_ms, created_at, updated_at, updated_at_ms, first_sync_run_id, raw_json)
     VALUES (?, ?, 'ACTIVE', ?, 0, 1, ?, ?, ?, ?, ?, 1, ?)`,
  );
  const insertCouponVersion = sqlite.prepare(
    'INSERT INTO coupon_versions (coupon_id, sync_run_id, raw_json) VALUES (?, 1, ?)',
  );
  const insertHistory = sqlite.prepare(
    'INSERT INTO coupon_history (coupon_id, sync_run_id, status, redemption_count, version) VALUES (?, 1, ?, ?, 1)',
  );
  sqlite.transaction(() => {
    for (let i = 0; i < cards / 10; i += 1) {
      const id = randomUUID();
      const expires = nowMs + 30 * DAY;
      const raw = JSON.stringify({
        couponId: id,
        merchantId,
        status: 'ACTIVE',
        redemptionCount: i % 7,
        usageLimitTotal: 0,
        expiresAt: iso(expires),
        version: 1,
        createdAt: iso(t0),
        updatedAt: iso(t0),
      });
      insertCoupon.run(id, merchantId, i % 7, iso(expires), expires, iso(t0), iso(t0), t0, raw);
      insertCouponVersion.run(id, raw);
      insertHistory.run(id, 'ACTIVE', i % 7);
    }
  })();
  const insertOrder = sqlite.prepare(
    `INSERT INTO dp_orders (order_id, external_ref_id, dp_id, status, fulfillment_status, currency, total_amount_cents, created_at, created_at_ms, updated_at, updated_at_ms, first_sync_run_id, raw_json)
     VALUES (?, ?, 'DP-1', 'COMPLETED', 'FULFILLED', 'USD', ?, ?, ?, ?, ?, 1, ?)`,
  );
  const insertOrderVersion = sqlite.prepare(
    "INSERT INTO dp_order_versions (order_id, sync_run_id, raw_json, currency, total_amount_cents) VALUES (?, 1, ?, 'USD', ?)",
  );
  const insertLine = sqlite.prepare(
    `INSERT INTO dp_order_lines (order_id, line_no, variant_id, product_id, quantity, currency, mrp_cents, price_cents, total_mrp_cents, total_price_cents, total_converted_price_cents, fx_rate, fulfillment_status, fulfilled_qty)
     VALUES (?, 0, 'v', 'p', 2, 'USD', 1000, 1000, 2000, 2000, 2000, 1, 'FULFILLED', 2)`,
  );
  const insertVoucher = sqlite.prepare(
    'INSERT INTO dp_vouchers (order_id, line_no, voucher_no, code_sha256, expiration_date, expiration_date_ms) VALUES (?, 0, ?, ?, ?, ?)',
  );
  sqlite.transaction(() => {
    for (let i = 0; i < cards / 100; i += 1) {
      const id = randomUUID();
      const at = t0 + i * 60_000;
      const expires = nowMs + 365 * DAY;
      const vouchers = [0, 1].map(() => ({ voucherCodeSha256: sha256Hex(randomUUID()), expirationDate: iso(expires) }));
      const raw = JSON.stringify({
        orderID: id,
        externalRefID: `PO-${i}`,
        dpID: 'DP-1',
        totalAmount: 20,
        currency: 'USD',
        status: 'COMPLETED',
        fulfillmentStatus: 'FULFILLED',
        createdAt: iso(at),
        updatedAt: iso(at + 60_000),
        lineItems: [
          {
            variantID: 'v',
            productID: 'p',
            quantity: 2,
            mrp: 10,
            price: 10,
            totalMRP: 20,
            totalPrice: 20,
            totalConvertedPrice: 20,
            currency: 'USD',
            fxRate: 1,
            vouchers,
            fulfillmentStatus: 'FULFILLED',
            fulfilledQty: 2,
          },
        ],
      });
      insertOrder.run(id, `PO-${i}`, 2_000, iso(at), at, iso(at + 60_000), at + 60_000, raw);
      insertOrderVersion.run(id, raw, 2_000);
      insertLine.run(id);
      for (const [n, voucher] of vouchers.entries())
        insertVoucher.run(id, n, voucher.voucherCodeSha256, voucher.expirationDate, expires);
    }
  })();
  createLedgerIndexes(sqlite);
  sqlite.exec('ANALYZE');
  mirror.close();
  renameSync(temporary, path);
  for (const suffix of ['-wal', '-shm']) rmSync(`${temporary}${suffix}`, { force: true });
  process.stdout.write(
    `built ${path}: ${entries.toLocaleString('en')} entries, ${cards.toLocaleString('en')} cards in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
  );
}

/** The path of a bench mirror of this size, built first if missing. */
export function benchMirror(name: string, entries: number, cards: number): string {
  const folder = fileURLToPath(new URL('../../data/bench/', import.meta.url));
  mkdirSync(folder, { recursive: true });
  const path = `${folder}${name}.db`;
  if (!existsSync(path)) build(path, entries, cards);
  return path;
}
