/**
 * Validated wire types of every resource the tool reads, from the two API contracts.
 * Unknown extra fields are kept (looseObject); missing optional ones are tolerated; a
 * payload that breaks the contract fails with a reason the sync stores in quarantine.
 * Amounts stay JSON numbers here: converting to cents (and flagging an amount off the
 * cent) happens once, where the sync turns records into rows.
 */
import { z } from 'zod';
import { PayloadValidationError } from '../errors.js';
import { InexactNumber, keepSource } from './json-text.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Whether a text is an RFC 3339 date-time with a zone naming a real instant: months 1-12, the
 * days the month has (29 February in leap years only), hours 0-23, minutes and seconds 0-59
 * (a leap second cannot be stored as an instant), offsets up to 23:59. Date.parse alone
 * accepts 2025-02-30 (as 2 March) and hour 24.
 */
export function isRfc3339(text: string): boolean {
  const match = RFC3339.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second, , offsetHours = '0', offsetMinutes = '0'] = match
    .slice(1)
    .map((part) => part ?? '');
  const y = Number(year);
  const m = Number(month);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return (
    days !== undefined &&
    Number(day) >= 1 &&
    Number(day) <= days &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    Number(offsetHours || '0') <= 23 &&
    Number(offsetMinutes || '0') <= 59 &&
    !Number.isNaN(Date.parse(text))
  );
}

/** An RFC 3339 timestamp with a zone, naming a real instant. */
const timestamp = z.string().refine(isRfc3339, 'not an RFC 3339 timestamp with a zone naming a real instant');
const id = z.string().min(1);
/** The identifiers the gift card spec types as UUID strings. */
const uuid = z
  .string()
  .regex(
    /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    'not a UUID, as the spec types it',
  );
/**
 * An amount: a JSON number, or the text of one a double cannot carry (a finding downstream,
 * never a rounded value).
 */
const money = z.union([z.number(), z.instanceof(InexactNumber)], {
  error: (issue) =>
    `Invalid input: expected number, received ${issue.input === null ? 'null' : Array.isArray(issue.input) ? 'array' : typeof issue.input}`,
});
const count = z.number().int().nonnegative();

// ---- gift card service ------------------------------------------------------------

export const GIFT_CARD_STATUSES = ['ACTIVE', 'INACTIVE', 'EXPIRED', 'FROZEN'] as const;
export type GiftCardStatus = (typeof GIFT_CARD_STATUSES)[number];

export const TRANSACTION_TYPES = ['DEBIT', 'REFUND', 'VOID', 'EXPIRE'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const COUPON_STATUSES = ['ACTIVE', 'USED', 'EXPIRED', 'VOIDED'] as const;
export type CouponStatus = (typeof COUPON_STATUSES)[number];

export const giftCardSchema = z.looseObject({
  giftCardId: uuid,
  merchantId: uuid,
  programId: z.string().optional(),
  giftCardTemplateId: z.string().optional(),
  codeHash: z.string().optional(),
  cardNumberHash: z.string().optional(),
  pinHash: z.string().optional(),
  status: z.enum(GIFT_CARD_STATUSES),
  currency: z.string().regex(/^[A-Z]{3}$/, 'not an ISO 4217 currency code'),
  initialBalance: money,
  remainingBalance: money,
  issuedAt: timestamp,
  expiresAt: timestamp,
  version: z.number().int(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type GiftCard = z.infer<typeof giftCardSchema>;

/** The list element shape is not shown by the spec: only an ID and status are relied on. */
export const giftCardListElementSchema = z.looseObject({
  giftCardId: uuid,
});

export const transactionSchema = z.looseObject({
  transactionId: uuid,
  merchantId: z.string().optional(),
  giftCardId: id,
  type: z.enum(TRANSACTION_TYPES),
  amount: money,
  balanceBefore: money,
  balanceAfter: money,
  referenceId: z.string(),
  idempotencyKey: z.string(),
  createdAt: timestamp,
});
export type Transaction = z.infer<typeof transactionSchema>;

export const couponSchema = z.looseObject({
  couponId: uuid,
  merchantId: id,
  programId: z.string().optional(),
  couponTemplateId: z.string().optional(),
  codeHash: z.string().optional(),
  status: z.enum(COUPON_STATUSES),
  redemptionCount: count,
  usageLimitTotal: count,
  expiresAt: timestamp,
  version: z.number().int(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type Coupon = z.infer<typeof couponSchema>;

// ---- delivery partner service -------------------------------------------------------

/** Values the spec has seen; others may exist ("values seen"), so any string is accepted. */
export const ORDER_STATUSES_SEEN = ['CONFIRMED', 'COMPLETED', 'PROCESSING', 'FAILED'] as const;
export const FULFILLMENT_STATUSES_SEEN = ['PROCESSING', 'FULFILLED'] as const;

export const walletSchema = z.looseObject({
  walletID: id,
  currency: z.string().regex(/^[A-Z]{3}$/, 'not an ISO 4217 currency code'),
  balance: money,
});
export type Wallet = z.infer<typeof walletSchema>;

const variantSchema = z.looseObject({
  variantID: id,
  variantName: z.string(),
  variantDisplayName: z.string().optional(),
  mrp: money,
  price: money,
  margin: z.number().optional(),
  stock: z.number().optional(),
  convertedSellingPrice: money,
});

export const productSchema = z.looseObject({
  productID: id,
  productName: z.string(),
  productDisplayName: z.string().optional(),
  descriptionText: z.string().optional(),
  redemptionInstructions: z.string().optional(),
  termsAndConditions: z.string().optional(),
  attachments: z.array(z.string()).optional(),
  categories: z.array(z.looseObject({ categoryID: z.string(), categoryName: z.string() })).optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'not an ISO 4217 currency code'),
  applicableCountries: z.array(z.string()).optional(),
  variants: z.array(variantSchema),
});
export type Product = z.infer<typeof productSchema>;

const voucherSchema = z.looseObject({
  voucherCode: z.string().min(1),
  voucherPin: z.string().optional(),
  expirationDate: timestamp,
});

const lineItemSchema = z.looseObject({
  variantID: id,
  productID: id,
  quantity: z.number().int().positive(),
  mrp: money,
  price: money,
  totalMRP: money,
  totalPrice: money,
  totalConvertedPrice: money,
  totalItemCostPrice: money.optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'not an ISO 4217 currency code'),
  fxRate: z.number().positive(),
  markUpPercentage: z.number().optional(),
  variantName: z.string().optional(),
  productName: z.string().optional(),
  variantDisplayName: z.string().optional(),
  productDisplayName: z.string().optional(),
  attachments: z.array(z.string()).optional(),
  mobileNumbers: z.array(z.unknown()).nullable().optional(),
  vouchers: z.array(voucherSchema),
  fulfillmentStatus: z.string().min(1),
  allocatedQty: count.optional(),
  fulfilledQty: count,
});
export type OrderLineItem = z.infer<typeof lineItemSchema>;

export const orderSchema = z.looseObject({
  orderID: id,
  externalRefID: z.string(),
  dpUserEmail: z.string().optional(),
  dpUserName: z.string().optional(),
  dpID: id,
  totalOrderMRP: money.optional(),
  totalAmount: money,
  totalCostPrice: money.optional(),
  dpSellingPrice: money.optional(),
  subDpSellingPrice: money.optional(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'not an ISO 4217 currency code'),
  status: z.string().min(1),
  fulfillmentStatus: z.string().min(1),
  createdAt: timestamp,
  updatedAt: timestamp,
  assetURL: z.string().optional(),
  type: z.string().optional(),
  lineItems: z.array(lineItemSchema),
});
export type Order = z.infer<typeof orderSchema>;

// ---- validation -----------------------------------------------------------------------

/** Resources the tool reads, as quarantine and progress name them. */
export type Resource = 'giftCards' | 'giftCardTransactions' | 'coupons' | 'dpWallets' | 'dpProducts' | 'dpOrders';

/**
 * Validates one record against its schema.
 * @throws PayloadValidationError with the raw JSON and a readable reason.
 */
export function parseRecord<T>(schema: z.ZodType<T>, resource: Resource, raw: unknown): T {
  const result = schema.safeParse(raw);
  if (result.success) return keepSource(raw, result.data);
  throw new PayloadValidationError(resource, raw, describeIssues(result.error));
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(record)'}: ${issue.message}`)
    .join('; ');
}
