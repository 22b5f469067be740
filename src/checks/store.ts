/**
 * The checks' reads, typed and async: the SQL of the query checks in the two-halves shape
 * (RowsCheck), one method per read, each returning typed rows; the decisions over them are the
 * checks' own, pure. The checks stage writes nothing.
 */
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

/** The checks' store over a mirror's typed queries. */
export function checksStore(context: Pick<CheckContext, 'queries'>): ChecksStore {
  return new ChecksStore(context.queries);
}

export class ChecksStore {
  constructor(private readonly db: MirrorQueries) {}

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
}
