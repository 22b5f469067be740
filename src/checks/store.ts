/**
 * The checks' reads, typed and async: the SQL of the query checks in the two-halves shape
 * (RowsCheck), one method per read, each returning typed rows; the decisions over them are the
 * checks' own, pure. The checks stage writes nothing.
 */
import { BooksReads, type MatchGroup } from '../books/store.js';
import type { MatchStatus } from '../books/match.js';
import { sql } from 'kysely';
import type { CheckContext } from './check.js';
import type { MirrorQueries } from '../db/sqlite/queries.js';

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
export function checksStore(context: Pick<CheckContext, 'queries'>): ChecksStore {
  return new ChecksStore(context.queries);
}

export class ChecksStore {
  readonly #books: BooksReads;

  constructor(private readonly db: MirrorQueries) {
    this.#books = new BooksReads(db);
  }

  /** The latest matching's groups of these kinds in these states (the books stage keeps them). */
  async matchGroups(kinds: readonly string[], statuses: readonly MatchStatus[]): Promise<MatchGroup[]> {
    return this.#books.matchGroups(kinds, statuses);
  }

  /** The coupons' columns the coupon checks read, in coupon order. */
  #coupons() {
    return this.db
      .selectFrom('coupons')
      .select(['coupon_id as couponId', 'merchant_id as merchantId', 'status', 'redemption_count as redemptionCount', 'usage_limit_total as usageLimitTotal', 'expires_at_ms as expiresAtMs'])
      .orderBy('coupon_id');
  }

  /** Coupons with a total limit redeemed more often than it allows. */
  async couponsOverRedeemed(): Promise<CouponCounts[]> {
    return this.#coupons().where('usage_limit_total', '>', 0).whereRef('redemption_count', '>', 'usage_limit_total').execute();
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
          eb.and([eb('status', '=', 'ACTIVE'), eb('usage_limit_total', '>', 0), eb('redemption_count', '>=', eb.ref('usage_limit_total'))]),
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
      .select(['v.order_id as orderId', 'v.line_no as lineNo', 'v.voucher_no as voucherNo', 'v.expiration_date_ms as expirationDateMs', 'o.updated_at_ms as deliveredAtMs'])
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
      .where('v.code_sha256', 'in', (eb) => eb.selectFrom('dp_vouchers').select('code_sha256').groupBy('code_sha256').having((h) => h.fn.countAll(), '>', 1))
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
      .select(['external_ref_id as externalRefId', 'order_id as orderId', 'currency', 'total_amount_cents as totalAmountCents'])
      .where('external_ref_id', 'in', (eb) => eb.selectFrom('dp_orders').select('external_ref_id').groupBy('external_ref_id').having((h) => h.fn.countAll(), '>', 1))
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
      .select(['q.quarantine_id as quarantineId', 'q.resource', 'q.record_id as recordId', 'q.reason', 'q.raw_sha256 as rawSha256'])
      .where((eb) =>
        eb.or([
          eb('q.last_sync_run_id', '=', syncRunId),
          eb.and([eb('q.resource', '=', 'giftCardTransactions'), eb.not(eb.exists(eb.selectFrom('gift_card_transactions as t').select('t.transaction_id').whereRef('t.transaction_id', '=', 'q.record_id')))]),
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
      .where((eb) => eb.or([eb('sync_run_id', '=', syncRunId), eb.and([eb('sync_run_id', '<', syncRunId), eb('status', '=', 'completed')])]))
      .orderBy('sync_run_id', 'desc')
      .limit(runs)
      .execute();
    if (recent.length < runs) return [];
    return this.db
      .selectFrom('gift_cards_in_flight as f')
      .leftJoin('gift_cards as c', 'c.gift_card_id', 'f.gift_card_id')
      .select((eb) => ['f.gift_card_id as giftCardId', 'c.currency', eb.fn.min<number>('f.sync_run_id').as('sinceSyncRunId')])
      .where('f.sync_run_id', 'in', recent.map((row) => row.sync_run_id))
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
      .having(sql<boolean>`o.total_amount_cents IS NULL OR ${offCent} > 0 OR COALESCE(SUM(l.total_converted_price_cents), 0) <> o.total_amount_cents`)
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
      .select(['t.idempotency_key as idempotencyKey', 't.transaction_id as transactionId', 't.gift_card_id as giftCardId', 'c.currency', 't.amount_cents as amountCents'])
      .where('t.vanished_sync_run_id', 'is', null)
      .where('t.idempotency_key', 'in', (eb) =>
        eb
          .selectFrom('gift_card_transactions as k')
          .select('k.idempotency_key')
          .where('k.vanished_sync_run_id', 'is', null)
          .where('k.idempotency_key', 'in', (inner) => inner.selectFrom('gift_card_transactions').select('idempotency_key').groupBy('idempotency_key').having((h) => h.fn.countAll(), '>', 1))
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
