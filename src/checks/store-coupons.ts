/**
 * The checks' reads of coupons and their history. One method per query check's read, typed rows
 * back (see store.ts).
 */
import type { Mirror, MirrorQueries } from '../db/mirror.js';
import type { SqlConnection } from '../db/connection.js';

/** A coupon as the coupon checks read it. */
export interface CouponCounts {
  couponId: string;
  merchantId: string;
  status: string;
  redemptionCount: number;
  usageLimitTotal: number;
  expiresAtMs: number;
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

export class CouponReads {
  private readonly db: MirrorQueries;
  readonly #c: SqlConnection;

  constructor(mirror: Mirror) {
    this.db = mirror.queries;
    this.#c = mirror.connection;
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
}
