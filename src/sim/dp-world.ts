import { Collection, type Sequenced } from './collection.js';
import { iso, wire, DAY } from './giftcard-world.js';
import type { Random } from './random.js';

/** Rates into the wallet currency (USD) before markup. */
export const FX_TO_USD: Readonly<Record<string, number>> = { USD: 1, EUR: 1.0842, GBP: 1.2671, INR: 0.01198 };
export const MARKUP_PERCENT = 2;

export interface WalletWire {
  walletID: string;
  currency: string;
  balance: number;
  [extra: string]: unknown;
}

export interface VariantWire {
  variantID: string;
  variantName: string;
  variantDisplayName: string;
  mrp: number;
  price: number;
  margin: number;
  stock: number;
  convertedSellingPrice: number;
  [extra: string]: unknown;
}

export interface ProductWire {
  productID: string;
  productName: string;
  productDisplayName: string;
  descriptionText: string;
  redemptionInstructions: string;
  termsAndConditions: string;
  attachments: string[];
  categories: Array<{ categoryID: string; categoryName: string }>;
  currency: string;
  applicableCountries: string[];
  variants: VariantWire[];
  [extra: string]: unknown;
}

export interface VoucherWire {
  voucherCode: string;
  voucherPin: string;
  expirationDate: string;
}

export interface LineWire {
  variantID: string;
  productID: string;
  quantity: number;
  mrp: number;
  price: number;
  totalMRP: number;
  totalPrice: number;
  totalConvertedPrice: number;
  totalItemCostPrice: number;
  currency: string;
  fxRate: number;
  markUpPercentage: number;
  variantName: string;
  productName: string;
  variantDisplayName: string;
  productDisplayName: string;
  attachments: string[];
  mobileNumbers: unknown[] | null;
  vouchers: VoucherWire[];
  fulfillmentStatus: string;
  allocatedQty: number;
  fulfilledQty: number;
  [extra: string]: unknown;
}

export interface OrderWire {
  orderID: string;
  externalRefID: string;
  dpUserEmail: string;
  dpUserName: string;
  dpID: string;
  totalOrderMRP: number;
  totalAmount: number;
  totalCostPrice: number;
  dpSellingPrice: number;
  subDpSellingPrice: number;
  currency: string;
  status: string;
  fulfillmentStatus: string;
  createdAt: string;
  updatedAt: string;
  assetURL: string;
  type: string;
  lineItems: LineWire[];
  [extra: string]: unknown;
}

export interface SimWallet {
  record: WalletWire;
  balance: number;
}

export interface SimProduct extends Sequenced {
  record: ProductWire;
  /** Price per variant in cents, product currency. */
  priceCents: Map<string, { mrp: number; price: number }>;
}

export interface SimOrder extends Sequenced {
  record: OrderWire;
  createdAtMs: number;
  pinned: boolean;
  /** No longer returned by the service (an order that vanished between syncs). */
  deleted?: boolean;
}

export interface OrderLineRequest {
  product: SimProduct;
  variantID: string;
  quantity: number;
}

/** The FX rate applied to a line: base rate with the markup folded in, to 6 places. */
export function fxRate(from: string, to: string): number {
  if (from === to) return 1;
  const base = (FX_TO_USD[from] ?? 1) / (FX_TO_USD[to] ?? 1);
  return Math.round(base * (1 + MARKUP_PERCENT / 100) * 1e6) / 1e6;
}

/** cents × rate rounded half away from zero to the cent. */
export function convert(cents: number, rate: number): number {
  return Math.round(cents * rate);
}

/**
 * The delivery partner service's state for one DP: wallets (one selected), the catalogue
 * and direct-checkout orders, which are placed CONFIRMED/PROCESSING, deduct the selected
 * wallet, and are later fulfilled with one voucher per unit.
 */
export class DpWorld {
  readonly wallets: SimWallet[] = [];
  readonly products = new Collection<SimProduct>();
  readonly orders = new Collection<SimOrder>();
  selectedWalletId = '';
  #orderCounter = 0;
  #building = true;
  readonly #pendingOrders: Array<{ at: number; order: number; item: SimOrder }> = [];

  constructor(
    readonly dpId: string,
    readonly random: Random,
  ) {}

  get selectedWallet(): SimWallet {
    const wallet = this.wallets.find((w) => w.record.walletID === this.selectedWalletId);
    if (!wallet) throw new Error('no selected wallet');
    return wallet;
  }

  addWallet(currency: string, balanceCents: number, selected = false): SimWallet {
    const wallet: SimWallet = {
      record: { walletID: `WAL-${currency}-${this.random.code(8)}`, currency, balance: wire(balanceCents) },
      balance: balanceCents,
    };
    this.wallets.push(wallet);
    if (selected) this.selectedWalletId = wallet.record.walletID;
    return wallet;
  }

  moveWallet(wallet: SimWallet, deltaCents: number): void {
    wallet.balance += deltaCents;
    wallet.record.balance = wire(wallet.balance);
  }

  addProduct(
    name: string,
    currency: string,
    variants: Array<{ name: string; mrp: number; price: number; stock: number }>,
  ): SimProduct {
    const productID = `PRD-${this.random.code(10)}`;
    const walletCurrency = this.selectedWallet.record.currency;
    const rate = fxRate(currency, walletCurrency);
    const priceCents = new Map<string, { mrp: number; price: number }>();
    const variantWires: VariantWire[] = variants.map((variant) => {
      const variantID = `VAR-${this.random.code(10)}`;
      priceCents.set(variantID, { mrp: variant.mrp, price: variant.price });
      return {
        variantID,
        variantName: variant.name,
        variantDisplayName: `${name} ${variant.name}`,
        mrp: wire(variant.mrp),
        price: wire(variant.price),
        margin: Math.round(((variant.mrp - variant.price) / variant.mrp) * 10000) / 100,
        stock: variant.stock,
        convertedSellingPrice: wire(convert(variant.price, rate)),
      };
    });
    const record: ProductWire = {
      productID,
      productName: name.toLowerCase().replace(/\s+/g, '-'),
      productDisplayName: name,
      descriptionText: `${name} e-gift voucher`,
      redemptionInstructions: 'Redeem online at checkout.',
      termsAndConditions: 'Valid for 12 months from delivery.',
      attachments: [`https://cdn.example.com/${productID}.png`],
      categories: [{ categoryID: 'CAT-GIFT', categoryName: 'Gift vouchers' }],
      currency,
      applicableCountries: ['US', 'GB', 'DE', 'IN'],
      variants: variantWires,
    };
    return this.products.add(productID, { record, priceCents });
  }

  /** Places a direct-checkout order: CONFIRMED/PROCESSING, selected wallet debited. */
  placeOrder(atMs: number, lines: readonly OrderLineRequest[], externalRefID?: string): SimOrder {
    this.#orderCounter += 1;
    const wallet = this.selectedWallet;
    const lineItems = lines.map((line) => this.#line(line, wallet.record.currency));
    const total = (pick: (line: LineWire) => number): number =>
      lineItems.reduce((sum, line) => sum + Math.round(pick(line) * 100), 0);
    const totalAmount = total((line) => line.totalConvertedPrice);
    const date = iso(atMs).slice(0, 10).replace(/-/g, '');
    const record: OrderWire = {
      orderID: `ORDIN${date}${this.random.code(8)}`,
      externalRefID: externalRefID ?? `PO-${String(this.#orderCounter).padStart(7, '0')}`,
      dpUserEmail: 'ops@partner.example',
      dpUserName: 'Partner Ops',
      dpID: this.dpId,
      totalOrderMRP: wire(total((line) => convertBack(line.totalMRP, line.fxRate))),
      totalAmount: wire(totalAmount),
      totalCostPrice: wire(totalAmount),
      dpSellingPrice: wire(totalAmount),
      subDpSellingPrice: wire(totalAmount),
      currency: wallet.record.currency,
      status: 'CONFIRMED',
      fulfillmentStatus: 'PROCESSING',
      createdAt: iso(atMs),
      updatedAt: iso(atMs),
      assetURL: '',
      type: 'DIRECT_CHECKOUT',
      lineItems,
    };
    this.moveWallet(wallet, -totalAmount);
    const order: SimOrder = { record, createdAtMs: atMs, pinned: false, seq: 0 };
    if (this.#building) this.#pendingOrders.push({ at: atMs, order: this.#orderCounter, item: order });
    else this.orders.add(record.orderID, order);
    return order;
  }

  /** Fulfilment: one voucher per unit, COMPLETED/FULFILLED. */
  fulfil(order: SimOrder, atMs: number): void {
    for (const line of order.record.lineItems) {
      line.vouchers = Array.from({ length: line.quantity }, () => ({
        voucherCode: this.random.code(16),
        voucherPin: this.random.digits(6),
        expirationDate: iso(atMs + 365 * DAY),
      }));
      line.allocatedQty = line.quantity;
      line.fulfilledQty = line.quantity;
      line.fulfillmentStatus = 'FULFILLED';
    }
    order.record.status = 'COMPLETED';
    order.record.fulfillmentStatus = 'FULFILLED';
    order.record.updatedAt = iso(atMs);
  }

  /** A failed order: its amount goes back to the selected wallet. */
  fail(order: SimOrder, atMs: number): void {
    order.record.status = 'FAILED';
    order.record.updatedAt = iso(atMs);
    this.moveWallet(this.selectedWallet, Math.round(order.record.totalAmount * 100));
  }

  finalize(): void {
    if (!this.#building) return;
    this.#building = false;
    this.#pendingOrders.sort((a, b) => a.at - b.at || a.order - b.order);
    for (const { item } of this.#pendingOrders) this.orders.add(item.record.orderID, item);
    this.#pendingOrders.length = 0;
  }

  #line({ product, variantID, quantity }: OrderLineRequest, walletCurrency: string): LineWire {
    const variant = product.record.variants.find((v) => v.variantID === variantID);
    const prices = product.priceCents.get(variantID);
    if (!variant || !prices) throw new Error(`unknown variant ${variantID}`);
    const rate = fxRate(product.record.currency, walletCurrency);
    const totalPrice = prices.price * quantity;
    return {
      variantID,
      productID: product.record.productID,
      quantity,
      mrp: wire(prices.mrp),
      price: wire(prices.price),
      totalMRP: wire(prices.mrp * quantity),
      totalPrice: wire(totalPrice),
      totalConvertedPrice: wire(convert(totalPrice, rate)),
      totalItemCostPrice: wire(totalPrice),
      currency: product.record.currency,
      fxRate: rate,
      markUpPercentage: rate === 1 ? 0 : MARKUP_PERCENT,
      variantName: variant.variantName,
      productName: product.record.productName,
      variantDisplayName: variant.variantDisplayName,
      productDisplayName: product.record.productDisplayName,
      attachments: [...product.record.attachments],
      mobileNumbers: null,
      vouchers: [],
      fulfillmentStatus: 'PROCESSING',
      allocatedQty: 0,
      fulfilledQty: 0,
    };
  }
}

/** A line's MRP in the order currency, for the order's MRP total. */
function convertBack(totalMrp: number, rate: number): number {
  return convert(Math.round(totalMrp * 100), rate) / 100;
}
