/**
 * The sync's lists read whole every run: coupons with their history, the DP's wallets,
 * products with their variants, and orders with their lines, vouchers and history.
 */
import type { Read, SqlRow, Write } from '../db/connection.js';
import type { LoadedTable } from '../db/mirror.js';
import type { CouponRow, OrderRows, ProductRows, WalletRow } from './rows.js';
import {
  list,
  marks,
  statesOf,
  type CouponBefore,
  type Keyed,
  type OrderBefore,
  type SyncSession,
  type WriteOutcome,
} from './store-session.js';

const COUPON_COLUMNS = [
  'coupon_id',
  'merchant_id',
  'program_id',
  'template_id',
  'status',
  'redemption_count',
  'usage_limit_total',
  'version',
  'expires_at',
  'expires_at_ms',
  'created_at',
  'updated_at',
  'updated_at_ms',
  'raw_json',
] as const satisfies ReadonlyArray<keyof CouponRow>;
const fromExcluded = (columns: readonly string[]): string =>
  columns.map((column) => `${column} = excluded.${column}`).join(', ');

/** The tables whose lists are read whole every run, and their keys. */
const LISTED_KEYS = { coupons: 'coupon_id', dp_orders: 'order_id', dp_products: 'product_id' } as const;
export type ListedTable = keyof typeof LISTED_KEYS;

/** The mirrored lists whose size a walk expects. */
export type CountedTable = LoadedTable | 'dp_products' | 'dp_orders';

export class ListStore {
  readonly #session: SyncSession;
  readonly #s;
  readonly #unlisted: Record<ListedTable, { select: Read<string>; mark: Write }>;

  constructor(session: SyncSession) {
    this.#session = session;
    const { c, mirror } = session;
    const p = (sql: string) => c.write(sql);
    const unlisted = (table: ListedTable) => ({
      select: c.pluck<string>(`SELECT ${LISTED_KEYS[table]} FROM ${table} WHERE vanished_sync_run_id IS NULL`),
      mark: p(`UPDATE ${table} SET vanished_sync_run_id = ? WHERE ${LISTED_KEYS[table]} = ?`),
    });
    this.#unlisted = {
      coupons: unlisted('coupons'),
      dp_orders: unlisted('dp_orders'),
      dp_products: unlisted('dp_products'),
    };
    this.#s = {
      couponGet: c.read<CouponBefore>(
        'SELECT status, redemption_count, version, raw_json, vanished_sync_run_id FROM coupons WHERE coupon_id = ?',
      ),
      couponsGet: c.read<CouponBefore & Keyed>(
        `SELECT coupon_id AS id, status, redemption_count, version, raw_json, vanished_sync_run_id FROM coupons WHERE ${mirror.dialect.inJsonArray('coupon_id', '?')}`,
      ),
      couponUpsert:
        p(`INSERT INTO coupons (${list(COUPON_COLUMNS)}, first_sync_run_id) VALUES (${marks(COUPON_COLUMNS.length + 1)})
        ON CONFLICT (coupon_id) DO UPDATE SET ${fromExcluded(COUPON_COLUMNS.slice(1))}, vanished_sync_run_id = NULL`),
      couponInsert: p(
        `INSERT INTO coupons (${list(COUPON_COLUMNS)}, first_sync_run_id) VALUES (${marks(COUPON_COLUMNS.length + 1)})`,
      ),
      couponHistory: p(
        'INSERT INTO coupon_history (coupon_id, sync_run_id, status, redemption_count, version) VALUES (?, ?, ?, ?, ?)',
      ),
      couponVersion: p('INSERT INTO coupon_versions (coupon_id, sync_run_id, raw_json) VALUES (?, ?, ?)'),
      wallet:
        p(`INSERT INTO dp_wallet_snapshots (sync_run_id, wallet_id, currency, balance_cents, selected, requested_at_ms, read_at_ms, raw_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (sync_run_id, wallet_id) DO UPDATE SET currency = excluded.currency, balance_cents = excluded.balance_cents, selected = excluded.selected, requested_at_ms = excluded.requested_at_ms, read_at_ms = excluded.read_at_ms, raw_json = excluded.raw_json`),
      product:
        p(`INSERT INTO dp_products (product_id, product_name, display_name, currency, raw_json) VALUES (@product_id, @product_name, @display_name, @currency, @raw_json)
        ON CONFLICT (product_id) DO UPDATE SET product_name = excluded.product_name, display_name = excluded.display_name, currency = excluded.currency, vanished_sync_run_id = NULL, raw_json = excluded.raw_json`),
      productGet: c.read<SqlRow<'dp_products', 'raw_json' | 'vanished_sync_run_id'>>(
        'SELECT raw_json, vanished_sync_run_id FROM dp_products WHERE product_id = ?',
      ),
      variantsDelete: p('DELETE FROM dp_variants WHERE product_id = ?'),
      variant:
        p(`INSERT INTO dp_variants (variant_id, product_id, variant_name, mrp_cents, price_cents, converted_selling_price_cents, stock, raw_json)
        VALUES (@variant_id, @product_id, @variant_name, @mrp_cents, @price_cents, @converted_selling_price_cents, @stock, @raw_json)
        ON CONFLICT (variant_id) DO UPDATE SET product_id = excluded.product_id, variant_name = excluded.variant_name, mrp_cents = excluded.mrp_cents, price_cents = excluded.price_cents,
        converted_selling_price_cents = excluded.converted_selling_price_cents, stock = excluded.stock, raw_json = excluded.raw_json`),
      orderGet: c.read<OrderBefore>(
        'SELECT status, fulfillment_status, raw_json, vanished_sync_run_id FROM dp_orders WHERE order_id = ?',
      ),
      ordersGet: c.read<OrderBefore & Keyed>(
        `SELECT order_id AS id, status, fulfillment_status, raw_json, vanished_sync_run_id FROM dp_orders WHERE ${mirror.dialect.inJsonArray('order_id', '?')}`,
      ),
      orderUpsert:
        p(`INSERT INTO dp_orders (order_id, external_ref_id, dp_id, type, status, fulfillment_status, currency, total_amount_cents, total_order_mrp_cents, created_at, created_at_ms, updated_at, updated_at_ms, first_sync_run_id, raw_json)
        VALUES (@order_id, @external_ref_id, @dp_id, @type, @status, @fulfillment_status, @currency, @total_amount_cents, @total_order_mrp_cents, @created_at, @created_at_ms, @updated_at, @updated_at_ms, @sync_run_id, @raw_json)
        ON CONFLICT (order_id) DO UPDATE SET external_ref_id = excluded.external_ref_id, dp_id = excluded.dp_id, type = excluded.type, status = excluded.status, fulfillment_status = excluded.fulfillment_status,
        currency = excluded.currency, total_amount_cents = excluded.total_amount_cents, total_order_mrp_cents = excluded.total_order_mrp_cents, created_at = excluded.created_at, created_at_ms = excluded.created_at_ms,
        updated_at = excluded.updated_at, updated_at_ms = excluded.updated_at_ms, vanished_sync_run_id = NULL, raw_json = excluded.raw_json`),
      linesDelete: p('DELETE FROM dp_order_lines WHERE order_id = ?'),
      vouchersDelete: p('DELETE FROM dp_vouchers WHERE order_id = ?'),
      line: p(`INSERT INTO dp_order_lines (order_id, line_no, variant_id, product_id, quantity, currency, mrp_cents, price_cents, total_mrp_cents, total_price_cents, total_converted_price_cents, fx_rate, mark_up_percentage, fulfillment_status, allocated_qty, fulfilled_qty)
        VALUES (@order_id, @line_no, @variant_id, @product_id, @quantity, @currency, @mrp_cents, @price_cents, @total_mrp_cents, @total_price_cents, @total_converted_price_cents, @fx_rate, @mark_up_percentage, @fulfillment_status, @allocated_qty, @fulfilled_qty)`),
      voucher: p(
        'INSERT INTO dp_vouchers (order_id, line_no, voucher_no, code_sha256, expiration_date, expiration_date_ms) VALUES (@order_id, @line_no, @voucher_no, @code_sha256, @expiration_date, @expiration_date_ms)',
      ),
      orderHistory: p(
        'INSERT INTO dp_order_history (order_id, sync_run_id, status, fulfillment_status, updated_at_ms) VALUES (?, ?, ?, ?, ?)',
      ),
      orderVersion: p(
        'INSERT INTO dp_order_versions (order_id, sync_run_id, raw_json, currency, total_amount_cents) VALUES (?, ?, ?, ?, ?)',
      ),
    };
  }

  /** Inside a batch on a server: these coupons' mirrored state, read in one statement. */
  async lookUpCoupons(ids: readonly string[]): Promise<void> {
    this.#session.lookedUp.coupons = await statesOf(this.#s.couponsGet, ids);
  }

  /** Inside a batch on a server: these orders' mirrored state, read in one statement. */
  async lookUpOrders(ids: readonly string[]): Promise<void> {
    this.#session.lookedUp.orders = await statesOf(this.#s.ordersGet, ids);
  }

  /** A coupon's mirrored state: as looked up for the batch (then as this batch wrote it), or read now. */
  async #couponBefore(id: string): Promise<CouponBefore | undefined> {
    const looked = this.#session.lookedUp.coupons;
    return looked?.has(id) ? looked.get(id) : this.#s.couponGet.get(id);
  }

  /** An order's mirrored state: as looked up for the batch (then as this batch wrote it), or read now. */
  async #orderBefore(id: string): Promise<OrderBefore | undefined> {
    const looked = this.#session.lookedUp.orders;
    return looked?.has(id) ? looked.get(id) : this.#s.orderGet.get(id);
  }

  async coupon(read: CouponRow, syncRunId: number): Promise<WriteOutcome> {
    const row = this.#session.storable(read);
    const unseen = this.#session.unseen('coupons', row.coupon_id);
    const before = unseen ? undefined : await this.#couponBefore(row.coupon_id);
    this.#session.lookedUp.coupons?.set(row.coupon_id, {
      status: row.status,
      redemption_count: row.redemption_count,
      version: row.version,
      raw_json: row.raw_json,
      vanished_sync_run_id: null,
    });
    // Unchanged: nothing to write, so a night with no change leaves the table as it was.
    if (before && before.raw_json === row.raw_json && before.vanished_sync_run_id === null) return 'same';
    // A coupon a bulk load has not met is inserted (an upsert is one statement a row on a server).
    (unseen ? this.#s.couponInsert : this.#s.couponUpsert).later(
      ...COUPON_COLUMNS.map((column) => row[column]),
      syncRunId,
    );
    if (
      !before ||
      before.status !== row.status ||
      before.redemption_count !== row.redemption_count ||
      before.version !== row.version
    ) {
      this.#s.couponHistory.later(row.coupon_id, syncRunId, row.status, row.redemption_count, row.version);
    }
    this.#s.couponVersion.later(row.coupon_id, syncRunId, row.raw_json);
    return before ? 'changed' : 'new';
  }

  /** A wallet as read between `requestedAtMs` (the request sent) and `readAtMs` (the answer received). */
  async wallet(
    read: WalletRow,
    syncRunId: number,
    selected: boolean,
    requestedAtMs: number,
    readAtMs: number,
  ): Promise<void> {
    const row = this.#session.storable(read);
    this.#s.wallet.later(
      syncRunId,
      row.wallet_id,
      row.currency,
      row.balance_cents,
      selected ? 1 : 0,
      requestedAtMs,
      readAtMs,
      row.raw_json,
    );
  }

  async product(read: ProductRows): Promise<WriteOutcome> {
    const rows = {
      product: this.#session.storable(read.product),
      variants: read.variants.map((variant) => this.#session.storable(variant)),
    };
    const before = await this.#s.productGet.get(rows.product.product_id);
    if (before && before.raw_json === rows.product.raw_json && before.vanished_sync_run_id === null) return 'same';
    this.#s.product.later(rows.product);
    if (before && before.raw_json === rows.product.raw_json) return 'changed'; // listed again, as it was
    this.#s.variantsDelete.later(rows.product.product_id);
    for (const variant of rows.variants) this.#s.variant.later(variant);
    return before ? 'changed' : 'new';
  }

  /** Upserts an order with its lines and vouchers; a history row marks a status or fulfilment change. */
  async order(read: OrderRows, syncRunId: number): Promise<WriteOutcome> {
    const rows = { ...read, order: this.#session.storable(read.order) };
    const { order } = rows;
    const before = await this.#orderBefore(order.order_id);
    if (before && before.raw_json === order.raw_json && before.vanished_sync_run_id === null) return 'same';
    // Met again in this batch, it is read as this write leaves it.
    this.#session.lookedUp.orders?.delete(order.order_id);
    this.#s.orderUpsert.later({ ...order, sync_run_id: syncRunId });
    this.#s.vouchersDelete.later(order.order_id);
    this.#s.linesDelete.later(order.order_id);
    for (const line of rows.lines) this.#s.line.later(line);
    for (const voucher of rows.vouchers) this.#s.voucher.later(voucher);
    if (!before || before.status !== order.status || before.fulfillment_status !== order.fulfillment_status) {
      this.#s.orderHistory.later(
        order.order_id,
        syncRunId,
        order.status,
        order.fulfillment_status,
        order.updated_at_ms,
      );
    }
    this.#s.orderVersion.later(order.order_id, syncRunId, order.raw_json, order.currency, order.total_amount_cents);
    return before ? 'changed' : 'new';
  }

  /**
   * After a walk that read a whole list in one go: its records the list no longer returned
   * are marked vanished in this sync (they stay in the mirror as last read).
   */
  async markUnlisted(table: ListedTable, listed: ReadonlySet<string>, syncRunId: number): Promise<number> {
    const { select, mark } = this.#unlisted[table];
    const gone = (await select.all()).filter((id) => !listed.has(id));
    for (const id of gone) {
      mark.later(syncRunId, id);
      // A coupon's or order's versions say it is no longer listed from this sync on.
      if (table === 'coupons') this.#s.couponVersion.later(id, syncRunId, null);
      else if (table === 'dp_orders') this.#s.orderVersion.later(id, syncRunId, null, null, null);
    }
    return gone.length;
  }

  /** The records of a mirrored list the service still listed when last read: the next walk's expectation. */
  async listedCount(table: CountedTable): Promise<number> {
    const count = this.#session.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
    const row = await (table === 'gift_cards'
      ? count
      : count.where('vanished_sync_run_id', 'is', null)
    ).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** One record ID of each merchant in `table` (the most numerous merchants first), at most `limit`. */
  async oneRecordPerMerchant(table: 'gift_cards' | 'coupons', limit: number): Promise<string[]> {
    const rows =
      table === 'gift_cards'
        ? await this.#session.db
            .selectFrom('gift_cards')
            .select((eb) => eb.fn.min('gift_card_id').as('id'))
            .groupBy('merchant_id')
            .orderBy((eb) => eb.fn.countAll(), 'desc')
            .orderBy('merchant_id')
            .limit(limit)
            .execute()
        : await this.#session.db
            .selectFrom('coupons')
            .select((eb) => eb.fn.min('coupon_id').as('id'))
            .where('vanished_sync_run_id', 'is', null)
            .groupBy('merchant_id')
            .orderBy((eb) => eb.fn.countAll(), 'desc')
            .orderBy('merchant_id')
            .limit(limit)
            .execute();
    return rows.map((row) => row.id);
  }
}
