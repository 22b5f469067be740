import { carriesSecret, redact } from '../log.js';
import type Database from 'better-sqlite3';
import type { PayloadValidationError } from '../errors.js';
import type { Resource } from '../api/wire-types.js';
import {
  recordIdOf,
  sha256,
  storedRawJson,
  type CouponRow,
  type GiftCardRow,
  type OrderRows,
  type ProductRows,
  type TransactionRow,
  type WalletRow,
} from './rows.js';

export type WriteOutcome = 'new' | 'changed' | 'same';

/*
 * The hot statements bind by position from these column lists: better-sqlite3 binds the
 * named parameters of a freshly built object several times slower, per row.
 */
const CARD_COLUMNS = [
  'gift_card_id', 'merchant_id', 'program_id', 'template_id', 'status', 'currency', 'initial_balance_cents', 'remaining_balance_cents', 'version',
  'issued_at', 'issued_at_ms', 'expires_at', 'expires_at_ms', 'created_at', 'updated_at', 'updated_at_ms', 'raw_json',
] as const satisfies ReadonlyArray<keyof GiftCardRow>;
const COUPON_COLUMNS = [
  'coupon_id', 'merchant_id', 'program_id', 'template_id', 'status', 'redemption_count', 'usage_limit_total', 'version',
  'expires_at', 'expires_at_ms', 'created_at', 'updated_at', 'updated_at_ms', 'raw_json',
] as const satisfies ReadonlyArray<keyof CouponRow>;
const list = (columns: readonly string[]): string => columns.join(', ');
const marks = (count: number): string => Array.from({ length: count }, () => '?').join(', ');
const fromExcluded = (columns: readonly string[]): string => columns.map((column) => `${column} = excluded.${column}`).join(', ');

/** The tables whose lists are read whole every run, and their keys. */
const LISTED_KEYS = { coupons: 'coupon_id', dp_orders: 'order_id', dp_products: 'product_id' } as const;
export type ListedTable = keyof typeof LISTED_KEYS;

export interface Checkpoint {
  resource: string;
  walkId: number;
  mode: 'full' | 'incremental';
  cursor: string | null;
  pages: number;
  records: number;
  stopBeforeMs: number | null;
  done: boolean;
}

/**
 * Every write the sync makes, as prepared statements on the raw connection (drizzle would
 * re-prepare per call). Callers wrap a page's writes and its checkpoint in one transaction.
 */
export class MirrorWriter {
  readonly #s;
  readonly #unlisted: Record<ListedTable, { select: Database.Statement; mark: Database.Statement }>;

  /** The client secrets: no raw record and no checkpoint is stored carrying one. */
  readonly #secrets: readonly string[];

  constructor(
    readonly sqlite: Database.Database,
    secrets: readonly string[] = [],
  ) {
    this.#secrets = secrets;
    const p = (sql: string) => sqlite.prepare(sql);
    const unlisted = (table: ListedTable) => ({
      select: p(`SELECT ${LISTED_KEYS[table]} FROM ${table} WHERE vanished_sync_run_id IS NULL`).pluck(),
      mark: p(`UPDATE ${table} SET vanished_sync_run_id = ? WHERE ${LISTED_KEYS[table]} = ?`),
    });
    this.#unlisted = { coupons: unlisted('coupons'), dp_orders: unlisted('dp_orders'), dp_products: unlisted('dp_products') };
    this.#s = {
      cardGet: p('SELECT status, remaining_balance_cents AS remaining, version, raw_json FROM gift_cards WHERE gift_card_id = ?'),
      cardInsert: p(`INSERT INTO gift_cards (${list(CARD_COLUMNS)}, read_at_ms, read_sync_run_id, first_sync_run_id) VALUES (${marks(CARD_COLUMNS.length + 3)})`),
      cardUpdate: p(`UPDATE gift_cards SET (${list(CARD_COLUMNS)}, read_at_ms, read_sync_run_id) = (${marks(CARD_COLUMNS.length + 2)}) WHERE gift_card_id = ?`),
      cardHistory: p('INSERT INTO gift_card_history (gift_card_id, sync_run_id, read_at_ms, status, remaining_balance_cents, version) VALUES (?, ?, ?, ?, ?, ?)'),
      entryGet: p('SELECT entry_id AS entryId, raw_json, vanished_sync_run_id AS vanished FROM gift_card_transactions WHERE transaction_id = ?'),
      // Bound by position: the ledger's hot path (named binding of a fresh object costs several µs a row).
      entryInsert: p(`INSERT OR IGNORE INTO gift_card_transactions (transaction_id, gift_card_id, type, amount_cents, balance_before_cents, balance_after_cents, reference_id, idempotency_key, created_at, created_at_ms, list_order, first_sync_run_id, raw_json)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      entryUpdate: p(`UPDATE gift_card_transactions SET gift_card_id = @gift_card_id, type = @type, amount_cents = @amount_cents, balance_before_cents = @balance_before_cents, balance_after_cents = @balance_after_cents,
        reference_id = @reference_id, idempotency_key = @idempotency_key, created_at = @created_at, created_at_ms = @created_at_ms, vanished_sync_run_id = NULL, raw_json = @raw_json WHERE transaction_id = @transaction_id`),
      entrySeen: p('INSERT INTO ledger_walk_seen (walk_id, entry_id) VALUES (?, ?)'),
      entryVersion: p('INSERT INTO gift_card_transaction_versions (transaction_id, sync_run_id, change, previous_raw_json, new_raw_json) VALUES (?, ?, ?, ?, ?)'),
      // Entries first mirrored by this walk were seen by it; earlier ones must be in its seen list.
      vanishedSelect: p(`SELECT transaction_id, raw_json FROM gift_card_transactions
        WHERE first_sync_run_id < @walkId AND vanished_sync_run_id IS NULL AND entry_id NOT IN (SELECT entry_id FROM ledger_walk_seen WHERE walk_id = @walkId)`),
      seenClear: p('DELETE FROM ledger_walk_seen'),
      vanishedMark: p('UPDATE gift_card_transactions SET vanished_sync_run_id = ? WHERE transaction_id = ?'),
      couponGet: p('SELECT status, redemption_count AS count, version, raw_json, vanished_sync_run_id AS vanished FROM coupons WHERE coupon_id = ?'),
      couponUpsert: p(`INSERT INTO coupons (${list(COUPON_COLUMNS)}, first_sync_run_id) VALUES (${marks(COUPON_COLUMNS.length + 1)})
        ON CONFLICT (coupon_id) DO UPDATE SET ${fromExcluded(COUPON_COLUMNS.slice(1))}, vanished_sync_run_id = NULL`),
      couponHistory: p('INSERT INTO coupon_history (coupon_id, sync_run_id, status, redemption_count, version) VALUES (?, ?, ?, ?, ?)'),
      wallet: p(`INSERT INTO dp_wallet_snapshots (sync_run_id, wallet_id, currency, balance_cents, selected, requested_at_ms, read_at_ms, raw_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (sync_run_id, wallet_id) DO UPDATE SET currency = excluded.currency, balance_cents = excluded.balance_cents, selected = excluded.selected, requested_at_ms = excluded.requested_at_ms, read_at_ms = excluded.read_at_ms, raw_json = excluded.raw_json`),
      product: p(`INSERT INTO dp_products (product_id, product_name, display_name, currency, raw_json) VALUES (@product_id, @product_name, @display_name, @currency, @raw_json)
        ON CONFLICT (product_id) DO UPDATE SET product_name = excluded.product_name, display_name = excluded.display_name, currency = excluded.currency, vanished_sync_run_id = NULL, raw_json = excluded.raw_json`),
      productGet: p('SELECT raw_json, vanished_sync_run_id AS vanished FROM dp_products WHERE product_id = ?'),
      variantsDelete: p('DELETE FROM dp_variants WHERE product_id = ?'),
      variant: p(`INSERT INTO dp_variants (variant_id, product_id, variant_name, mrp_cents, price_cents, converted_selling_price_cents, stock, raw_json)
        VALUES (@variant_id, @product_id, @variant_name, @mrp_cents, @price_cents, @converted_selling_price_cents, @stock, @raw_json)
        ON CONFLICT (variant_id) DO UPDATE SET product_id = excluded.product_id, variant_name = excluded.variant_name, mrp_cents = excluded.mrp_cents, price_cents = excluded.price_cents,
        converted_selling_price_cents = excluded.converted_selling_price_cents, stock = excluded.stock, raw_json = excluded.raw_json`),
      orderGet: p('SELECT status, fulfillment_status AS fulfillment, raw_json, vanished_sync_run_id AS vanished FROM dp_orders WHERE order_id = ?'),
      orderUpsert: p(`INSERT INTO dp_orders (order_id, external_ref_id, dp_id, type, status, fulfillment_status, currency, total_amount_cents, total_order_mrp_cents, created_at, created_at_ms, updated_at, updated_at_ms, first_sync_run_id, raw_json)
        VALUES (@order_id, @external_ref_id, @dp_id, @type, @status, @fulfillment_status, @currency, @total_amount_cents, @total_order_mrp_cents, @created_at, @created_at_ms, @updated_at, @updated_at_ms, @sync_run_id, @raw_json)
        ON CONFLICT (order_id) DO UPDATE SET external_ref_id = excluded.external_ref_id, dp_id = excluded.dp_id, type = excluded.type, status = excluded.status, fulfillment_status = excluded.fulfillment_status,
        currency = excluded.currency, total_amount_cents = excluded.total_amount_cents, total_order_mrp_cents = excluded.total_order_mrp_cents, created_at = excluded.created_at, created_at_ms = excluded.created_at_ms,
        updated_at = excluded.updated_at, updated_at_ms = excluded.updated_at_ms, vanished_sync_run_id = NULL, raw_json = excluded.raw_json`),
      linesDelete: p('DELETE FROM dp_order_lines WHERE order_id = ?'),
      vouchersDelete: p('DELETE FROM dp_vouchers WHERE order_id = ?'),
      line: p(`INSERT INTO dp_order_lines (order_id, line_no, variant_id, product_id, quantity, currency, mrp_cents, price_cents, total_mrp_cents, total_price_cents, total_converted_price_cents, fx_rate, mark_up_percentage, fulfillment_status, allocated_qty, fulfilled_qty)
        VALUES (@order_id, @line_no, @variant_id, @product_id, @quantity, @currency, @mrp_cents, @price_cents, @total_mrp_cents, @total_price_cents, @total_converted_price_cents, @fx_rate, @mark_up_percentage, @fulfillment_status, @allocated_qty, @fulfilled_qty)`),
      voucher: p('INSERT INTO dp_vouchers (order_id, line_no, voucher_no, code_sha256, expiration_date, expiration_date_ms) VALUES (@order_id, @line_no, @voucher_no, @code_sha256, @expiration_date, @expiration_date_ms)'),
      orderHistory: p('INSERT INTO dp_order_history (order_id, sync_run_id, status, fulfillment_status, updated_at_ms) VALUES (?, ?, ?, ?, ?)'),
      quarantine: p(`INSERT INTO quarantine (resource, record_id, reason, raw_json, raw_sha256, first_sync_run_id, last_sync_run_id) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (resource, raw_sha256) DO UPDATE SET last_sync_run_id = excluded.last_sync_run_id, reason = excluded.reason`),
      missing: p('INSERT INTO missing_gift_cards (gift_card_id, sync_run_id, checked_at_ms) VALUES (?, ?, ?) ON CONFLICT (gift_card_id) DO UPDATE SET sync_run_id = excluded.sync_run_id, checked_at_ms = excluded.checked_at_ms'),
      found: p('DELETE FROM missing_gift_cards WHERE gift_card_id = ?'),
      inFlight: p('INSERT OR REPLACE INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?)'),
      checkpointGet: p('SELECT resource, walk_id AS walkId, mode, cursor, pages, records, stop_before_ms AS stopBeforeMs, done FROM sync_checkpoints WHERE resource = ?'),
      checkpointPut: p(`INSERT INTO sync_checkpoints (resource, walk_id, mode, cursor, pages, records, stop_before_ms, done, updated_at_ms) VALUES (@resource, @walkId, @mode, @cursor, @pages, @records, @stopBeforeMs, @done, @updatedAtMs)
        ON CONFLICT (resource) DO UPDATE SET walk_id = excluded.walk_id, mode = excluded.mode, cursor = excluded.cursor, pages = excluded.pages, records = excluded.records, stop_before_ms = excluded.stop_before_ms, done = excluded.done, updated_at_ms = excluded.updated_at_ms`),
    };
  }

  /** Runs `work` in one transaction: all of it commits, or none. */
  transaction<T>(work: () => T): T {
    return this.sqlite.transaction(work)();
  }

  /**
   * A row as it may be stored: its raw JSON with any client secret the service echoed replaced
   * by `[redacted]`. The record was parsed as sent (a secret that occurs in data rewrites
   * nothing that is checked); only what is kept is redacted. Most rows carry none: the same row.
   */
  #stored<T extends { raw_json: string }>(row: T): T {
    return carriesSecret(row.raw_json, this.#secrets) ? { ...row, raw_json: redact(row.raw_json, this.#secrets) } : row;
  }

  /** Upserts a card snapshot; a history row marks a new card or a changed balance, status or version. */
  card(read: GiftCardRow, syncRunId: number, readAtMs: number): WriteOutcome {
    const row = this.#stored(read);
    const before = this.#s.cardGet.get(row.gift_card_id) as { status: string; remaining: number | null; version: number; raw_json: string } | undefined;
    const values = [...CARD_COLUMNS.map((column) => row[column]), readAtMs, syncRunId];
    if (!before) {
      this.#s.cardInsert.run(...values, syncRunId);
      this.#s.cardHistory.run(row.gift_card_id, syncRunId, readAtMs, row.status, row.remaining_balance_cents, row.version);
      return 'new';
    }
    // Unchanged: nothing to write. Its snapshot keeps the sync that last saw it change, and
    // the settle pass re-reads it if its ledger moved since.
    if (before.raw_json === row.raw_json) return 'same';
    this.#s.cardUpdate.run(...values, row.gift_card_id);
    if (before.status === row.status && before.remaining === row.remaining_balance_cents && before.version === row.version) return 'changed';
    this.#s.cardHistory.run(row.gift_card_id, syncRunId, readAtMs, row.status, row.remaining_balance_cents, row.version);
    return 'changed';
  }

  /**
   * Upserts a ledger entry; one that comes back different keeps its previous version. A bulk
   * load into an empty ledger tries the insert first (nearly every entry is new, and the
   * lookup is skipped); otherwise most entries are known and the lookup comes first. A --full
   * walk passes its ID: an entry the mirror held before is then noted as found by that walk.
   */
  entry(read: TransactionRow, syncRunId: number, listOrder: number, how: { bulkLoad?: boolean; fullWalkId?: number | undefined } = {}): WriteOutcome {
    const row = this.#stored(read);
    type Known = { entryId: number; raw_json: string; vanished: number | null };
    let before = how.bulkLoad ? undefined : (this.#s.entryGet.get(row.transaction_id) as Known | undefined);
    if (!before) {
      const inserted = this.#s.entryInsert.run(
        row.transaction_id, row.gift_card_id, row.type, row.amount_cents, row.balance_before_cents, row.balance_after_cents,
        row.reference_id, row.idempotency_key, row.created_at, row.created_at_ms, listOrder, syncRunId, row.raw_json,
      );
      if (inserted.changes === 1) return 'new';
      before = this.#s.entryGet.get(row.transaction_id) as Known;
    }
    if (how.fullWalkId !== undefined) this.#s.entrySeen.run(how.fullWalkId, before.entryId);
    // Unchanged: nothing to write.
    if (before.raw_json === row.raw_json && before.vanished === null) return 'same';
    if (before.raw_json !== row.raw_json) this.#s.entryVersion.run(row.transaction_id, syncRunId, 'changed', before.raw_json, row.raw_json);
    this.#s.entryUpdate.run(row);
    return 'changed';
  }

  /**
   * A rebind: what the previous services listed is no longer current, so two services' records
   * never merge. Ledger entries stay as last read, marked vanished by this sync without a
   * version row (no entry of theirs was rewritten: another service is being read); cards,
   * coupons, products and orders leave the current tables, their history staying in
   * gift_card_history, coupon_history and dp_order_history; walks in progress start again.
   * Records the new services list again (the same service at a new address) come back as read.
   */
  retireBinding(syncRunId: number): void {
    this.transaction(() => {
      this.sqlite.prepare('UPDATE gift_card_transactions SET vanished_sync_run_id = ? WHERE vanished_sync_run_id IS NULL').run(syncRunId);
      for (const table of ['missing_gift_cards', 'gift_cards', 'coupons', 'dp_products', 'dp_orders', 'sync_checkpoints', 'ledger_walk_seen']) this.sqlite.prepare(`DELETE FROM ${table}`).run();
    });
  }

  /**
   * After a complete --full walk: the entries the mirror held before it that it did not find
   * have vanished from the service. Empties the walk's seen list.
   */
  markVanished(walkId: number, syncRunId: number): number {
    const gone = this.#s.vanishedSelect.all({ walkId }) as Array<{ transaction_id: string; raw_json: string }>;
    for (const entry of gone) {
      this.#s.entryVersion.run(entry.transaction_id, syncRunId, 'vanished', entry.raw_json, null);
      this.#s.vanishedMark.run(syncRunId, entry.transaction_id);
    }
    this.#s.seenClear.run();
    return gone.length;
  }

  /**
   * After a walk that read a whole list in one go: its records the list no longer returned
   * are marked vanished in this sync (they stay in the mirror as last read).
   */
  markUnlisted(table: ListedTable, listed: ReadonlySet<string>, syncRunId: number): number {
    const { select, mark } = this.#unlisted[table];
    const gone = (select.all() as string[]).filter((id) => !listed.has(id));
    for (const id of gone) mark.run(syncRunId, id);
    return gone.length;
  }

  coupon(read: CouponRow, syncRunId: number): WriteOutcome {
    const row = this.#stored(read);
    const before = this.#s.couponGet.get(row.coupon_id) as { status: string; count: number; version: number; raw_json: string; vanished: number | null } | undefined;
    // Unchanged: nothing to write, so a night with no change leaves the table as it was.
    if (before && before.raw_json === row.raw_json && before.vanished === null) return 'same';
    this.#s.couponUpsert.run(...COUPON_COLUMNS.map((column) => row[column]), syncRunId);
    if (!before || before.status !== row.status || before.count !== row.redemption_count || before.version !== row.version) {
      this.#s.couponHistory.run(row.coupon_id, syncRunId, row.status, row.redemption_count, row.version);
    }
    return before ? 'changed' : 'new';
  }

  /** A wallet as read between `requestedAtMs` (the request sent) and `readAtMs` (the answer received). */
  wallet(read: WalletRow, syncRunId: number, selected: boolean, requestedAtMs: number, readAtMs: number): void {
    const row = this.#stored(read);
    this.#s.wallet.run(syncRunId, row.wallet_id, row.currency, row.balance_cents, selected ? 1 : 0, requestedAtMs, readAtMs, row.raw_json);
  }

  product(read: ProductRows): WriteOutcome {
    const rows = { product: this.#stored(read.product), variants: read.variants.map((variant) => this.#stored(variant)) };
    const before = this.#s.productGet.get(rows.product.product_id) as { raw_json: string; vanished: number | null } | undefined;
    if (before && before.raw_json === rows.product.raw_json && before.vanished === null) return 'same';
    this.#s.product.run(rows.product);
    if (before && before.raw_json === rows.product.raw_json) return 'changed'; // listed again, as it was
    this.#s.variantsDelete.run(rows.product.product_id);
    for (const variant of rows.variants) this.#s.variant.run(variant);
    return before ? 'changed' : 'new';
  }

  /** Upserts an order with its lines and vouchers; a history row marks a status or fulfilment change. */
  order(read: OrderRows, syncRunId: number): WriteOutcome {
    const rows = { ...read, order: this.#stored(read.order) };
    const { order } = rows;
    const before = this.#s.orderGet.get(order.order_id) as { status: string; fulfillment: string; raw_json: string; vanished: number | null } | undefined;
    if (before && before.raw_json === order.raw_json && before.vanished === null) return 'same';
    this.#s.orderUpsert.run({ ...order, sync_run_id: syncRunId });
    this.#s.vouchersDelete.run(order.order_id);
    this.#s.linesDelete.run(order.order_id);
    for (const line of rows.lines) this.#s.line.run(line);
    for (const voucher of rows.vouchers) this.#s.voucher.run(voucher);
    if (!before || before.status !== order.status || before.fulfillment !== order.fulfillment_status) {
      this.#s.orderHistory.run(order.order_id, syncRunId, order.status, order.fulfillment_status, order.updated_at_ms);
    }
    return before ? 'changed' : 'new';
  }

  /** Sets a failed record aside with its raw JSON (voucher codes hashed, PINs removed) and reason. */
  quarantine(resource: Resource, error: PayloadValidationError, syncRunId: number): void {
    const raw = redact(storedRawJson(error.raw), this.#secrets);
    this.#s.quarantine.run(resource, recordIdOf(error.raw), error.reason, raw, sha256(raw), syncRunId, syncRunId);
  }

  missingCard(giftCardId: string, syncRunId: number, checkedAtMs: number): void {
    this.#s.missing.run(giftCardId, syncRunId, checkedAtMs);
  }

  foundCard(giftCardId: string): void {
    this.#s.found.run(giftCardId);
  }

  inFlight(syncRunId: number, giftCardId: string, detail: string): void {
    this.#s.inFlight.run(syncRunId, giftCardId, detail);
  }

  checkpoint(resource: string): Checkpoint | undefined {
    const row = this.#s.checkpointGet.get(resource) as (Omit<Checkpoint, 'done'> & { done: number }) | undefined;
    return row ? { ...row, done: row.done === 1 } : undefined;
  }

  /**
   * Keeps a walk's place. A cursor that carries a client secret is sent back to the service as
   * received but never stored: the checkpoint keeps no cursor, and a resumed walk starts the
   * list again from its head.
   */
  saveCheckpoint(checkpoint: Checkpoint): void {
    const cursor = checkpoint.cursor !== null && carriesSecret(checkpoint.cursor, this.#secrets) ? null : checkpoint.cursor;
    this.#s.checkpointPut.run({ ...checkpoint, cursor, done: checkpoint.done ? 1 : 0, updatedAtMs: Date.now() });
  }
}
