/**
 * The checks' reads of DP orders, their lines and vouchers. One method per query check's read,
 * typed rows back (see store.ts).
 */
import { sql } from 'kysely';
import type { Mirror, MirrorQueries } from '../db/mirror.js';
import type { SqlRow } from '../db/connection.js';

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

export class OrderReads {
  private readonly db: MirrorQueries;

  constructor(mirror: Mirror) {
    this.db = mirror.queries;
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
}
