import { z } from 'zod';
import { idVariable, secretVariable, urlVariable, type ServiceConfig } from '../config.js';
import { ApiError, AuthError, CursorRejectedError, NotFoundError, PayloadValidationError } from '../errors.js';
import { HttpClient, type JsonResponse } from './http-client.js';
import type { GiftCardClientOptions, ListOptions } from './giftcard-client.js';
import { listQuery, paginate, type Page } from './pager.js';
import {
  describeIssues,
  orderSchema,
  parseRecord,
  productSchema,
  walletSchema,
  type Order,
  type Product,
  type Wallet,
} from './wire-types.js';

const errorBody = z.looseObject({ errCode: z.string(), error: z.string().optional() });
const paginationInfo = z.looseObject({ nextCursor: z.string().nullish(), hasMore: z.boolean() });
const productsPage = z.looseObject({ products: z.array(z.unknown()), paginationInfo });
const ordersPage = z.looseObject({ orders: z.array(z.unknown()), paginationInfo });

export interface DpClientOptions extends GiftCardClientOptions {
  /** The DP ID in paths; the spec makes it equal to the client ID, the default. */
  dpId?: string;
}

/** Wallets as read: each validated wallet, and each one that failed with its raw JSON. */
export interface WalletRead {
  wallets: Wallet[];
  rejected: PayloadValidationError[];
}

/**
 * Read-only client of the delivery partner service: x-client-id / x-client-secret headers,
 * unwrapped bodies, the {error, errCode} error body, `paginationInfo`, and the DP ID (equal
 * to the client ID) in paths. HTTP statuses of its errors are not documented, so errors are
 * told apart by errCode first. It has no method that writes.
 */
export class DpClient {
  readonly http: HttpClient;
  readonly dpId: string;

  constructor(
    readonly config: ServiceConfig,
    options: DpClientOptions = {},
  ) {
    this.dpId = options.dpId ?? config.clientId;
    const { dpId: _dpId, ...httpOptions } = options;
    this.http = new HttpClient({
      ...httpOptions,
      service: 'dp',
      baseUrl: config.baseUrl,
      requestTimeoutMs: options.requestTimeoutMs ?? config.requestTimeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? config.maxBodyBytes,
      headers: () => ({ 'x-client-id': config.clientId, 'x-client-secret': config.clientSecret.reveal() }),
    });
  }

  /** GET …/wallet/balance; with `selectedOnly` the query selectedWallet=true. */
  async getWallets(options: { selectedOnly?: boolean } = {}): Promise<WalletRead> {
    const query = options.selectedOnly ? '?selectedWallet=true' : '';
    const path = `/v1/delivery-partners/${this.#dp()}/wallet/balance${query}`;
    const response = await this.http.getJson(path);
    this.#throwUnlessOk(response, path, false);
    if (!Array.isArray(response.body)) {
      throw new PayloadValidationError('dpWallets', response.body, 'expected an array of wallets');
    }
    const read: WalletRead = { wallets: [], rejected: [] };
    for (const raw of response.body) {
      try {
        read.wallets.push(parseRecord(walletSchema, 'dpWallets', raw));
      } catch (error) {
        if (error instanceof PayloadValidationError) read.rejected.push(error);
        else throw error;
      }
    }
    return read;
  }

  listProducts(options: ListOptions = {}): AsyncGenerator<Page<Product>> {
    return this.#list(`/v1/products/delivery-partners/${this.#dp()}`, options, productsPage, 'products', (raw) =>
      parseRecord(productSchema, 'dpProducts', raw),
    );
  }

  listOrders(options: ListOptions = {}): AsyncGenerator<Page<Order>> {
    return this.#list(`/v1/orders/b2b/delivery-partners/${this.#dp()}`, options, ordersPage, 'orders', (raw) =>
      parseRecord(orderSchema, 'dpOrders', raw),
    );
  }

  /** @throws NotFoundError (RECORD_NOT_FOUND) when the order does not exist for our DP. */
  async getOrder(orderId: string): Promise<Order> {
    const path = `/v1/orders/b2b/delivery-partners/${this.#dp()}/${encodeURIComponent(orderId)}`;
    const response = await this.http.getJson(path);
    this.#throwUnlessOk(response, path, false);
    return parseRecord(orderSchema, 'dpOrders', response.body);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  #dp(): string {
    return encodeURIComponent(this.dpId);
  }

  #list<T, K extends 'products' | 'orders'>(
    path: string,
    options: ListOptions,
    pageSchema: z.ZodType<Record<K, unknown[]> & { paginationInfo: z.infer<typeof paginationInfo> }>,
    key: K,
    parse: (raw: unknown) => T,
  ): AsyncGenerator<Page<T>> {
    return paginate({
      service: 'dp',
      path,
      parse,
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.startCursor !== undefined ? { startCursor: options.startCursor } : {}),
      fetchPage: async (cursor, limit) => {
        const fullPath = path + listQuery(limit, cursor);
        const response = await this.http.getJson(fullPath);
        this.#throwUnlessOk(response, fullPath, cursor !== undefined);
        const page = pageSchema.safeParse(response.body);
        if (!page.success)
          throw new PayloadValidationError(`page of ${path}`, response.body, describeIssues(page.error));
        const info = page.data.paginationInfo;
        return { items: page.data[key], nextCursor: info.nextCursor ?? undefined, hasMore: info.hasMore };
      },
    });
  }

  #throwUnlessOk(response: JsonResponse, path: string, sentCursor: boolean): void {
    const { status, body } = response;
    if (status >= 200 && status < 300) return;
    const parsed = errorBody.safeParse(body);
    const errCode = parsed.success ? parsed.data.errCode : 'UNKNOWN';
    if (errCode === 'UNAUTHORIZED' || (status === 401 && !parsed.success)) {
      const elsewhere =
        parsed.success || body === null
          ? ''
          : `; the answer is not the delivery partner service's error body: ${urlVariable('dp')} may point at another service (the gift card service?)`;
      throw new AuthError(
        'dp',
        errCode,
        status,
        `the delivery partner service refused the credentials (${errCode}): check ${idVariable('dp')} and ${secretVariable('dp')}; the secret may have been rotated${elsewhere}`,
      );
    }
    if (errCode === 'FORBIDDEN' || (status === 403 && !parsed.success)) {
      throw new AuthError(
        'dp',
        errCode,
        status,
        `the delivery partner service refused access to this DP ID (${errCode}): check ${idVariable('dp')}, which is also the DP ID`,
      );
    }
    if (errCode === 'RECORD_NOT_FOUND' || status === 404) {
      throw new NotFoundError(
        'dp',
        status,
        errCode,
        path,
        `the delivery partner service found no record at ${path} (${errCode})`,
      );
    }
    if (status === 400 && sentCursor) {
      throw new CursorRejectedError(
        'dp',
        status,
        errCode,
        path,
        `the delivery partner service refused a pagination cursor (${errCode}) at ${path}`,
      );
    }
    throw new ApiError(
      'dp',
      status,
      errCode,
      path,
      `the delivery partner service answered HTTP ${status} (${errCode}) to GET ${path}`,
    );
  }
}
