/**
 * The sync's store: the only code that holds the mirror's connection for the tables the sync
 * owns (the mirrored records, their history, checkpoints, quarantine, sync runs, the mirror's
 * identity). Reads are async; the writes of one batch (a walk's pages and their checkpoint)
 * run inside {@link SyncStore.batch} as one unit, so no row is ever committed without its
 * checkpoint. The hot writes are prepared statements bound by position: a bulk load, the one
 * place where SQL stays hand-written (#31); each read's row type comes from the schema.
 */
import type { Read, SqlConnection, SqlRow, Write } from '../db/connection.js';
import type { LoadedTable, Mirror, MirrorQueries, SqlDialect } from '../db/mirror.js';
import type { PayloadValidationError } from '../errors.js';
import { carriesSecret, redact } from '../log.js';
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
  'gift_card_id',
  'merchant_id',
  'program_id',
  'template_id',
  'status',
  'currency',
  'initial_balance_cents',
  'remaining_balance_cents',
  'version',
  'issued_at',
  'issued_at_ms',
  'expires_at',
  'expires_at_ms',
  'created_at',
  'updated_at',
  'updated_at_ms',
  'raw_json',
] as const satisfies ReadonlyArray<keyof GiftCardRow>;
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
const list = (columns: readonly string[]): string => columns.join(', ');
const marks = (count: number): string => Array.from({ length: count }, () => '?').join(', ');
const fromExcluded = (columns: readonly string[]): string =>
  columns.map((column) => `${column} = excluded.${column}`).join(', ');

/** The tables whose lists are read whole every run, and their keys. */
const LISTED_KEYS = { coupons: 'coupon_id', dp_orders: 'order_id', dp_products: 'product_id' } as const;
export type ListedTable = keyof typeof LISTED_KEYS;

export type { LoadedTable } from '../db/mirror.js';

/** The mirrored lists whose size a walk expects. */
export type CountedTable = LoadedTable | 'dp_products' | 'dp_orders';

/** A card's mirrored state, as a write compares with it. */
type CardBefore = SqlRow<'gift_cards', 'status' | 'remaining_balance_cents' | 'version' | 'raw_json'>;
/**
 * A ledger entry's mirrored state, as a write compares with it: whether its raw JSON is the one
 * just read is asked of the database, so that a night of known entries (a weekly --full reads
 * every one) copies no stored JSON into the process.
 */
type EntryBefore = SqlRow<'gift_card_transactions', 'entry_id' | 'vanished_sync_run_id'> & { unchanged: number };
/** A ledger entry's mirrored state as a batch's lookup reads it (on a server), JSON included. */
type EntryLooked = SqlRow<'gift_card_transactions', 'entry_id' | 'raw_json' | 'vanished_sync_run_id'>;
/** A coupon's mirrored state, as a write compares with it. */
type CouponBefore = SqlRow<'coupons', 'status' | 'redemption_count' | 'version' | 'raw_json' | 'vanished_sync_run_id'>;
/** A record's mirrored state read for a batch, under its ID. */
type Keyed = { id: string };
/** An order's mirrored state, as its write compares it. */
type OrderBefore = SqlRow<'dp_orders', 'status' | 'fulfillment_status' | 'raw_json' | 'vanished_sync_run_id'>;

/** A ledger entry's figures as mirrored. */
export type MirroredEntry = SqlRow<
  'gift_card_transactions',
  | 'gift_card_id'
  | 'type'
  | 'amount_cents'
  | 'balance_before_cents'
  | 'balance_after_cents'
  | 'created_at_ms'
  | 'vanished_sync_run_id'
>;

/** A card's snapshot beside its newest ledger entry (tail_*), for the settle pass. */
export type CardState = SqlRow<
  'gift_cards',
  'gift_card_id' | 'version' | 'status' | 'updated_at_ms' | 'read_sync_run_id'
> & {
  remaining: number | null;
  tail_after: number | null;
  tail_created_ms: number;
};

const newestEntry = (column: string): string => `(
  SELECT t.${column} FROM gift_card_transactions t WHERE t.gift_card_id = c.gift_card_id AND t.vanished_sync_run_id IS NULL
  ORDER BY t.created_at_ms DESC, t.list_order DESC LIMIT 1)`;
const cardStateSql = (settleCards: string, d: SqlDialect): string => `
  SELECT * FROM (
    SELECT c.gift_card_id, c.version, c.status, c.remaining_balance_cents AS remaining, c.updated_at_ms, c.read_sync_run_id,
           ${newestEntry('balance_after_cents')} AS tail_after, ${newestEntry('created_at_ms')} AS tail_created_ms
    FROM ${settleCards} s ${d.joinInOrder} gift_cards c ON c.gift_card_id = s.gift_card_id) states
  WHERE tail_created_ms IS NOT NULL`;

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

/** Columns that hold a value of one of the specs' enumerations: never a secret, and read by the checks as sent. */
const ENUMERATED = new Set(['status', 'type', 'currency', 'fulfillment_status', 'line_currency']);

/**
 * Every read and write the sync makes. The per-record writes (card, entry, coupon, …) are
 * valid only inside {@link SyncStore.batch}: a page's writes and its checkpoint are one unit.
 */
export class SyncStore {
  readonly #s;
  readonly #unlisted: Record<ListedTable, { select: Read<string>; mark: Write }>;
  readonly #c: SqlConnection;
  readonly #db: MirrorQueries;
  readonly #mirror: Mirror;

  /** The client secrets: no raw record and no checkpoint is stored carrying one. */
  readonly #secrets: readonly string[];

  /** The last transaction asked for: walks that run at the same time commit one after another. */
  #turn: Promise<unknown> = Promise.resolve();

  /**
   * The IDs a bulk load into an empty table on a server has written so far: a record not among
   * them cannot be in the mirror, so it is inserted without a lookup (a round trip per record).
   */
  readonly #loading = new Map<'gift_cards' | 'coupons', Set<string>>();

  /** The state of the records the current batch looked up (lookUp), kept as the batch writes them. */
  #lookedUp: {
    cards?: Map<string, CardBefore | undefined>;
    coupons?: Map<string, CouponBefore | undefined>;
    entries?: Map<string, EntryLooked | undefined>;
    orders?: Map<string, OrderBefore | undefined>;
  } = {};

  constructor(mirror: Mirror, secrets: readonly string[] = []) {
    const c = mirror.connection;
    this.#c = c;
    this.#db = mirror.queries;
    this.#mirror = mirror;
    this.#secrets = secrets;
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
      cardGet: c.read<CardBefore>(
        'SELECT status, remaining_balance_cents, version, raw_json FROM gift_cards WHERE gift_card_id = ?',
      ),
      cardsGet: c.read<CardBefore & Keyed>(
        `SELECT gift_card_id AS id, status, remaining_balance_cents, version, raw_json FROM gift_cards WHERE ${mirror.dialect.inJsonArray('gift_card_id', '?')}`,
      ),
      cardInsert: p(
        `INSERT INTO gift_cards (${list(CARD_COLUMNS)}, read_at_ms, read_sync_run_id, first_sync_run_id) VALUES (${marks(CARD_COLUMNS.length + 3)})`,
      ),
      cardUpdate: p(
        `UPDATE gift_cards SET (${list(CARD_COLUMNS)}, read_at_ms, read_sync_run_id) = (${marks(CARD_COLUMNS.length + 2)}) WHERE gift_card_id = ?`,
      ),
      cardHistory: p(
        'INSERT INTO gift_card_history (gift_card_id, sync_run_id, read_at_ms, status, remaining_balance_cents, version) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      entryGet: c.read<EntryBefore>(
        'SELECT entry_id, vanished_sync_run_id, CASE WHEN raw_json = ? THEN 1 ELSE 0 END AS unchanged FROM gift_card_transactions WHERE transaction_id = ?',
      ),
      entryRaw: c.pluck<string>('SELECT raw_json FROM gift_card_transactions WHERE entry_id = ?'),
      entriesGet: c.read<EntryLooked & Keyed>(
        `SELECT transaction_id AS id, entry_id, raw_json, vanished_sync_run_id FROM gift_card_transactions WHERE ${mirror.dialect.inJsonArray('transaction_id', '?')}`,
      ),
      // Bound by position: the ledger's hot path (named binding of a fresh object costs several µs a row).
      entryInsert: p(
        mirror.dialect.insertOrSkip('gift_card_transactions', [
          'transaction_id',
          'gift_card_id',
          'type',
          'amount_cents',
          'balance_before_cents',
          'balance_after_cents',
          'reference_id',
          'idempotency_key',
          'created_at',
          'created_at_ms',
          'list_order',
          'first_sync_run_id',
          'raw_json',
        ]),
      ),
      entryUpdate:
        p(`UPDATE gift_card_transactions SET gift_card_id = @gift_card_id, type = @type, amount_cents = @amount_cents, balance_before_cents = @balance_before_cents, balance_after_cents = @balance_after_cents,
        reference_id = @reference_id, idempotency_key = @idempotency_key, created_at = @created_at, created_at_ms = @created_at_ms, vanished_sync_run_id = NULL, raw_json = @raw_json WHERE transaction_id = @transaction_id`),
      entrySeen: p('INSERT INTO ledger_walk_seen (walk_id, entry_id) VALUES (?, ?)'),
      entryVersion: p(
        'INSERT INTO gift_card_transaction_versions (transaction_id, sync_run_id, change, previous_raw_json, new_raw_json) VALUES (?, ?, ?, ?, ?)',
      ),
      // Entries first mirrored by this walk were seen by it; earlier ones must be in its seen list.
      vanishedSelect: c.read<
        SqlRow<'gift_card_transactions', 'transaction_id' | 'raw_json'>
      >(`SELECT transaction_id, raw_json FROM gift_card_transactions
        WHERE first_sync_run_id < @walkId AND vanished_sync_run_id IS NULL AND ${mirror.dialect.notIn('gift_card_transactions.entry_id', 'seen.entry_id', 'ledger_walk_seen seen', 'seen.walk_id = @walkId')}`),
      seenClear: p('DELETE FROM ledger_walk_seen'),
      vanishedMark: p('UPDATE gift_card_transactions SET vanished_sync_run_id = ? WHERE transaction_id = ?'),
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
      quarantine:
        p(`INSERT INTO quarantine (resource, record_id, reason, raw_json, raw_sha256, first_sync_run_id, last_sync_run_id) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (resource, raw_sha256) DO UPDATE SET last_sync_run_id = excluded.last_sync_run_id, reason = excluded.reason`),
      missing: p(
        'INSERT INTO missing_gift_cards (gift_card_id, sync_run_id, checked_at_ms) VALUES (?, ?, ?) ON CONFLICT (gift_card_id) DO UPDATE SET sync_run_id = excluded.sync_run_id, checked_at_ms = excluded.checked_at_ms',
      ),
      found: p('DELETE FROM missing_gift_cards WHERE gift_card_id = ?'),
      inFlight: p(
        'INSERT INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?) ON CONFLICT (sync_run_id, gift_card_id) DO UPDATE SET detail = excluded.detail',
      ),
      cardStatus: c.pluck<string>('SELECT status FROM gift_cards WHERE gift_card_id = ?'),
      cardState: c.read<SqlRow<'gift_cards', 'version' | 'remaining_balance_cents' | 'status'>>(
        'SELECT version, remaining_balance_cents, status FROM gift_cards WHERE gift_card_id = ?',
      ),
      entryState: c.read<MirroredEntry>(
        'SELECT gift_card_id, type, amount_cents, balance_before_cents, balance_after_cents, created_at_ms, vanished_sync_run_id FROM gift_card_transactions WHERE transaction_id = ?',
      ),
      newestEntry: c.pluck<number | null>('SELECT MAX(created_at_ms) FROM gift_card_transactions'),
      checkpointGet: c.read<SqlRow<'sync_checkpoints'>>('SELECT * FROM sync_checkpoints WHERE resource = ?'),
      checkpointPut:
        p(`INSERT INTO sync_checkpoints (resource, walk_id, mode, cursor, pages, records, stop_before_ms, done, updated_at_ms) VALUES (@resource, @walkId, @mode, @cursor, @pages, @records, @stopBeforeMs, @done, @updatedAtMs)
        ON CONFLICT (resource) DO UPDATE SET walk_id = excluded.walk_id, mode = excluded.mode, cursor = excluded.cursor, pages = excluded.pages, records = excluded.records, stop_before_ms = excluded.stop_before_ms, done = excluded.done, updated_at_ms = excluded.updated_at_ms`),
    };
  }

  /**
   * Runs a batch of writes (`work` awaits the per-record writes, and nothing else) as one
   * transaction: all of it commits, or none. Batches asked for at the same time (walks read at
   * the same time) run one after another, never sharing a transaction.
   */
  async batch<T>(work: () => Promise<T>): Promise<T> {
    return this.#serially(async () => {
      try {
        return await work();
      } finally {
        this.#lookedUp = {};
      }
    });
  }

  /**
   * Inside a batch, before its writes: reads the mirrored state of these cards (or coupons) in
   * one statement, so that each record's write needs no lookup of its own (a round trip per
   * record, on a server). A bulk load has nothing to read; SQLite's lookups one at a time are
   * faster than one statement over a JSON list, so there it reads nothing ahead.
   */
  async lookUp(
    table: 'gift_cards' | 'coupons' | 'gift_card_transactions' | 'dp_orders',
    ids: readonly string[],
  ): Promise<void> {
    if (
      !this.#c.remote ||
      ((table === 'gift_cards' || table === 'coupons') && this.#loading.has(table)) ||
      ids.length === 0
    )
      return;
    if (table === 'gift_card_transactions') this.#lookedUp.entries = await statesOf(this.#s.entriesGet, ids);
    else if (table === 'gift_cards') this.#lookedUp.cards = await statesOf(this.#s.cardsGet, ids);
    else if (table === 'dp_orders') this.#lookedUp.orders = await statesOf(this.#s.ordersGet, ids);
    else this.#lookedUp.coupons = await statesOf(this.#s.couponsGet, ids);
  }

  /** A card's mirrored state: as looked up for the batch (then as this batch wrote it), or read now. */
  async #cardBefore(id: string): Promise<CardBefore | undefined> {
    const looked = this.#lookedUp.cards;
    return looked?.has(id) ? looked.get(id) : this.#s.cardGet.get(id);
  }

  /** A coupon's mirrored state, as {@link SyncStore.#cardBefore} a card's. */
  async #couponBefore(id: string): Promise<CouponBefore | undefined> {
    const looked = this.#lookedUp.coupons;
    return looked?.has(id) ? looked.get(id) : this.#s.couponGet.get(id);
  }

  /** An order's mirrored state, as {@link SyncStore.#cardBefore} a card's. */
  async #orderBefore(id: string): Promise<OrderBefore | undefined> {
    const looked = this.#lookedUp.orders;
    return looked?.has(id) ? looked.get(id) : this.#s.orderGet.get(id);
  }

  /**
   * A ledger entry's mirrored state against the one just read: as the batch looked it up (its
   * JSON at hand, on a server) or asked of the database (whether its JSON is the same).
   */
  async #entryBefore(row: TransactionRow): Promise<(EntryBefore & { raw_json?: string }) | undefined> {
    const looked = this.#lookedUp.entries;
    if (!looked?.has(row.transaction_id)) return this.#s.entryGet.get(row.raw_json, row.transaction_id);
    const state = looked.get(row.transaction_id);
    return state && { ...state, unchanged: state.raw_json === row.raw_json ? 1 : 0 };
  }

  /** Runs `work` as one transaction once every transaction asked for before it has ended. */
  #serially<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#turn.then(() => this.#c.transaction(work));
    this.#turn = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Before a walk of `table`: an empty table is loaded in bulk, its secondary indexes dropped
   * and built once, sorted, by {@link endLoad}. @returns whether this is a bulk load.
   */
  async beginLoad(table: LoadedTable): Promise<boolean> {
    const empty = await this.#mirror.beginLoad(table);
    // On a server a lookup is a round trip; in process it costs less than remembering every ID.
    if (empty && table !== 'gift_card_transactions' && this.#c.remote) this.#loading.set(table, new Set());
    return empty;
  }

  /**
   * After a walk of `table`: builds any index {@link beginLoad} dropped. For the ledger,
   * entries a bulk load mirrored twice (the list shifted under the walk) collapse onto their
   * first row, credited to `syncRunId`. @returns how many rows collapsed.
   */
  async endLoad(table: LoadedTable, syncRunId: number): Promise<number> {
    if (table !== 'gift_card_transactions') this.#loading.delete(table);
    return this.#mirror.endLoad(table, syncRunId);
  }

  /** The records of a mirrored list the service still listed when last read: the next walk's expectation. */
  async listedCount(table: CountedTable): Promise<number> {
    const count = this.#db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
    const row = await (table === 'gift_cards'
      ? count
      : count.where('vanished_sync_run_id', 'is', null)
    ).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The mirrored status of each of these cards that the mirror holds. */
  async cardStatuses(giftCardIds: readonly string[]): Promise<Map<string, string>> {
    const statusOf = this.#s.cardStatus;
    const found = new Map<string, string>();
    for (const id of giftCardIds) {
      const status = await statusOf.get(id);
      if (status !== undefined) found.set(id, status);
    }
    return found;
  }

  /** The newest mirrored entry's creation time (0: none). */
  async newestEntryMs(): Promise<number> {
    return (await this.#s.newestEntry.get()) ?? 0;
  }

  /** One record ID of each merchant in `table` (the most numerous merchants first), at most `limit`. */
  async oneRecordPerMerchant(table: 'gift_cards' | 'coupons', limit: number): Promise<string[]> {
    const rows =
      table === 'gift_cards'
        ? await this.#db
            .selectFrom('gift_cards')
            .select((eb) => eb.fn.min('gift_card_id').as('id'))
            .groupBy('merchant_id')
            .orderBy((eb) => eb.fn.countAll(), 'desc')
            .orderBy('merchant_id')
            .limit(limit)
            .execute()
        : await this.#db
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

  /** The identity the mirror is bound to, if any. */
  async boundIdentity(): Promise<SqlRow<'mirror_identity'> | undefined> {
    return this.#db.selectFrom('mirror_identity').selectAll().where('identity_id', '=', 1).executeTakeFirst();
  }

  /** The addresses the newest sync read (a mirror synced before identities were recorded). */
  async newestSyncAddresses(): Promise<SqlRow<'sync_runs', 'giftcard_base_url' | 'dp_base_url'> | undefined> {
    return this.#db
      .selectFrom('sync_runs')
      .select(['giftcard_base_url', 'dp_base_url'])
      .orderBy('sync_run_id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Binds the mirror to this identity (unchanged rows are not rewritten). */
  async bindIdentity(identity: Omit<SqlRow<'mirror_identity'>, 'identity_id'>): Promise<void> {
    const fields = ['giftcard_base_url', 'giftcard_client_id', 'dp_base_url', 'dp_client_id'] as const;
    await this.#db
      .insertInto('mirror_identity')
      .values({ identity_id: 1, ...identity })
      .onConflict((oc) =>
        oc
          .column('identity_id')
          .doUpdateSet((eb) => ({
            ...Object.fromEntries(fields.map((field) => [field, eb.ref(`excluded.${field}`)])),
            bound_at: eb.ref('excluded.bound_at'),
          }))
          // Unchanged: the row (and when it was bound) stays as it was.
          .where((eb) =>
            eb.or(
              fields.map((field) => eb(`mirror_identity.${field}`, 'is distinct from', eb.ref(`excluded.${field}`))),
            ),
          ),
      )
      .execute();
  }

  /** Marks failed every sync still marked running: the caller holds the lock, so each was stopped before it could finish. */
  async failInterruptedSyncs(): Promise<void> {
    await this.#db
      .updateTable('sync_runs')
      .set({ status: 'failed', error: 'interrupted: the process stopped before the sync finished' })
      .where('status', '=', 'running')
      .execute();
  }

  /** How many syncs completed. */
  async completedSyncs(): Promise<number> {
    const row = await this.#db
      .selectFrom('sync_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'completed')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The newest sync before `syncRunId` that completed (0: none). */
  async lastCompletedBefore(syncRunId: number): Promise<number> {
    const row = await this.#db
      .selectFrom('sync_runs')
      .select((eb) => eb.fn.max('sync_run_id').as('run'))
      .where('status', '=', 'completed')
      .where('sync_run_id', '<', syncRunId)
      .executeTakeFirst();
    return Number(row?.run ?? 0);
  }

  /** Records a sync as started. @returns its number. */
  async startSync(
    run: Pick<
      SqlRow<'sync_runs'>,
      'mode' | 'started_at' | 'started_at_ms' | 'pid' | 'giftcard_base_url' | 'dp_base_url'
    >,
  ): Promise<number> {
    const started = await this.#db
      .insertInto('sync_runs')
      .values({ ...run, status: 'running' })
      .returning('sync_run_id')
      .executeTakeFirstOrThrow();
    return started.sync_run_id;
  }

  /** Records how a sync ended. */
  async finishSync(
    syncRunId: number,
    end: Pick<SqlRow<'sync_runs'>, 'status' | 'finished_at' | 'finished_at_ms' | 'error' | 'summary_json'>,
  ): Promise<void> {
    await this.#db.updateTable('sync_runs').set(end).where('sync_run_id', '=', syncRunId).execute();
  }

  /** The summary the newest failed sync recorded. */
  async lastFailedSyncSummary(): Promise<string | null | undefined> {
    const row = await this.#db
      .selectFrom('sync_runs')
      .select('summary_json')
      .where('status', '=', 'failed')
      .orderBy('sync_run_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.summary_json;
  }

  /** After a sync: the WAL's frames copied into the database file, the WAL started again. */
  async compact(): Promise<void> {
    await this.#mirror.compact();
  }

  /**
   * Cards whose snapshot may be older than their ledger: entries first mirrored since the last
   * completed sync (`since`), by this sync or by one killed before it re-read their cards; a
   * snapshot changed in this sync; and the cards a sync since `since` (or `since` itself) found
   * in flight, read again whether or not they moved since.
   */
  async activeCards(syncRunId: number, since: number): Promise<Set<string>> {
    const active = this.#c.pluck<string>(
      `SELECT DISTINCT gift_card_id FROM gift_card_transactions WHERE first_sync_run_id > @since
       UNION SELECT gift_card_id FROM gift_card_history WHERE sync_run_id = @run
       UNION SELECT gift_card_id FROM gift_cards_in_flight WHERE sync_run_id >= @since AND sync_run_id < @run`,
    );
    return new Set(await active.all({ run: syncRunId, since }));
  }

  /**
   * The given cards (or every mirrored card) that have ledger entries, each with its snapshot
   * and its newest entry: two backward seeks per card into the covering index
   * gift_card_transactions_card. The dialect's joinInOrder keeps the listed cards as the outer loop, so
   * unlisted cards are never sought.
   */
  async cardStates(cards: Iterable<string> | 'all'): Promise<CardState[]> {
    const c = this.#c;
    return this.#serially(async () => {
      const settleCards = c.dialect.temporary('settle_cards');
      await c.exec(
        `CREATE TEMP TABLE IF NOT EXISTS settle_cards (gift_card_id ${c.dialect.idText} PRIMARY KEY); DELETE FROM ${settleCards};`,
      );
      if (cards === 'all') {
        await c.exec(`INSERT INTO ${settleCards} SELECT gift_card_id FROM gift_cards`);
      } else {
        // One transaction: committed one by one, each insert wrote a page and its journal copy
        // to the temporary file (165 MB for the 4,780 cards a 1 % night moves).
        const insert = c.write(c.dialect.insertOrSkip(settleCards, ['gift_card_id']));
        for (const id of cards) await insert.run(id);
      }
      return c.read<CardState>(cardStateSql(settleCards, c.dialect)).all();
    });
  }

  /**
   * Cards the ledger names that the mirror does not hold (and this sync has not found missing):
   * over every current entry (`everyEntry`), or over this sync's new entries and the cards
   * already missing.
   */
  async unknownCards(syncRunId: number, everyEntry: boolean): Promise<string[]> {
    const scope = everyEntry
      ? ''
      : 'AND (t.first_sync_run_id = @run OR t.gift_card_id IN (SELECT gift_card_id FROM missing_gift_cards))';
    return this.#c
      .pluck<string>(
        `SELECT DISTINCT t.gift_card_id FROM gift_card_transactions t
       LEFT JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
       LEFT JOIN missing_gift_cards m ON m.gift_card_id = t.gift_card_id AND m.sync_run_id = @run
       WHERE c.gift_card_id IS NULL AND m.gift_card_id IS NULL AND t.vanished_sync_run_id IS NULL ${scope}`,
      )
      .all({ run: syncRunId });
  }

  /** The cards of the given ledger entries. */
  async cardsOfEntries(transactionIds: readonly string[]): Promise<string[]> {
    const card = this.#c.pluck<string>('SELECT gift_card_id FROM gift_card_transactions WHERE transaction_id = ?');
    const cards: string[] = [];
    for (const id of transactionIds) {
      const found = await card.get(id);
      if (found !== undefined) cards.push(found);
    }
    return cards;
  }

  /** A card as mirrored, for a re-read to compare with. */
  async mirroredCard(
    giftCardId: string,
  ): Promise<SqlRow<'gift_cards', 'version' | 'remaining_balance_cents' | 'status'> | undefined> {
    return await this.#s.cardState.get(giftCardId);
  }

  /** A ledger entry as mirrored, for a re-read to compare with. */
  async mirroredEntry(transactionId: string): Promise<MirroredEntry | undefined> {
    return await this.#s.entryState.get(transactionId);
  }

  /**
   * Whether a bulk load into `table` has not met this record yet (it cannot be in the mirror):
   * noted as met from now on. False outside a bulk load.
   */
  #unseen(table: 'gift_cards' | 'coupons', id: string): boolean {
    const met = this.#loading.get(table);
    if (met === undefined || met.has(id)) return false;
    met.add(id);
    return true;
  }

  /**
   * A row as it may be stored: its raw JSON and every free text read from it (a reference, an
   * idempotency key, an ID) with any client secret the service echoed replaced by `[redacted]`.
   * A value of one of the spec's enumerations (a status, a type, a currency) is public text, not
   * a secret, and is what the checks read: it stays as sent. Every field comes from the raw
   * record, so a row whose raw JSON carries no secret has none (most rows: the same row).
   */
  private storable<T extends { raw_json: string }>(row: T): T {
    if (!carriesSecret(row.raw_json, this.#secrets)) return row;
    const redacted = Object.entries(row).map(([key, value]) => [
      key,
      typeof value === 'string' && !ENUMERATED.has(key) ? redact(value, this.#secrets) : value,
    ]);
    return Object.fromEntries(redacted) as T;
  }

  /** Upserts a card snapshot; a history row marks a new card or a changed balance, status or version. */
  async card(read: GiftCardRow, syncRunId: number, readAtMs: number): Promise<WriteOutcome> {
    const row = this.storable(read);
    const before = this.#unseen('gift_cards', row.gift_card_id) ? undefined : await this.#cardBefore(row.gift_card_id);
    // The same card met again in this batch compares with what the batch wrote.
    this.#lookedUp.cards?.set(row.gift_card_id, {
      status: row.status,
      remaining_balance_cents: row.remaining_balance_cents,
      version: row.version,
      raw_json: row.raw_json,
    });
    const values = [...CARD_COLUMNS.map((column) => row[column]), readAtMs, syncRunId];
    if (!before) {
      this.#s.cardInsert.later(...values, syncRunId);
      this.#s.cardHistory.later(
        row.gift_card_id,
        syncRunId,
        readAtMs,
        row.status,
        row.remaining_balance_cents,
        row.version,
      );
      return 'new';
    }
    // Unchanged: nothing to write. Its snapshot keeps the sync that last saw it change, and
    // the settle pass re-reads it if its ledger moved since.
    if (before.raw_json === row.raw_json) return 'same';
    this.#s.cardUpdate.later(...values, row.gift_card_id);
    if (
      before.status === row.status &&
      before.remaining_balance_cents === row.remaining_balance_cents &&
      before.version === row.version
    )
      return 'changed';
    this.#s.cardHistory.later(
      row.gift_card_id,
      syncRunId,
      readAtMs,
      row.status,
      row.remaining_balance_cents,
      row.version,
    );
    return 'changed';
  }

  /**
   * Upserts a ledger entry; one that comes back different keeps its previous version. A bulk
   * load into an empty ledger tries the insert first (nearly every entry is new, and the
   * lookup is skipped); otherwise most entries are known and the lookup comes first. A --full
   * walk passes its ID: an entry the mirror held before is then noted as found by that walk.
   */
  async entry(
    read: TransactionRow,
    syncRunId: number,
    listOrder: number,
    how: { bulkLoad?: boolean; fullWalkId?: number | undefined } = {},
  ): Promise<WriteOutcome> {
    const row = this.storable(read);
    // Built only for an insert: most entries a night reads are known and unchanged.
    const values = () => [
      row.transaction_id,
      row.gift_card_id,
      row.type,
      row.amount_cents,
      row.balance_before_cents,
      row.balance_after_cents,
      row.reference_id,
      row.idempotency_key,
      row.created_at,
      row.created_at_ms,
      listOrder,
      syncRunId,
      row.raw_json,
    ];
    // A bulk load has no unique index to meet: every insert is a new row (endLoad collapses repeats).
    if (how.bulkLoad) {
      this.#s.entryInsert.later(...values());
      return 'new';
    }
    const id = row.transaction_id;
    let before = await this.#entryBefore(row);
    if (!before) {
      // Met again in this batch, it is looked up as the mirror then holds it.
      this.#lookedUp.entries?.delete(id);
      const inserted = await this.#s.entryInsert.run(...values());
      if (inserted === 1) return 'new';
      before = await this.#s.entryGet.get(row.raw_json, id);
      if (!before) throw new Error(`ledger entry ${id} neither inserted nor found`);
    }
    this.#lookedUp.entries?.set(id, { entry_id: before.entry_id, raw_json: row.raw_json, vanished_sync_run_id: null });
    if (how.fullWalkId !== undefined) this.#s.entrySeen.later(how.fullWalkId, before.entry_id);
    // Unchanged: nothing to write.
    if (before.unchanged === 1 && before.vanished_sync_run_id === null) return 'same';
    if (before.unchanged !== 1)
      this.#s.entryVersion.later(
        id,
        syncRunId,
        'changed',
        before.raw_json ?? (await this.#s.entryRaw.get(before.entry_id)),
        row.raw_json,
      );
    this.#s.entryUpdate.later(row);
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
  async retireBinding(syncRunId: number): Promise<void> {
    const c = this.#c;
    await this.#serially(async () => {
      await c
        .write('UPDATE gift_card_transactions SET vanished_sync_run_id = ? WHERE vanished_sync_run_id IS NULL')
        .run(syncRunId);
      for (const table of [
        'missing_gift_cards',
        'gift_cards',
        'coupons',
        'dp_products',
        'dp_orders',
        'sync_checkpoints',
        'ledger_walk_seen',
      ])
        await c.write(`DELETE FROM ${table}`).run();
    });
  }

  /**
   * After a complete --full walk: the entries the mirror held before it that it did not find
   * have vanished from the service. Empties the walk's seen list.
   */
  async markVanished(walkId: number, syncRunId: number): Promise<number> {
    const gone = await this.#s.vanishedSelect.all({ walkId });
    for (const entry of gone) {
      this.#s.entryVersion.later(entry.transaction_id, syncRunId, 'vanished', entry.raw_json, null);
      this.#s.vanishedMark.later(syncRunId, entry.transaction_id);
    }
    this.#s.seenClear.later();
    return gone.length;
  }

  /**
   * After a walk that read a whole list in one go: its records the list no longer returned
   * are marked vanished in this sync (they stay in the mirror as last read).
   */
  async markUnlisted(table: ListedTable, listed: ReadonlySet<string>, syncRunId: number): Promise<number> {
    const { select, mark } = this.#unlisted[table];
    const gone = (await select.all()).filter((id) => !listed.has(id));
    for (const id of gone) mark.later(syncRunId, id);
    return gone.length;
  }

  async coupon(read: CouponRow, syncRunId: number): Promise<WriteOutcome> {
    const row = this.storable(read);
    const unseen = this.#unseen('coupons', row.coupon_id);
    const before = unseen ? undefined : await this.#couponBefore(row.coupon_id);
    this.#lookedUp.coupons?.set(row.coupon_id, {
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
    const row = this.storable(read);
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
      product: this.storable(read.product),
      variants: read.variants.map((variant) => this.storable(variant)),
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
    const rows = { ...read, order: this.storable(read.order) };
    const { order } = rows;
    const before = await this.#orderBefore(order.order_id);
    if (before && before.raw_json === order.raw_json && before.vanished_sync_run_id === null) return 'same';
    // Met again in this batch, it is read as this write leaves it.
    this.#lookedUp.orders?.delete(order.order_id);
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
    return before ? 'changed' : 'new';
  }

  /** Sets a failed record aside with its raw JSON (voucher codes hashed, PINs removed) and reason. */
  async quarantine(resource: Resource, error: PayloadValidationError, syncRunId: number): Promise<void> {
    const raw = redact(storedRawJson(error.raw), this.#secrets);
    this.#s.quarantine.later(resource, recordIdOf(error.raw), error.reason, raw, sha256(raw), syncRunId, syncRunId);
  }

  async missingCard(giftCardId: string, syncRunId: number, checkedAtMs: number): Promise<void> {
    this.#s.missing.later(giftCardId, syncRunId, checkedAtMs);
  }

  async foundCard(giftCardId: string): Promise<void> {
    this.#s.found.later(giftCardId);
  }

  async inFlight(syncRunId: number, giftCardId: string, detail: string): Promise<void> {
    this.#s.inFlight.later(syncRunId, giftCardId, detail);
  }

  async checkpoint(resource: string): Promise<Checkpoint | undefined> {
    const row = await this.#s.checkpointGet.get(resource);
    if (!row) return undefined;
    return {
      resource: row.resource,
      walkId: row.walk_id,
      mode: row.mode,
      cursor: row.cursor,
      pages: row.pages,
      records: row.records,
      stopBeforeMs: row.stop_before_ms,
      done: Boolean(row.done),
    };
  }

  /**
   * Keeps a walk's place. A cursor that carries a client secret is sent back to the service as
   * received but never stored: the checkpoint keeps no cursor, and a resumed walk starts the
   * list again from its head.
   */
  async saveCheckpoint(checkpoint: Checkpoint): Promise<void> {
    const cursor =
      checkpoint.cursor !== null && carriesSecret(checkpoint.cursor, this.#secrets) ? null : checkpoint.cursor;
    this.#s.checkpointPut.later({ ...checkpoint, cursor, done: checkpoint.done ? 1 : 0, updatedAtMs: Date.now() });
  }
}

/** The mirrored state of each of these IDs (undefined: not mirrored), read in one statement. */
async function statesOf<Row extends Keyed>(
  read: Read<Row>,
  ids: readonly string[],
): Promise<Map<string, Row | undefined>> {
  const found = new Map<string, Row | undefined>(ids.map((id) => [id, undefined]));
  for (const row of await read.all(JSON.stringify(ids))) found.set(row.id, row);
  return found;
}
