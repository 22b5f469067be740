/**
 * Pure mapping from validated API records to mirror rows: the one place amounts become
 * integer cents (NULL when not on a cent; the raw JSON keeps what was sent), timestamps gain
 * epoch milliseconds, voucher codes become SHA-256 hashes and PINs disappear.
 */
import {
  type Coupon,
  couponSchema,
  type GiftCard,
  type Order,
  orderSchema,
  parseRecord,
  type Product,
  type Transaction,
  type Wallet,
} from '../api/wire-types.js';
import { parseExact, rawJsonOf, sourceOf } from '../api/json-text.js';
import type { SqlRow } from '../db/tables.js';
import { toCents, type NumberLiteral } from '../money.js';
import { sha256Hex } from '../hash.js';

/** Cents of an API amount, or null when it is not on a cent (a finding, never rounded). */
export function centsOrNull(value: number | NumberLiteral | undefined): number | null {
  if (value === undefined) return null;
  const result = toCents(value);
  return result.ok ? result.cents : null;
}

const ms = (timestamp: string): number => Date.parse(timestamp);

export type GiftCardRow = SqlRow<
  'gift_cards',
  | 'gift_card_id'
  | 'merchant_id'
  | 'program_id'
  | 'template_id'
  | 'status'
  | 'currency'
  | 'initial_balance_cents'
  | 'remaining_balance_cents'
  | 'version'
  | 'issued_at'
  | 'issued_at_ms'
  | 'expires_at'
  | 'expires_at_ms'
  | 'created_at'
  | 'updated_at'
  | 'updated_at_ms'
  | 'raw_json'
>;

export function giftCardRow(card: GiftCard): GiftCardRow {
  return {
    gift_card_id: card.giftCardId,
    merchant_id: card.merchantId,
    program_id: card.programId ?? null,
    template_id: card.giftCardTemplateId ?? null,
    status: card.status,
    currency: card.currency,
    initial_balance_cents: centsOrNull(card.initialBalance),
    remaining_balance_cents: centsOrNull(card.remainingBalance),
    version: card.version,
    issued_at: card.issuedAt,
    issued_at_ms: ms(card.issuedAt),
    expires_at: card.expiresAt,
    expires_at_ms: ms(card.expiresAt),
    created_at: card.createdAt,
    updated_at: card.updatedAt,
    updated_at_ms: ms(card.updatedAt),
    raw_json: storedRawJson(card),
  };
}

export type TransactionRow = SqlRow<
  'gift_card_transactions',
  | 'transaction_id'
  | 'gift_card_id'
  | 'type'
  | 'amount_cents'
  | 'balance_before_cents'
  | 'balance_after_cents'
  | 'reference_id'
  | 'idempotency_key'
  | 'created_at'
  | 'created_at_ms'
  | 'raw_json'
>;

export function transactionRow(entry: Transaction): TransactionRow {
  return {
    transaction_id: entry.transactionId,
    gift_card_id: entry.giftCardId,
    type: entry.type,
    amount_cents: centsOrNull(entry.amount),
    balance_before_cents: centsOrNull(entry.balanceBefore),
    balance_after_cents: centsOrNull(entry.balanceAfter),
    reference_id: entry.referenceId,
    idempotency_key: entry.idempotencyKey,
    created_at: entry.createdAt,
    created_at_ms: ms(entry.createdAt),
    raw_json: storedRawJson(entry),
  };
}

export type CouponRow = SqlRow<
  'coupons',
  | 'coupon_id'
  | 'merchant_id'
  | 'program_id'
  | 'template_id'
  | 'status'
  | 'redemption_count'
  | 'usage_limit_total'
  | 'version'
  | 'expires_at'
  | 'expires_at_ms'
  | 'created_at'
  | 'updated_at'
  | 'updated_at_ms'
  | 'raw_json'
>;

export function couponRow(coupon: Coupon): CouponRow {
  return {
    coupon_id: coupon.couponId,
    merchant_id: coupon.merchantId,
    program_id: coupon.programId ?? null,
    template_id: coupon.couponTemplateId ?? null,
    status: coupon.status,
    redemption_count: coupon.redemptionCount,
    usage_limit_total: coupon.usageLimitTotal,
    version: coupon.version,
    expires_at: coupon.expiresAt,
    expires_at_ms: ms(coupon.expiresAt),
    created_at: coupon.createdAt,
    updated_at: coupon.updatedAt,
    updated_at_ms: ms(coupon.updatedAt),
    raw_json: storedRawJson(coupon),
  };
}

export type WalletRow = SqlRow<'dp_wallet_snapshots', 'wallet_id' | 'currency' | 'balance_cents' | 'raw_json'>;

export function walletRow(wallet: Wallet): WalletRow {
  return {
    wallet_id: wallet.walletID,
    currency: wallet.currency,
    balance_cents: centsOrNull(wallet.balance),
    raw_json: storedRawJson(wallet),
  };
}

export interface ProductRows {
  product: SqlRow<'dp_products', 'product_id' | 'product_name' | 'display_name' | 'currency' | 'raw_json'>;
  variants: Array<
    SqlRow<
      'dp_variants',
      | 'variant_id'
      | 'product_id'
      | 'variant_name'
      | 'mrp_cents'
      | 'price_cents'
      | 'converted_selling_price_cents'
      | 'stock'
      | 'raw_json'
    >
  >;
}

export function productRows(product: Product): ProductRows {
  return {
    product: {
      product_id: product.productID,
      product_name: product.productName,
      display_name: product.productDisplayName ?? null,
      currency: product.currency,
      raw_json: storedRawJson(product),
    },
    variants: product.variants.map((v) => ({
      variant_id: v.variantID,
      product_id: product.productID,
      variant_name: v.variantName,
      mrp_cents: centsOrNull(v.mrp),
      price_cents: centsOrNull(v.price),
      converted_selling_price_cents: centsOrNull(v.convertedSellingPrice),
      stock: v.stock !== undefined && Number.isInteger(v.stock) ? v.stock : null,
      raw_json: storedRawJson(v),
    })),
  };
}

export interface OrderRows {
  order: SqlRow<
    'dp_orders',
    | 'order_id'
    | 'external_ref_id'
    | 'dp_id'
    | 'type'
    | 'status'
    | 'fulfillment_status'
    | 'currency'
    | 'total_amount_cents'
    | 'total_order_mrp_cents'
    | 'created_at'
    | 'created_at_ms'
    | 'updated_at'
    | 'updated_at_ms'
    | 'raw_json'
  >;
  lines: Array<
    SqlRow<
      'dp_order_lines',
      | 'order_id'
      | 'line_no'
      | 'variant_id'
      | 'product_id'
      | 'quantity'
      | 'currency'
      | 'mrp_cents'
      | 'price_cents'
      | 'total_mrp_cents'
      | 'total_price_cents'
      | 'total_converted_price_cents'
      | 'fx_rate'
      | 'mark_up_percentage'
      | 'fulfillment_status'
      | 'allocated_qty'
      | 'fulfilled_qty'
    >
  >;
  vouchers: Array<
    SqlRow<
      'dp_vouchers',
      'order_id' | 'line_no' | 'voucher_no' | 'code_sha256' | 'expiration_date' | 'expiration_date_ms'
    >
  >;
}

/** An order as rows; its raw JSON has each voucher code replaced by its hash and no PIN. */
export function orderRows(order: Order): OrderRows {
  const vouchers: OrderRows['vouchers'] = [];
  const lines = order.lineItems.map((line, lineNo) => {
    line.vouchers.forEach((voucher, voucherNo) => {
      vouchers.push({
        order_id: order.orderID,
        line_no: lineNo,
        voucher_no: voucherNo,
        code_sha256: sha256Hex(voucher.voucherCode),
        expiration_date: voucher.expirationDate,
        expiration_date_ms: ms(voucher.expirationDate),
      });
    });
    return {
      order_id: order.orderID,
      line_no: lineNo,
      variant_id: line.variantID,
      product_id: line.productID,
      quantity: line.quantity,
      currency: line.currency,
      mrp_cents: centsOrNull(line.mrp),
      price_cents: centsOrNull(line.price),
      total_mrp_cents: centsOrNull(line.totalMRP),
      total_price_cents: centsOrNull(line.totalPrice),
      total_converted_price_cents: centsOrNull(line.totalConvertedPrice),
      fx_rate: line.fxRate,
      mark_up_percentage: line.markUpPercentage ?? null,
      fulfillment_status: line.fulfillmentStatus,
      allocated_qty: line.allocatedQty ?? null,
      fulfilled_qty: line.fulfilledQty,
    };
  });
  return {
    order: {
      order_id: order.orderID,
      external_ref_id: order.externalRefID,
      dp_id: order.dpID,
      type: order.type ?? null,
      status: order.status,
      fulfillment_status: order.fulfillmentStatus,
      currency: order.currency,
      total_amount_cents: centsOrNull(order.totalAmount),
      total_order_mrp_cents: centsOrNull(order.totalOrderMRP),
      created_at: order.createdAt,
      created_at_ms: ms(order.createdAt),
      updated_at: order.updatedAt,
      updated_at_ms: ms(order.updatedAt),
      raw_json: storedRawJson(order),
    },
    lines,
    vouchers,
  };
}

/** Fields that hold a voucher's code or PIN, however the service spells or nests them. */
const CODE_FIELD = /^voucher_?code$/i;
const PIN_FIELD = /^(voucher_?)?pin$/i;

/**
 * A copy of a payload safe to store: voucher codes hashed and PINs removed at any depth, in
 * known and unknown fields alike, whatever their type (a code sent as a number or an object is
 * still a code: it is hashed as its JSON text, never kept).
 */
export function scrubVouchers<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => scrubVouchers(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  // No prototype: a `__proto__` key the service sent stays a key of the record.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, inner] of Object.entries(value)) {
    if (PIN_FIELD.test(key)) continue;
    if (CODE_FIELD.test(key))
      out[`${key}Sha256`] = sha256Hex(typeof inner === 'string' ? inner : (JSON.stringify(inner) ?? String(inner)));
    else out[key] = scrubVouchers(inner);
  }
  return out as T;
}

/**
 * A key that may carry a voucher code or a PIN, or any \u escape (a key can be spelt with
 * them): a record whose text has none needs no scrubbing.
 */
const SECRET_FIELD_TEXT = /"(voucher_?)?pin"|"voucher_?code"|\\u/i;

/**
 * A record's raw JSON as the mirror keeps it: the text the service sent, byte for byte, unless
 * it names a voucher code or PIN field anywhere (any record, any depth); then a copy with the
 * codes hashed and the PINs removed.
 */
export function storedRawJson(record: unknown): string {
  const text = rawJsonOf(record);
  if (!SECRET_FIELD_TEXT.test(text)) return text;
  const parsed: unknown = sourceOf(record) === undefined ? record : JSON.parse(text);
  return JSON.stringify(scrubVouchers(parsed));
}

/** The identifier a raw record carries, for quarantine rows. */
export function recordIdOf(raw: unknown): string | null {
  if (raw === null || typeof raw !== 'object') return null;
  const record = raw as Record<string, unknown>;
  for (const key of ['transactionId', 'giftCardId', 'couponId', 'orderID', 'productID', 'walletID']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/**
 * A coupon's row from the raw JSON the mirror kept of it (a version of it): parsed and validated
 * as the sync parsed the service's answer, and made a row by the same builder.
 * @throws PayloadValidationError when the kept text is not a coupon (it was changed by hand).
 */
export function keptCouponRow(raw: string): CouponRow {
  return couponRow(parseRecord(couponSchema, 'coupons', parseExact(raw)));
}

/** A kept voucher: its code replaced by the code's hash (scrubVouchers), no PIN. */
type KeptVoucher = { voucherCode?: unknown; voucherCodeSha256?: unknown };

/**
 * An order's rows from the raw JSON the mirror kept of it, as the sync made them from the
 * service's answer: the same validation and builder, each voucher's hash taken as kept (its code
 * was never stored). @throws PayloadValidationError when the kept text is not an order.
 */
export function keptOrderRows(raw: string): OrderRows {
  const parsed = parseExact(raw) as { lineItems?: Array<{ vouchers?: KeptVoucher[] }> };
  const hashes: Array<string | undefined> = [];
  for (const line of Array.isArray(parsed?.lineItems) ? parsed.lineItems : [])
    for (const voucher of Array.isArray(line?.vouchers) ? line.vouchers : []) {
      const hash = typeof voucher?.voucherCodeSha256 === 'string' ? voucher.voucherCodeSha256 : undefined;
      hashes.push(hash);
      // The schema asks for a code: the kept hash stands in for it while the order is validated.
      if (hash !== undefined && voucher.voucherCode === undefined) voucher.voucherCode = hash;
    }
  const rows = orderRows(parseRecord(orderSchema, 'dpOrders', parsed));
  return {
    order: { ...rows.order, raw_json: raw },
    lines: rows.lines,
    vouchers: rows.vouchers.map((v, i) => ({ ...v, code_sha256: hashes[i] ?? v.code_sha256 })),
  };
}
