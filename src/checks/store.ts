/**
 * The checks' reads, typed and async: the SQL of the query checks in the two-halves shape
 * (RowsCheck), one method per read, each returning typed rows; the decisions over them are the
 * checks' own, pure. The checks stage writes nothing.
 */
import { BooksReads, type MatchGroup } from '../books/store.js';
import type { MatchStatus } from '../books/match.js';
import { sql } from 'kysely';
import type { Mirror, MirrorQueries, SqlDialect } from '../db/mirror.js';
import type { SqlConnection, SqlRow } from '../db/connection.js';
import { edgeOf, type SyncEdge } from './ledger-reads.js';

/** A coupon as the coupon checks read it. */
export interface CouponCounts {
  couponId: string;
  merchantId: string;
  status: string;
  redemptionCount: number;
  usageLimitTotal: number;
  expiresAtMs: number;
}

/** An order short of COMPLETED or FAILED. */
export interface OpenOrder {
  orderId: string;
  status: string;
  createdAtMs: number;
}

/** An order line, its currency and FX rate. */
export interface ConvertedLine {
  orderId: string;
  lineNo: number;
  currency: string;
  fxRate: number | null;
}

/** A delivered voucher's expiry against its order's delivery. */
export interface DeliveredVoucher {
  orderId: string;
  lineNo: number;
  voucherNo: number;
  expirationDateMs: number | null;
  deliveredAtMs: number;
}

/** A card the sync recorded in flight, with its currency where the mirror holds the card. */
export interface CardInFlight {
  giftCardId: string;
  detail: string;
  currency: string | null;
}

/** A delivered voucher whose code (its hash) another delivery shares. */
export interface SharedVoucher {
  codeSha256: string;
  orderId: string;
  lineNo: number;
}

/** An order whose purchase reference another order shares. */
export interface SharedReference {
  externalRefId: string;
  orderId: string;
  currency: string;
  totalAmountCents: number | null;
}

/** A record the sync set aside, with why. */
export interface Quarantined {
  quarantineId: number;
  resource: string;
  recordId: string | null;
  reason: string;
  rawSha256: string;
}

/** A card in flight on every one of the recent syncs, since which. */
export interface StuckCard {
  giftCardId: string;
  currency: string | null;
  sinceSyncRunId: number;
}

/** An order whose total disagrees with its lines, or has an amount off the cent, with its lines' figures. */
export interface OrderTotals {
  orderId: string;
  currency: string;
  totalAmountCents: number | null;
  linesTotal: number | null;
  lines: number;
  offCentLines: number;
}

/** An order with one of its lines (none for an order without lines) and the line's vouchers delivered. */
export interface OrderLineDelivery {
  orderId: string;
  status: string;
  orderFulfilment: string;
  lineNo: number | null;
  quantity: number | null;
  fulfilledQty: number | null;
  lineFulfilment: string | null;
  vouchers: number;
}

/** A current ledger entry under an idempotency key that more than one entry carries. */
export interface KeyedEntry {
  idempotencyKey: string;
  transactionId: string;
  giftCardId: string;
  currency: string | null;
  amountCents: number | null;
}

/** The checks' store over a mirror's typed queries. */
export function checksStore(context: { mirror: Mirror }): ChecksStore {
  return new ChecksStore(context.mirror);
}

/** A coupon's history row beside the one before it. */
export interface CouponStep {
  coupon_id: string;
  sync_run_id: number;
  previous_sync_run_id: number;
  status: string;
  previous_status: string;
  redemption_count: number;
  previous_count: number;
}

/** A rewrite or disappearance of a ledger entry the mirror recorded, with the fields that changed. */
export interface EntryRewrite {
  transaction_id: string;
  gift_card_id: string | null;
  change: 'changed' | 'vanished';
  sync_run_id: number;
  fields: string | null;
}

/** An entry of a card the mirror lacks, and whether the service answered 404 for the card. */
export interface OrphanEntry {
  transaction_id: string;
  gift_card_id: string;
  type: string;
  reference_id: string;
  confirmed: number;
}

/** An order line's figures beside its order's currency. */
export type OrderLineFigures = SqlRow<
  'dp_order_lines',
  | 'order_id'
  | 'line_no'
  | 'quantity'
  | 'currency'
  | 'mrp_cents'
  | 'price_cents'
  | 'total_mrp_cents'
  | 'total_price_cents'
  | 'total_converted_price_cents'
  | 'fx_rate'
> & { order_currency: string };

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

/** Two consecutive snapshots of a wallet, with the orders that moved it in between (from the first request to the second answer). */
export interface WalletPair {
  previous: WalletRead;
  current: WalletRead;
  moves: WalletMove[];
}

/** A record the service no longer lists, and since which sync. */
export interface UnlistedRecord {
  type: string;
  id: string;
  since: number;
}

/** A merchant's cards and coupons in the mirror. */
export interface MerchantCount {
  merchantId: string;
  n: number;
}

export class ChecksStore {
  readonly #books: BooksReads;
  private readonly db: MirrorQueries;
  readonly #c: SqlConnection;
  readonly #dialect: SqlDialect;

  constructor(mirror: Mirror) {
    this.db = mirror.queries;
    this.#c = mirror.connection;
    this.#dialect = mirror.dialect;
    this.#books = new BooksReads(mirror.queries);
  }

  /** The mirror's newest sync (whatever its status), or undefined when there is none. */
  async newestSync(): Promise<SyncEdge | undefined> {
    const row = await this.#syncs().orderBy('sync_run_id', 'desc').limit(1).executeTakeFirst();
    return row && edgeOf(row);
  }

  /** The newest completed sync before `beforeSyncRunId` (every completed sync when absent). */
  async newestCompletedSync(beforeSyncRunId?: number): Promise<SyncEdge | undefined> {
    let query = this.#syncs().where('status', '=', 'completed');
    if (beforeSyncRunId !== undefined) query = query.where('sync_run_id', '<', beforeSyncRunId);
    const row = await query.orderBy('sync_run_id', 'desc').limit(1).executeTakeFirst();
    return row && edgeOf(row);
  }

  #syncs() {
    return this.db
      .selectFrom('sync_runs')
      .select([
        'sync_run_id as syncRunId',
        'status',
        'error',
        'started_at_ms as startedAtMs',
        'summary_json as summaryJson',
      ]);
  }

  /** The cards a sync recorded in flight. */
  async cardIdsInFlight(syncRunId: number): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('gift_cards_in_flight')
      .select('gift_card_id')
      .where('sync_run_id', '=', syncRunId)
      .execute();
    return new Set(rows.map((row) => row.gift_card_id));
  }

  /** Each merchant's cards and coupons, most first. */
  async merchantCounts(): Promise<MerchantCount[]> {
    return this.#c
      .read<MerchantCount>(`SELECT merchant_id AS "merchantId", SUM(n) AS n FROM (SELECT merchant_id, COUNT(*) AS n FROM gift_cards GROUP BY merchant_id UNION ALL SELECT merchant_id, COUNT(*) FROM coupons GROUP BY merchant_id) counts
       GROUP BY merchant_id ORDER BY SUM(n) DESC, merchant_id`)
      .all();
  }

  /** Coupons and orders the service no longer lists. */
  async unlisted(): Promise<UnlistedRecord[]> {
    const coupons = await this.db
      .selectFrom('coupons')
      .select(['coupon_id as id', 'vanished_sync_run_id as since'])
      .where('vanished_sync_run_id', 'is not', null)
      .execute();
    const orders = await this.db
      .selectFrom('dp_orders')
      .select(['order_id as id', 'vanished_sync_run_id as since'])
      .where('vanished_sync_run_id', 'is not', null)
      .execute();
    return [
      ...coupons.map((row) => ({ type: 'coupon', id: row.id, since: Number(row.since) })),
      ...orders.map((row) => ({ type: 'dpOrder', id: row.id, since: Number(row.since) })),
    ];
  }

  /** Each coupon history row whose count went down, or whose status came back to ACTIVE, beside the row before it (a window function). */
  async couponRegressions(): Promise<CouponStep[]> {
    return this.#c
      .read<CouponStep>(`SELECT * FROM (
         SELECT coupon_id, sync_run_id, status, redemption_count,
                LAG(sync_run_id) OVER w AS previous_sync_run_id, LAG(status) OVER w AS previous_status, LAG(redemption_count) OVER w AS previous_count
         FROM coupon_history WINDOW w AS (PARTITION BY coupon_id ORDER BY history_id)) steps
       WHERE previous_sync_run_id IS NOT NULL
         AND (redemption_count < previous_count OR (status = 'ACTIVE' AND previous_status <> 'ACTIVE'))
       ORDER BY coupon_id, sync_run_id`)
      .all();
  }

  /** Every rewrite and disappearance of a ledger entry, with the top-level fields that changed. */
  async entryRewrites(): Promise<EntryRewrite[]> {
    return this.#c
      .read<EntryRewrite>(`SELECT v.transaction_id, ${this.#dialect.jsonField('v.previous_raw_json', 'giftCardId')} AS gift_card_id, v.change, v.sync_run_id,
              ${this.#dialect.changedJsonKeys('v.previous_raw_json', 'v.new_raw_json')} AS fields
       FROM gift_card_transaction_versions v
       ORDER BY v.transaction_id, v.version_id`)
      .all();
  }

  /** The current entries of cards the mirror lacks: of `orphanCardIds` when the card walk found them, else found here. */
  async orphanEntries(orphanCardIds: readonly string[] | undefined): Promise<OrphanEntry[]> {
    if (orphanCardIds?.length === 0) return [];
    const orphans = orphanCardIds
      ? this.#dialect.inJsonArray('t.gift_card_id', '@cards')
      : 't.gift_card_id IN (SELECT DISTINCT gift_card_id FROM gift_card_transactions EXCEPT SELECT gift_card_id FROM gift_cards)';
    return this.#c
      .read<OrphanEntry>(`SELECT t.transaction_id, t.gift_card_id, t.type, t.reference_id, m.gift_card_id IS NOT NULL AS confirmed
       FROM gift_card_transactions t
       LEFT JOIN missing_gift_cards m ON m.gift_card_id = t.gift_card_id
       WHERE ${orphans}
         AND t.vanished_sync_run_id IS NULL
       ORDER BY t.gift_card_id, t.created_at_ms, t.list_order`)
      .all(...(orphanCardIds ? [{ cards: JSON.stringify(orphanCardIds) }] : []));
  }

  /** Every order line's figures, in order and line order. */
  async orderLineFigures(): Promise<OrderLineFigures[]> {
    return this.db
      .selectFrom('dp_order_lines as l')
      .innerJoin('dp_orders as o', 'o.order_id', 'l.order_id')
      .select([
        'l.order_id',
        'l.line_no',
        'l.quantity',
        'l.currency',
        'o.currency as order_currency',
        'l.mrp_cents',
        'l.price_cents',
        'l.total_mrp_cents',
        'l.total_price_cents',
        'l.total_converted_price_cents',
        'l.fx_rate',
      ])
      .orderBy('l.order_id')
      .orderBy('l.line_no')
      .execute();
  }

  /**
   * Every pair of consecutive snapshots of a wallet up to sync `syncRunId`, not only the newest
   * (a drift is an event between two snapshots, found again on every later night), each with
   * the orders placed and failed in its currency between its first request and its second answer.
   * Snapshots kept before the request was stamped: their read is the instant of the answer.
   */
  async walletPairs(syncRunId: number): Promise<WalletPair[]> {
    const pairs = await this.db
      .selectFrom('dp_wallet_snapshots as s')
      .innerJoin('dp_wallet_snapshots as p', (join) =>
        join.onRef('p.wallet_id', '=', 's.wallet_id').on('p.sync_run_id', '=', (eb) =>
          eb
            .selectFrom('dp_wallet_snapshots as q')
            .select((q) => q.fn.max('q.sync_run_id').as('run'))
            .whereRef('q.wallet_id', '=', 's.wallet_id')
            .whereRef('q.sync_run_id', '<', 's.sync_run_id'),
        ),
      )
      .select([
        's.wallet_id as walletId',
        's.currency',
        's.balance_cents as balanceCents',
        's.requested_at_ms as requestedAtMs',
        's.read_at_ms as readAtMs',
        's.sync_run_id as syncRunId',
        'p.balance_cents as previousBalanceCents',
        'p.requested_at_ms as previousRequestedAtMs',
        'p.read_at_ms as previousReadAtMs',
        'p.sync_run_id as previousSyncRunId',
      ])
      .where('s.sync_run_id', '<=', syncRunId)
      .orderBy('s.wallet_id')
      .orderBy('s.sync_run_id')
      .execute();
    const result: WalletPair[] = [];
    for (const w of pairs) {
      if (w.balanceCents === null || w.previousBalanceCents === null) continue;
      const previous: WalletRead = {
        walletId: w.walletId,
        currency: w.currency,
        balanceCents: w.previousBalanceCents,
        requestedAtMs: w.previousRequestedAtMs ?? w.previousReadAtMs,
        answeredAtMs: w.previousReadAtMs,
        syncRunId: w.previousSyncRunId,
      };
      const current: WalletRead = {
        walletId: w.walletId,
        currency: w.currency,
        balanceCents: w.balanceCents,
        requestedAtMs: w.requestedAtMs ?? w.readAtMs,
        answeredAtMs: w.readAtMs,
        syncRunId: w.syncRunId,
      };
      result.push({
        previous,
        current,
        moves: await this.#walletMoves(w.currency, previous.requestedAtMs, current.answeredAtMs),
      });
    }
    return result;
  }

  /** The orders placed, and the orders that failed, in a currency between two instants (both included). */
  async #walletMoves(currency: string, fromMs: number, toMs: number): Promise<WalletMove[]> {
    const placed = await this.db
      .selectFrom('dp_orders')
      .select(['total_amount_cents as cents', 'created_at_ms as atMs'])
      .where('currency', '=', currency)
      .where('created_at_ms', '>=', fromMs)
      .where('created_at_ms', '<=', toMs)
      .where('total_amount_cents', 'is not', null)
      .execute();
    const failed = await this.db
      .selectFrom('dp_orders')
      .select(['total_amount_cents as cents', 'updated_at_ms as atMs'])
      .where('currency', '=', currency)
      .where('status', '=', 'FAILED')
      .where('updated_at_ms', '>=', fromMs)
      .where('updated_at_ms', '<=', toMs)
      .where('total_amount_cents', 'is not', null)
      .execute();
    const move =
      (kind: WalletMove['kind']) =>
      (row: { cents: number | null; atMs: number }): WalletMove[] =>
        row.cents === null ? [] : [{ cents: row.cents, atMs: row.atMs, kind }];
    return [...placed.flatMap(move('placed')), ...failed.flatMap(move('failed'))];
  }

  /** The latest matching's groups of these kinds in these states (the books stage keeps them). */
  async matchGroups(kinds: readonly string[], statuses: readonly MatchStatus[]): Promise<MatchGroup[]> {
    return this.#books.matchGroups(kinds, statuses);
  }

  /** The coupons' columns the coupon checks read, in coupon order. */
  #coupons() {
    return this.db
      .selectFrom('coupons')
      .select([
        'coupon_id as couponId',
        'merchant_id as merchantId',
        'status',
        'redemption_count as redemptionCount',
        'usage_limit_total as usageLimitTotal',
        'expires_at_ms as expiresAtMs',
      ])
      .orderBy('coupon_id');
  }

  /** Coupons with a total limit redeemed more often than it allows. */
  async couponsOverRedeemed(): Promise<CouponCounts[]> {
    return this.#coupons()
      .where('usage_limit_total', '>', 0)
      .whereRef('redemption_count', '>', 'usage_limit_total')
      .execute();
  }

  /** Coupons still ACTIVE that expired before `beforeMs`. */
  async couponsActiveExpiredBefore(beforeMs: number): Promise<CouponCounts[]> {
    return this.#coupons().where('status', '=', 'ACTIVE').where('expires_at_ms', '<', beforeMs).execute();
  }

  /** Coupons whose status disagrees with their count: ACTIVE at or past their limit, or USED never redeemed. */
  async couponsStatusDisagreeing(): Promise<CouponCounts[]> {
    return this.#coupons()
      .where((eb) =>
        eb.or([
          eb.and([
            eb('status', '=', 'ACTIVE'),
            eb('usage_limit_total', '>', 0),
            eb('redemption_count', '>=', eb.ref('usage_limit_total')),
          ]),
          eb.and([eb('status', '=', 'USED'), eb('redemption_count', '=', 0)]),
        ]),
      )
      .execute();
  }

  /** Coupons of any merchant but `merchantId`. */
  async couponsOfOtherMerchants(merchantId: string): Promise<CouponCounts[]> {
    return this.#coupons().where('merchant_id', '<>', merchantId).execute();
  }

  /** Orders placed before `beforeMs` and still short of COMPLETED or FAILED. */
  async ordersOpenSince(beforeMs: number): Promise<OpenOrder[]> {
    return this.db
      .selectFrom('dp_orders')
      .select(['order_id as orderId', 'status', 'created_at_ms as createdAtMs'])
      .where('status', 'not in', ['COMPLETED', 'FAILED'])
      .where('created_at_ms', '<', beforeMs)
      .orderBy('order_id')
      .execute();
  }

  /** Lines priced in their order's own currency and converted at a rate other than 1. */
  async linesConvertedInOwnCurrency(): Promise<ConvertedLine[]> {
    return this.db
      .selectFrom('dp_order_lines as l')
      .innerJoin('dp_orders as o', 'o.order_id', 'l.order_id')
      .select(['l.order_id as orderId', 'l.line_no as lineNo', 'l.currency', 'l.fx_rate as fxRate'])
      .whereRef('l.currency', '=', 'o.currency')
      .where('l.fx_rate', '<>', 1)
      .orderBy('l.order_id')
      .orderBy('l.line_no')
      .execute();
  }

  /** Vouchers that expired at or before their order's last update (its delivery). */
  async vouchersExpiredByDelivery(): Promise<DeliveredVoucher[]> {
    return this.db
      .selectFrom('dp_vouchers as v')
      .innerJoin('dp_orders as o', 'o.order_id', 'v.order_id')
      .select([
        'v.order_id as orderId',
        'v.line_no as lineNo',
        'v.voucher_no as voucherNo',
        'v.expiration_date_ms as expirationDateMs',
        'o.updated_at_ms as deliveredAtMs',
      ])
      .whereRef('v.expiration_date_ms', '<=', 'o.updated_at_ms')
      .orderBy('v.order_id')
      .orderBy('v.line_no')
      .orderBy('v.voucher_no')
      .execute();
  }

  /** Deliveries of a voucher code delivered more than once, by code, then order time. */
  async vouchersDeliveredTwice(): Promise<SharedVoucher[]> {
    return this.db
      .selectFrom('dp_vouchers as v')
      .innerJoin('dp_orders as o', 'o.order_id', 'v.order_id')
      .select(['v.code_sha256 as codeSha256', 'v.order_id as orderId', 'v.line_no as lineNo'])
      .where('v.code_sha256', 'in', (eb) =>
        eb
          .selectFrom('dp_vouchers')
          .select('code_sha256')
          .groupBy('code_sha256')
          .having((h) => h.fn.countAll(), '>', 1),
      )
      .orderBy('v.code_sha256')
      .orderBy('o.created_at_ms')
      .orderBy('v.order_id')
      .orderBy('v.line_no')
      .execute();
  }

  /** Orders under a purchase reference more than one order carries, by reference, then time. */
  async ordersSharingReference(): Promise<SharedReference[]> {
    return this.db
      .selectFrom('dp_orders')
      .select([
        'external_ref_id as externalRefId',
        'order_id as orderId',
        'currency',
        'total_amount_cents as totalAmountCents',
      ])
      .where('external_ref_id', 'in', (eb) =>
        eb
          .selectFrom('dp_orders')
          .select('external_ref_id')
          .groupBy('external_ref_id')
          .having((h) => h.fn.countAll(), '>', 1),
      )
      .orderBy('external_ref_id')
      .orderBy('created_at_ms')
      .orderBy('order_id')
      .execute();
  }

  /**
   * Records rejected by the sync `syncRunId`, and ledger entries rejected earlier of which no
   * valid copy has arrived since (an entry is not read again after its sync).
   */
  async quarantinedAt(syncRunId: number): Promise<Quarantined[]> {
    return this.db
      .selectFrom('quarantine as q')
      .select([
        'q.quarantine_id as quarantineId',
        'q.resource',
        'q.record_id as recordId',
        'q.reason',
        'q.raw_sha256 as rawSha256',
      ])
      .where((eb) =>
        eb.or([
          eb('q.last_sync_run_id', '=', syncRunId),
          eb.and([
            eb('q.resource', '=', 'giftCardTransactions'),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('gift_card_transactions as t')
                  .select('t.transaction_id')
                  .whereRef('t.transaction_id', '=', 'q.record_id'),
              ),
            ),
          ]),
        ]),
      )
      .orderBy('q.quarantine_id')
      .execute();
  }

  /**
   * The cards in flight on each of the last `runs` syncs: `syncRunId` and the completed ones
   * before it (a failed sync between counts for nothing), with since which sync.
   */
  async cardsInFlightOnEach(syncRunId: number, runs: number): Promise<StuckCard[]> {
    const recent = await this.db
      .selectFrom('sync_runs')
      .select('sync_run_id')
      .where((eb) =>
        eb.or([
          eb('sync_run_id', '=', syncRunId),
          eb.and([eb('sync_run_id', '<', syncRunId), eb('status', '=', 'completed')]),
        ]),
      )
      .orderBy('sync_run_id', 'desc')
      .limit(runs)
      .execute();
    if (recent.length < runs) return [];
    return this.db
      .selectFrom('gift_cards_in_flight as f')
      .leftJoin('gift_cards as c', 'c.gift_card_id', 'f.gift_card_id')
      .select((eb) => [
        'f.gift_card_id as giftCardId',
        'c.currency',
        eb.fn.min<number>('f.sync_run_id').as('sinceSyncRunId'),
      ])
      .where(
        'f.sync_run_id',
        'in',
        recent.map((row) => row.sync_run_id),
      )
      .groupBy(['f.gift_card_id', 'c.currency'])
      .having((eb) => eb.fn.countAll(), '=', runs)
      .orderBy('f.gift_card_id')
      .execute();
  }

  /** Orders whose total is not the sum of their lines' converted totals, or whose amounts are off the cent. */
  async ordersTotalDisagreeing(): Promise<OrderTotals[]> {
    const offCent = sql<number>`SUM(CASE WHEN l.line_no IS NOT NULL AND l.total_converted_price_cents IS NULL THEN 1 ELSE 0 END)`;
    return this.db
      .selectFrom('dp_orders as o')
      .leftJoin('dp_order_lines as l', 'l.order_id', 'o.order_id')
      .select((eb) => [
        'o.order_id as orderId',
        'o.currency',
        'o.total_amount_cents as totalAmountCents',
        eb.fn.sum<number | null>('l.total_converted_price_cents').as('linesTotal'),
        eb.fn.count<number>('l.line_no').as('lines'),
        offCent.as('offCentLines'),
      ])
      .groupBy(['o.order_id', 'o.currency', 'o.total_amount_cents'])
      .having(
        sql<boolean>`o.total_amount_cents IS NULL OR ${offCent} > 0 OR COALESCE(SUM(l.total_converted_price_cents), 0) <> o.total_amount_cents`,
      )
      .orderBy('o.order_id')
      .execute();
  }

  /** Every order with each of its lines and the vouchers each line delivered, in order and line order. */
  async orderLineDeliveries(): Promise<OrderLineDelivery[]> {
    return this.db
      .selectFrom('dp_orders as o')
      .leftJoin('dp_order_lines as l', 'l.order_id', 'o.order_id')
      .select((eb) => [
        'o.order_id as orderId',
        'o.status',
        'o.fulfillment_status as orderFulfilment',
        'l.line_no as lineNo',
        'l.quantity',
        'l.fulfilled_qty as fulfilledQty',
        'l.fulfillment_status as lineFulfilment',
        eb
          .selectFrom('dp_vouchers as v')
          .select((v) => v.fn.countAll<number>().as('n'))
          .whereRef('v.order_id', '=', 'l.order_id')
          .whereRef('v.line_no', '=', 'l.line_no')
          .$asScalar()
          .as('vouchers'),
      ])
      .orderBy('o.order_id')
      .orderBy('l.line_no')
      .execute();
  }

  /**
   * The current ledger entries under an idempotency key more than one current entry carries,
   * by key, then in the order they were mirrored. Candidates come from the index alone
   * (vanished entries included); the count over current entries keeps the real ones.
   */
  async entriesSharingKey(): Promise<KeyedEntry[]> {
    return this.db
      .selectFrom('gift_card_transactions as t')
      .leftJoin('gift_cards as c', 'c.gift_card_id', 't.gift_card_id')
      .select([
        't.idempotency_key as idempotencyKey',
        't.transaction_id as transactionId',
        't.gift_card_id as giftCardId',
        'c.currency',
        't.amount_cents as amountCents',
      ])
      .where('t.vanished_sync_run_id', 'is', null)
      .where('t.idempotency_key', 'in', (eb) =>
        eb
          .selectFrom('gift_card_transactions as k')
          .select('k.idempotency_key')
          .where('k.vanished_sync_run_id', 'is', null)
          .where('k.idempotency_key', 'in', (inner) =>
            inner
              .selectFrom('gift_card_transactions')
              .select('idempotency_key')
              .groupBy('idempotency_key')
              .having((h) => h.fn.countAll(), '>', 1),
          )
          .groupBy('k.idempotency_key')
          .having((h) => h.fn.countAll(), '>', 1),
      )
      .orderBy('t.idempotency_key')
      .orderBy('t.entry_id')
      .execute();
  }

  /** The cards the sync `syncRunId` recorded in flight. */
  async cardsInFlight(syncRunId: number): Promise<CardInFlight[]> {
    return this.db
      .selectFrom('gift_cards_in_flight as f')
      .leftJoin('gift_cards as c', 'c.gift_card_id', 'f.gift_card_id')
      .select(['f.gift_card_id as giftCardId', 'f.detail', 'c.currency'])
      .where('f.sync_run_id', '=', syncRunId)
      .orderBy('f.gift_card_id')
      .execute();
  }
}
