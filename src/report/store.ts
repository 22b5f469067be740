/**
 * The report stage's store: its reads of the mirrored records for the workbook's detail sheets,
 * the period close's activity and the hledger journal. The only code of the stage that holds the
 * mirror's connection. Large reads stream as async batches of rows (a cursor's); each
 * row type is declared here, beside its SQL.
 */
import type { SqlConnection, SqlRow } from '../db/connection.js';
import type { Mirror, MirrorQueries, SqlDialect } from '../db/mirror.js';
import { DORMANCY_BANDS, EXPIRY_BANDS, type LiabilityAt, type VintageBreakage } from '../ledger/liability.js';

export type CouponRow = SqlRow<
  'coupons',
  | 'coupon_id'
  | 'merchant_id'
  | 'status'
  | 'redemption_count'
  | 'usage_limit_total'
  | 'expires_at_ms'
  | 'updated_at_ms'
  | 'vanished_sync_run_id'
>;

/** An order with one of its lines (the line's columns null for an order without lines) and the line's voucher count. */
export interface OrderLineRow {
  order_id: string;
  external_ref_id: string;
  status: string;
  fulfillment_status: string;
  vanished_sync_run_id: number | null;
  created_at_ms: number;
  currency: string;
  total_amount_cents: number | null;
  line_no: number | null;
  product_id: string | null;
  variant_id: string | null;
  quantity: number | null;
  line_currency: string | null;
  price_cents: number | null;
  total_price_cents: number | null;
  fx_rate: number | null;
  total_converted_price_cents: number | null;
  fulfilled_qty: number | null;
  vouchers: number;
}

/** A wallet snapshot with its move since the wallet's previous one. */
export type WalletRow = SqlRow<
  'dp_wallet_snapshots',
  'sync_run_id' | 'read_at_ms' | 'wallet_id' | 'currency' | 'selected' | 'balance_cents'
> & { change_cents: number | null };

export type QuarantineRow = SqlRow<
  'quarantine',
  'quarantine_id' | 'resource' | 'record_id' | 'reason' | 'first_sync_run_id' | 'last_sync_run_id' | 'raw_json'
>;

/** A ledger entry of the period, positionally: time, entry, card, currency, program, type, amount, before, after, reference. */
export type ActivityRow = [
  createdAtMs: number,
  transactionId: string,
  giftCardId: string,
  currency: string,
  programId: string | null,
  type: string,
  amountCents: number | null,
  beforeCents: number | null,
  afterCents: number | null,
  referenceId: string,
];

/** Which cards' entries of a period: its bounds, our merchant, and the cards kept or left out. */
export interface ActivityScope {
  fromMs: number;
  toMs: number;
  merchantId: string | null;
  only?: readonly string[];
  except?: readonly string[];
}

/** Tables the Summary counts. */
export type CountedTable =
  | 'gift_cards'
  | 'gift_card_transactions'
  | 'coupons'
  | 'dp_wallet_snapshots'
  | 'dp_products'
  | 'dp_orders'
  | 'dp_order_lines'
  | 'dp_vouchers'
  | 'quarantine';

/** The tables whose records the mirror marks when the service no longer lists them. */
type ListedTable = 'gift_card_transactions' | 'coupons' | 'dp_products' | 'dp_orders';
const LISTED: ReadonlySet<CountedTable> = new Set<ListedTable>([
  'gift_card_transactions',
  'coupons',
  'dp_products',
  'dp_orders',
]);

const bound = (only: string | null): string[] => (only === null ? [] : [only]);

export class ReportStore {
  readonly #c: SqlConnection;
  readonly #db: MirrorQueries;
  readonly #dialect: SqlDialect;

  constructor(mirror: Mirror) {
    this.#c = mirror.connection;
    this.#db = mirror.queries;
    this.#dialect = mirror.dialect;
  }

  /**
   * Keeps a close's liability workpaper (its vintages and bands) for the liability_by_vintage and
   * liability_dormancy views, in place of what an earlier close of the same period kept.
   */
  async keepLiability(period: string, at: LiabilityAt): Promise<void> {
    await this.#c.transaction(async () => {
      await this.#c.write('DELETE FROM liability_vintages WHERE period = ?').run(period);
      await this.#c.write('DELETE FROM liability_bands WHERE period = ?').run(period);
      const vintage = this.#c.write(
        `INSERT INTO liability_vintages (period, cut_off_ms, currency, program_id, issue_month, age_months, cards,
           issued_cents, redeemed_cents, voided_cents, expired_cents, remaining_cents, unexplained_cents, unknown_cards,
           escheat_cents, escheat_cards, breakage_base_cents, expected_breakage_cents, recognised_breakage_cents)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      at.vintages.forEach((v, i) => {
        const b = at.breakage[i] as VintageBreakage;
        vintage.later(
          period,
          at.cutOffMs,
          v.currency,
          v.programId ?? '',
          v.month,
          v.ageMonths,
          v.cards,
          v.issuedCents,
          v.redeemedCents,
          v.voidedCents,
          v.expiredCents,
          v.remainingCents,
          v.unexplainedCents,
          v.unknownCards,
          v.escheatCents,
          v.escheatCards,
          b.baseCents,
          b.expectedCents,
          b.recognisedCents,
        );
      });
      const band = this.#c.write(
        `INSERT INTO liability_bands (period, cut_off_ms, measure, currency, program_id, band_order, band, cards, value_cents)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const [measure, rows, count] of [
        ['since last activity', at.dormancy, DORMANCY_BANDS.length],
        ['to expiry', at.expiry, EXPIRY_BANDS.length],
      ] as const)
        rows.forEach((b, i) => {
          band.later(period, at.cutOffMs, measure, b.currency, b.programId ?? '', i % count, b.band, b.cards, b.cents);
        });
    });
  }

  /** A condition keeping the rows whose `column` is one of the IDs bound as a JSON array. */
  #only(column: string): string {
    return this.#dialect.inJsonArray(column, '?');
  }

  /** The sync a check run checked. */
  async sync(
    syncRunId: number,
  ): Promise<SqlRow<'sync_runs', 'sync_run_id' | 'mode' | 'status' | 'giftcard_base_url' | 'dp_base_url'> | undefined> {
    return this.#db
      .selectFrom('sync_runs')
      .select(['sync_run_id', 'mode', 'status', 'giftcard_base_url', 'dp_base_url'])
      .where('sync_run_id', '=', syncRunId)
      .executeTakeFirst();
  }

  /** The newest sync the mirror has begun, whatever became of it (null: none). */
  async newestSyncRunId(): Promise<number | null> {
    const row = await this.#db
      .selectFrom('sync_runs')
      .select((eb) => eb.fn.max('sync_run_id').as('newest'))
      .executeTakeFirst();
    return row?.newest === null || row?.newest === undefined ? null : Number(row.newest);
  }

  /** Rows of `table` (only those no longer listed, with `unlistedOnly`); wallet snapshots up to sync `upToSyncRunId`. */
  async count(table: CountedTable, unlistedOnly = false, upToSyncRunId = Number.MAX_SAFE_INTEGER): Promise<number> {
    if (unlistedOnly) {
      if (!LISTED.has(table)) return 0;
      const row = await this.#db
        .selectFrom(table as ListedTable)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('vanished_sync_run_id', 'is not', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    if (table === 'dp_wallet_snapshots') {
      const row = await this.#db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('sync_run_id', '<=', upToSyncRunId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    const row = await this.#db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * The cards' IDs in the ledger walk's order (those in `only`, a JSON array, when given): the
   * Card reconciliation sheet's keys, read without the cards' entries.
   */
  cardIds(only: string | null): AsyncGenerator<string[]> {
    const d = this.#dialect;
    return this.#c
      .pluck<string>(
        `SELECT gift_card_id FROM gift_cards ${d.indexedBy('gift_cards_ledger_walk')} ${only === null ? '' : `WHERE ${this.#only('gift_card_id')}`} ORDER BY ${d.binaryOrder('gift_card_id')}`,
      )
      .batches(bound(only));
  }

  /** The coupons in ID order (those in `only`, a JSON array, when given). */
  coupons(only: string | null): AsyncGenerator<CouponRow[]> {
    const rows = this.#c.read<CouponRow>(
      `SELECT coupon_id, merchant_id, status, redemption_count, usage_limit_total, expires_at_ms, updated_at_ms, vanished_sync_run_id FROM coupons ${only === null ? '' : `WHERE ${this.#only('coupon_id')}`} ORDER BY coupon_id`,
    );
    return rows.batches(bound(only));
  }

  /** Every order with its lines, in creation order (those in `only`, a JSON array, when given). */
  orderLines(only: string | null): AsyncGenerator<OrderLineRow[]> {
    const rows =
      this.#c.read<OrderLineRow>(`SELECT o.order_id, o.external_ref_id, o.status, o.fulfillment_status, o.created_at_ms, o.currency, o.total_amount_cents, o.vanished_sync_run_id,
              l.line_no, l.product_id, l.variant_id, l.quantity, l.currency AS line_currency, l.price_cents, l.total_price_cents, l.fx_rate, l.total_converted_price_cents, l.fulfilled_qty,
              (SELECT COUNT(*) FROM dp_vouchers v WHERE v.order_id = l.order_id AND v.line_no = l.line_no) AS vouchers
       FROM dp_orders o LEFT JOIN dp_order_lines l ON l.order_id = o.order_id ${only === null ? '' : `WHERE ${this.#only('o.order_id')}`} ORDER BY o.created_at_ms, o.order_id, l.line_no`);
    return rows.batches(bound(only));
  }

  /** Every wallet snapshot up to sync `upToSyncRunId` (a past run's report shows no later one), by wallet and sync, with its move since the previous one. */
  wallets(upToSyncRunId = Number.MAX_SAFE_INTEGER): AsyncGenerator<WalletRow[]> {
    const rows = this.#c.read<WalletRow>(`SELECT sync_run_id, read_at_ms, wallet_id, currency, selected, balance_cents,
              balance_cents - LAG(balance_cents) OVER (PARTITION BY wallet_id ORDER BY sync_run_id) AS change_cents
       FROM dp_wallet_snapshots WHERE sync_run_id <= ? ORDER BY wallet_id, sync_run_id`);
    return rows.batches([upToSyncRunId]);
  }

  /** Every quarantined record. */
  quarantine(): AsyncGenerator<QuarantineRow[]> {
    const rows = this.#c.read<QuarantineRow>(
      'SELECT quarantine_id, resource, record_id, reason, first_sync_run_id, last_sync_run_id, raw_json FROM quarantine ORDER BY quarantine_id',
    );
    return rows.batches();
  }

  /** How many entries of the period the scope holds. */
  async activityCount(scope: ActivityScope): Promise<number> {
    const { sql, args } = activityWhere(scope, this.#dialect);
    return Number((await this.#c.pluck<number>(`SELECT COUNT(*) ${sql}`).get(...args)) ?? 0);
  }

  /** The period's entries in the scope, card by card in time order, at most `limit`. */
  activity(scope: ActivityScope, limit: number): AsyncGenerator<ActivityRow[]> {
    const { sql, args } = activityWhere(scope, this.#dialect);
    const rows =
      this.#c.readRaw<ActivityRow>(`SELECT t.created_at_ms, t.transaction_id, t.gift_card_id, c.currency, c.program_id, t.type, t.amount_cents, t.balance_before_cents, t.balance_after_cents, t.reference_id
       ${sql}
       ORDER BY ${this.#dialect.binaryOrder('t.gift_card_id')}, t.created_at_ms, t.list_order LIMIT ?`);
    return rows.batches([...args, limit]);
  }
}

/** The period's ledger entries of the merchant's cards: FROM and WHERE, and their parameters. */
function activityWhere(scope: ActivityScope, d: SqlDialect): { sql: string; args: unknown[] } {
  const merchant = scope.merchantId !== null ? 'AND c.merchant_id = ?' : '';
  const only = scope.only ? `AND ${d.inJsonArray('t.gift_card_id', '?')}` : '';
  const except = scope.except && scope.except.length > 0 ? `AND NOT ${d.inJsonArray('t.gift_card_id', '?')}` : '';
  return {
    sql: `FROM gift_card_transactions t JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
          WHERE t.vanished_sync_run_id IS NULL AND t.created_at_ms >= ? AND t.created_at_ms < ? ${merchant} ${only} ${except}`,
    args: [
      scope.fromMs,
      scope.toMs,
      ...(scope.merchantId !== null ? [scope.merchantId] : []),
      ...(scope.only ? [JSON.stringify(scope.only)] : []),
      ...(except ? [JSON.stringify(scope.except)] : []),
    ],
  };
}
