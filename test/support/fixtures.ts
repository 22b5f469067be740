/**
 * Builders of check fixtures: a card with a ledger that follows the spec's rules (for the
 * pure card checks), and a real mirror filled row by row (for the query checks), on the test
 * file's backend (test/support/test-db.ts).
 */
import type { Mirror } from '../../src/db/mirror.js';
import { DEFAULT_CHECK_OPTIONS, type CardLedger, type CheckContext, type LedgerEntry } from '../../src/checks/check.js';
import { ON_POSTGRES, openMirrorAt } from './test-db.js';
import { cents } from '../../src/money.js';

export const T0 = Date.parse('2026-10-01T12:00:00Z');
export const MERCHANT = '00000000-0000-4000-8000-00000000000a';
export const OTHER_MERCHANT = '00000000-0000-4000-8000-00000000000b';

export type Op =
  | { type: 'DEBIT' | 'REFUND'; amount: number; ref?: string; key?: string; at?: number }
  | { type: 'VOID' | 'EXPIRE'; at?: number };

/**
 * A card of `initial` cents and the entries `ops` make, each consistent with the last:
 * one minute apart from T0 unless `at` says otherwise. The card's remaining balance and status
 * follow the ledger.
 */
export function cardLedger(initial: number, ops: Op[], card: Partial<CardLedger['card']> = {}): CardLedger {
  let balance = initial;
  let status = 'ACTIVE';
  const entries: LedgerEntry[] = ops.map((op, i) => {
    const before = balance;
    if (op.type === 'DEBIT') balance -= op.amount;
    if (op.type === 'REFUND') balance += op.amount;
    if (op.type === 'VOID') status = 'INACTIVE';
    if (op.type === 'EXPIRE') status = 'EXPIRED';
    return {
      transactionId: `entry-${i + 1}`,
      type: op.type,
      amountCents: cents('amount' in op ? op.amount : 0),
      beforeCents: cents(before),
      afterCents: cents(balance),
      referenceId: 'ref' in op && op.ref ? op.ref : `ORD-${i + 1}`,
      idempotencyKey: 'key' in op && op.key ? op.key : `key-${i + 1}`,
      createdAtMs: op.at ?? T0 + (i + 1) * 60_000,
      listOrder: i + 1,
    };
  });
  return {
    card: {
      giftCardId: 'card-1',
      merchantId: MERCHANT,
      status,
      currency: 'USD',
      programId: null,
      issuedAtMs: T0,
      initialCents: cents(initial),
      remainingCents: cents(balance),
      expiresAtMs: T0 + 365 * 86_400_000,
      readAtMs: T0 + 86_400_000,
      ...card,
    },
    entries,
  };
}

/** The entry with this ID, for planting a break in a fixture. */
export function entryOf(ledger: CardLedger, id: string): LedgerEntry {
  const entry = ledger.entries.find((e) => e.transactionId === id);
  if (!entry) throw new Error(`no ${id}`);
  return entry;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * A real mirror filled directly, one sync run at a time. Its writes are the connection's
 * deferred ones (Write.later): at once on SQLite, and on PostgreSQL sent before the next
 * statement on the mirror's session, so that a fixture is built without awaiting each row and
 * every read (a check's, {@link FixtureMirror.rows}) sees it whole.
 */
export class FixtureMirror {
  syncRunId = 0;
  readonly #startedAtMs = new Map<number, number>();
  #made = 0;

  /** A UUID of its own for a record the test did not name, the same on every run (messages quote it). */
  #uuid(prefix: 'c' | 'd' | 'e'): string {
    this.#made += 1;
    return `${prefix}0000000-0000-4000-8000-${this.#made.toString().padStart(12, '0')}`;
  }

  private constructor(readonly mirror: Mirror) {
    this.sync();
  }

  /** Opens (making) the mirror at `location`, a path or a URL (test/support/test-db.ts: mirrorAt). */
  static async open(location: string): Promise<FixtureMirror> {
    return new FixtureMirror(await openMirrorAt(location));
  }

  /** Writes one statement (deferred, see the class). */
  run(sql: string, ...params: unknown[]): void {
    this.mirror.connection.write(sql).later(...params);
  }

  /** Reads rows, after every write before it. */
  rows<Row = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<Row[]> {
    return this.mirror.connection.read<Row>(sql).all(...params);
  }

  /** The first column of the rows a SELECT reads. */
  column(sql: string, ...params: unknown[]): Promise<unknown[]> {
    return this.mirror.connection.pluck<unknown>(sql).all(...params);
  }

  /** Starts (and records as completed unless told) a new sync run; later rows carry its ID. */
  sync(status: 'completed' | 'failed' | 'running' = 'completed', startedAtMs = T0 + 2 * 86_400_000): number {
    this.syncRunId += 1;
    this.#startedAtMs.set(this.syncRunId, startedAtMs);
    this.run(
      `INSERT INTO sync_runs (sync_run_id, mode, status, started_at, started_at_ms, pid, giftcard_base_url, dp_base_url) VALUES (?, 'full', ?, ?, ?, 1, 'http://127.0.0.1:1', 'http://127.0.0.1:2')`,
      this.syncRunId,
      status,
      iso(startedAtMs),
      startedAtMs,
    );
    // A run the product starts after these is numbered after them.
    if (ON_POSTGRES) this.run("SELECT setval(pg_get_serial_sequence('sync_runs', 'sync_run_id'), ?)", this.syncRunId);
    return this.syncRunId;
  }

  context(overrides: Partial<CheckContext> = {}): CheckContext {
    const asOfMs = this.#startedAtMs.get(this.syncRunId) ?? T0;
    return {
      mirror: this.mirror,
      syncRunId: this.syncRunId,
      previousSyncRunId: this.syncRunId > 1 ? this.syncRunId - 1 : null,
      asOfMs,
      merchantId: MERCHANT,
      options: DEFAULT_CHECK_OPTIONS,
      ...overrides,
    };
  }

  /** Writes a card and its ledger as {@link cardLedger} built them. */
  ledger(ledger: CardLedger): CardLedger {
    const { card } = ledger;
    this.run(
      `INSERT INTO gift_cards (gift_card_id, merchant_id, status, currency, program_id, initial_balance_cents, remaining_balance_cents, version, issued_at, issued_at_ms, expires_at, expires_at_ms, created_at, updated_at, updated_at_ms, read_at_ms, read_sync_run_id, first_sync_run_id, raw_json)
         VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}')
         ON CONFLICT (gift_card_id) DO UPDATE SET status = excluded.status, remaining_balance_cents = excluded.remaining_balance_cents, read_sync_run_id = excluded.read_sync_run_id`,
      card.giftCardId,
      card.merchantId,
      card.status,
      card.currency,
      card.programId,
      card.initialCents,
      card.remainingCents,
      iso(card.issuedAtMs),
      card.issuedAtMs,
      iso(card.expiresAtMs),
      card.expiresAtMs,
      iso(T0),
      iso(T0),
      T0,
      card.readAtMs,
      this.syncRunId,
      this.syncRunId,
    );
    for (const e of ledger.entries) this.entry(card.giftCardId, e);
    return ledger;
  }

  entry(giftCardId: string, e: LedgerEntry): void {
    this.run(
      `INSERT INTO gift_card_transactions (transaction_id, gift_card_id, type, amount_cents, balance_before_cents, balance_after_cents, reference_id, idempotency_key, created_at, created_at_ms, list_order, first_sync_run_id, raw_json)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      e.transactionId,
      giftCardId,
      e.type,
      e.amountCents,
      e.beforeCents,
      e.afterCents,
      e.referenceId,
      e.idempotencyKey,
      iso(e.createdAtMs),
      e.createdAtMs,
      e.listOrder,
      this.syncRunId,
      JSON.stringify({ transactionId: e.transactionId, giftCardId, amount: (e.amountCents ?? 0) / 100 }),
    );
  }

  coupon(c: {
    id?: string;
    merchantId?: string;
    status?: string;
    redemptionCount?: number;
    usageLimitTotal?: number;
    expiresAtMs?: number;
  }): string {
    const id = c.id ?? this.#uuid('c');
    const status = c.status ?? 'ACTIVE';
    const count = c.redemptionCount ?? 0;
    const expires = c.expiresAtMs ?? T0 + 30 * 86_400_000;
    this.run(
      `INSERT INTO coupons (coupon_id, merchant_id, status, redemption_count, usage_limit_total, version, expires_at, expires_at_ms, created_at, updated_at, updated_at_ms, first_sync_run_id, raw_json)
         VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, '{}')
         ON CONFLICT (coupon_id) DO UPDATE SET status = excluded.status, redemption_count = excluded.redemption_count`,
      id,
      c.merchantId ?? MERCHANT,
      status,
      count,
      c.usageLimitTotal ?? 1,
      iso(expires),
      expires,
      iso(T0),
      iso(T0),
      T0,
      this.syncRunId,
    );
    this.run(
      'INSERT INTO coupon_history (coupon_id, sync_run_id, status, redemption_count, version) VALUES (?, ?, ?, ?, 1)',
      id,
      this.syncRunId,
      status,
      count,
    );
    return id;
  }

  /**
   * An order with lines; each line's totals follow price × quantity × fxRate unless overridden,
   * the order total is their sum, and a COMPLETED order carries one voucher per unit.
   */
  order(o: {
    id?: string;
    externalRefId?: string;
    status?: string;
    fulfillment?: string;
    currency?: string;
    createdAtMs?: number;
    updatedAtMs?: number;
    totalCents?: number;
    lines?: Array<{
      quantity?: number;
      priceCents?: number;
      mrpCents?: number;
      currency?: string;
      fxRate?: number;
      totalPriceCents?: number;
      totalConvertedCents?: number;
      fulfilledQty?: number;
      vouchers?: string[];
      expiresAtMs?: number;
    }>;
  }): string {
    const id = o.id ?? this.#uuid('d');
    const status = o.status ?? 'COMPLETED';
    const completed = status === 'COMPLETED';
    const currency = o.currency ?? 'USD';
    const created = o.createdAtMs ?? T0;
    const lines = (o.lines ?? [{}]).map((l, i) => {
      const quantity = l.quantity ?? 1;
      const price = l.priceCents ?? 1_000;
      const fx = l.fxRate ?? 1;
      const totalPrice = l.totalPriceCents ?? price * quantity;
      const converted = l.totalConvertedCents ?? Math.round(totalPrice * fx);
      const fulfilled = l.fulfilledQty ?? (completed ? quantity : 0);
      const vouchers = l.vouchers ?? Array.from({ length: fulfilled }, () => this.#uuid('e'));
      return {
        no: i + 1,
        quantity,
        price,
        mrp: l.mrpCents ?? price,
        fx,
        totalPrice,
        converted,
        fulfilled,
        vouchers,
        currency: l.currency ?? currency,
        expiresAtMs: l.expiresAtMs ?? created + 365 * 86_400_000,
      };
    });
    const total = o.totalCents ?? lines.reduce((sum, l) => sum + l.converted, 0);
    const updated = o.updatedAtMs ?? created + 60_000;
    this.run(
      `INSERT INTO dp_orders (order_id, external_ref_id, dp_id, status, fulfillment_status, currency, total_amount_cents, created_at, created_at_ms, updated_at, updated_at_ms, first_sync_run_id, raw_json)
         VALUES (?, ?, 'dp-1', ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}')`,
      id,
      o.externalRefId ?? `PO-${id.slice(0, 8)}`,
      status,
      o.fulfillment ?? (completed ? 'FULFILLED' : 'PROCESSING'),
      currency,
      total,
      iso(created),
      created,
      iso(updated),
      updated,
      this.syncRunId,
    );
    for (const l of lines) {
      this.run(
        `INSERT INTO dp_order_lines (order_id, line_no, variant_id, product_id, quantity, currency, mrp_cents, price_cents, total_mrp_cents, total_price_cents, total_converted_price_cents, fx_rate, fulfillment_status, fulfilled_qty)
           VALUES (?, ?, 'variant-1', 'product-1', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        l.no,
        l.quantity,
        l.currency,
        l.mrp,
        l.price,
        l.mrp * l.quantity,
        l.totalPrice,
        l.converted,
        l.fx,
        completed ? 'FULFILLED' : 'PROCESSING',
        l.fulfilled,
      );
      l.vouchers.forEach((code, v) => {
        this.run(
          'INSERT INTO dp_vouchers (order_id, line_no, voucher_no, code_sha256, expiration_date, expiration_date_ms) VALUES (?, ?, ?, ?, ?, ?)',
          id,
          l.no,
          v + 1,
          code,
          iso(l.expiresAtMs),
          l.expiresAtMs,
        );
      });
    }
    return id;
  }

  /** A wallet read answered at `readAtMs`; its request was sent at `requestedAtMs` (default: the same instant). */
  wallet(walletId: string, balanceCents: number, readAtMs: number, currency = 'USD', requestedAtMs = readAtMs): void {
    this.run(
      `INSERT INTO dp_wallet_snapshots (sync_run_id, wallet_id, currency, balance_cents, selected, requested_at_ms, read_at_ms, raw_json) VALUES (?, ?, ?, ?, TRUE, ?, ?, '{}')`,
      this.syncRunId,
      walletId,
      currency,
      balanceCents,
      requestedAtMs,
      readAtMs,
    );
  }

  async close(): Promise<void> {
    await this.mirror.close();
  }
}
