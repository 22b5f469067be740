import { z } from 'zod';
import { idVariable, secretVariable, urlVariable, type ServiceConfig } from '../config.js';
import { ApiError, AuthError, CursorRejectedError, NotFoundError, PayloadValidationError } from '../errors.js';
import { HttpClient, type HttpClientOptions, type JsonResponse } from './http-client.js';
import { listQuery, paginate, type Page } from './pager.js';
import { keepSource } from './json-text.js';
import {
  couponSchema,
  describeIssues,
  giftCardListElementSchema,
  giftCardSchema,
  parseRecord,
  transactionSchema,
  type Coupon,
  type GiftCard,
  type Transaction,
} from './wire-types.js';

const successEnvelope = z.looseObject({ success: z.literal(true), data: z.unknown() });
const listEnvelope = z.looseObject({
  success: z.literal(true),
  data: z.array(z.unknown()),
  pagination: z.looseObject({ nextCursor: z.string().nullish(), hasMore: z.boolean() }),
});
const failureEnvelope = z.looseObject({
  success: z.literal(false),
  errCode: z.string(),
  message: z.string().optional(),
});

/** A card as the list gives it: the full record when the element carries one. */
export interface GiftCardListElement {
  giftCardId: string;
  status: string | undefined;
  /** Present when the element validates as a full card record; otherwise read it by ID. */
  full: GiftCard | undefined;
  raw: unknown;
}

export interface ListOptions {
  limit?: number;
  startCursor?: string;
}

export type GiftCardClientOptions = Pick<
  HttpClientOptions,
  'maxConnections' | 'requestTimeoutMs' | 'maxBodyBytes' | 'retry' | 'onEvent' | 'random' | 'signal'
>;

/**
 * Read-only client of the gift card service: X-Client-Id / X-Client-Secret headers, the
 * success/failure envelope, errCode mapped to typed errors. It has no method that writes.
 */
export class GiftCardClient {
  readonly http: HttpClient;

  constructor(
    readonly config: ServiceConfig,
    options: GiftCardClientOptions = {},
  ) {
    this.http = new HttpClient({
      ...options,
      service: 'giftcard',
      baseUrl: config.baseUrl,
      requestTimeoutMs: options.requestTimeoutMs ?? config.requestTimeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? config.maxBodyBytes,
      headers: () => ({ 'X-Client-Id': config.clientId, 'X-Client-Secret': config.clientSecret.reveal() }),
    });
  }

  listGiftCards(options: ListOptions = {}): AsyncGenerator<Page<GiftCardListElement>> {
    return this.#list('/v1/giftCards', options, (raw) => {
      const element = parseRecord(giftCardListElementSchema, 'giftCards', raw);
      const full = giftCardSchema.safeParse(raw);
      const status = typeof element['status'] === 'string' ? element['status'] : undefined;
      return {
        giftCardId: element.giftCardId,
        status,
        full: full.success ? keepSource(raw, full.data) : undefined,
        raw,
      };
    });
  }

  /** @throws NotFoundError when no such card exists for our merchant. */
  async getGiftCard(giftCardId: string): Promise<GiftCard> {
    const data = await this.#getData(`/v1/giftCards/${encodeURIComponent(giftCardId)}`);
    return parseRecord(giftCardSchema, 'giftCards', data);
  }

  listTransactions(options: ListOptions = {}): AsyncGenerator<Page<Transaction>> {
    return this.#list('/v1/giftCards/transactions', options, (raw) =>
      parseRecord(transactionSchema, 'giftCardTransactions', raw),
    );
  }

  /** @throws NotFoundError when no such transaction exists for our merchant. */
  async getTransaction(transactionId: string): Promise<Transaction> {
    const data = await this.#getData(`/v1/giftCards/transactions/${encodeURIComponent(transactionId)}`);
    return parseRecord(transactionSchema, 'giftCardTransactions', data);
  }

  listCoupons(options: ListOptions & { templateId?: string } = {}): AsyncGenerator<Page<Coupon>> {
    return this.#list('/v1/coupons', options, (raw) => parseRecord(couponSchema, 'coupons', raw), {
      templateId: options.templateId,
    });
  }

  /** @throws NotFoundError (INSTRUMENT_NOT_FOUND) when no such coupon exists for our merchant. */
  async getCoupon(couponId: string): Promise<Coupon> {
    const data = await this.#getData(`/v1/coupons/${encodeURIComponent(couponId)}`);
    return parseRecord(couponSchema, 'coupons', data);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  #list<T>(
    path: string,
    options: ListOptions,
    parse: (raw: unknown) => T,
    extra: Record<string, string | undefined> = {},
  ): AsyncGenerator<Page<T>> {
    return paginate({
      service: 'giftcard',
      path,
      parse,
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.startCursor !== undefined ? { startCursor: options.startCursor } : {}),
      fetchPage: async (cursor, limit) => {
        const fullPath = path + listQuery(limit, cursor, extra);
        const response = await this.http.getJson(fullPath);
        this.#throwUnlessOk(response, fullPath, cursor !== undefined);
        const envelope = listEnvelope.safeParse(response.body);
        if (!envelope.success)
          throw new PayloadValidationError(`page of ${path}`, response.body, describeIssues(envelope.error));
        const { data, pagination } = envelope.data;
        return { items: data, nextCursor: pagination.nextCursor ?? undefined, hasMore: pagination.hasMore };
      },
    });
  }

  async #getData(path: string): Promise<unknown> {
    const response = await this.http.getJson(path);
    this.#throwUnlessOk(response, path, false);
    const envelope = successEnvelope.safeParse(response.body);
    if (!envelope.success) throw new PayloadValidationError(path, response.body, describeIssues(envelope.error));
    return envelope.data.data;
  }

  #throwUnlessOk(response: JsonResponse, path: string, sentCursor: boolean): void {
    if (response.status >= 200 && response.status < 300) return;
    const failure = failureEnvelope.safeParse(response.body);
    const errCode = failure.success ? failure.data.errCode : 'UNKNOWN';
    const { status } = response;
    if (status === 401 || status === 403) {
      // A JSON answer without the gift card service's error envelope came from another service at that address.
      const elsewhere =
        failure.success || response.body === null
          ? ''
          : `; the answer is not the gift card service's error envelope: ${urlVariable('giftcard')} may point at another service (the delivery partner's?)`;
      throw new AuthError('giftcard', errCode, status, `${authMessage(errCode, status)}${elsewhere}`);
    }
    if (status === 404)
      throw new NotFoundError(
        'giftcard',
        status,
        errCode,
        path,
        `the gift card service found no record at ${path} (${errCode})`,
      );
    if (status === 400 && sentCursor) {
      throw new CursorRejectedError(
        'giftcard',
        status,
        errCode,
        path,
        `the gift card service refused a pagination cursor (${errCode}) at ${path}`,
      );
    }
    throw new ApiError(
      'giftcard',
      status,
      errCode,
      path,
      `the gift card service answered HTTP ${status} (${errCode}) to GET ${path}`,
    );
  }
}

/** The one line an operator reads when the gift card service refuses us. */
function authMessage(errCode: string, status: number): string {
  const service = 'the gift card service';
  switch (errCode) {
    case 'API_KEY_INVALID':
      return `${service} refused the client secret (API_KEY_INVALID): check ${secretVariable('giftcard')}; it may have been rotated (or ${idVariable('giftcard')} is unknown to the service)`;
    case 'UNAUTHORIZED':
      return `${service} refused the credentials (UNAUTHORIZED): check ${idVariable('giftcard')} and ${secretVariable('giftcard')} are set for an API client, not a dashboard user`;
    case 'USER_INACTIVE':
      return `${service} says the API client is deactivated (USER_INACTIVE): check ${idVariable('giftcard')} with the service's administrator`;
    case 'FORBIDDEN':
      return `${service} refused this endpoint to the API client (FORBIDDEN): check ${idVariable('giftcard')} has the role MERCHANT_API_CLIENT`;
    default:
      return `${service} refused the request with HTTP ${status} (${errCode}): check ${idVariable('giftcard')} and ${secretVariable('giftcard')}`;
  }
}
