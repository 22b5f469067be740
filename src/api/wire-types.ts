/**
 * Validated wire types of every resource the tool reads, from the two API contracts.
 * Unknown extra fields are kept (looseObject); missing optional ones are tolerated; a
 * payload that breaks the contract fails with a reason the sync stores in quarantine.
 * Amounts stay JSON numbers here: converting to cents (and flagging an amount off the
 * cent) happens once, where the sync turns records into rows.
 */
import { z } from 'zod';
import { PayloadValidationError } from '../errors.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 / ISO 8601 timestamp with a zone, that parses to a real instant. */
const timestamp = z
  .string()
  .refine((text) => RFC3339.test(text) && !Number.isNaN(Date.parse(text)), 'not an RFC 3339 timestamp with a zone');
const id = z.string().min(1);
const money = z.number();
const count = z.number().int().nonnegative();

// ---- gift card service ------------------------------------------------------------

export const GIFT_CARD_STATUSES = ['ACTIVE', 'INACTIVE', 'EXPIRED', 'FROZEN'] as const;
export type GiftCardStatus = (typeof GIFT_CARD_STATUSES)[number];

export const TRANSACTION_TYPES = ['DEBIT', 'REFUND', 'VOID', 'EXPIRE'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const COUPON_STATUSES = ['ACTIVE', 'USED', 'EXPIRED', 'VOIDED'] as const;
export type CouponStatus = (typeof COUPON_STATUSES)[number];

export const giftCardSchema = z.looseObject({
  giftCardId: id,
  merchantId: id,
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
  giftCardId: id,
});

export const transactionSchema = z.looseObject({
  transactionId: id,
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
  couponId: id,
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
  if (result.success) return result.data;
  throw new PayloadValidationError(resource, raw, describeIssues(result.error));
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(record)'}: ${issue.message}`)
    .join('; ');
}
