import type { IncomingHttpHeaders } from 'node:http';
import type { CursorCodec } from './cursor.js';
import type { GiftCardWorld } from './giftcard-world.js';
import { listPage, parseListQuery, UUID, type SimResponse } from './routes.js';

/** An API client of the gift card service. */
export interface GiftCardApiClient {
  clientId: string;
  clientSecret: string;
  merchantId: string;
  active: boolean;
}

export interface GiftCardServiceState {
  world: GiftCardWorld;
  clients: GiftCardApiClient[];
  cursors: CursorCodec;
  cardListShape: 'full' | 'minimal';
}

const fail = (status: number, errCode: string, message: string): SimResponse => ({
  status,
  body: { success: false, errCode, message },
});
const ok = (data: unknown, status = 200): SimResponse => ({ status, body: { success: true, data } });

/** Paths of administrator operations: they refuse client credentials with 403 FORBIDDEN. */
const ADMIN_PATHS = /^\/v1\/(programs|campaigns|giftCardTemplates|couponTemplates|users|merchants|admin)(\/|$)/;

/**
 * The gift card service's documented read endpoints: authentication and its errors, merchant
 * scoping, the envelope, pagination, and the 400/404 codes per resource.
 */
export function handleGiftCardRequest(
  state: GiftCardServiceState,
  method: string,
  url: URL,
  headers: IncomingHttpHeaders,
): SimResponse {
  const auth = authenticate(state, headers);
  if ('status' in auth) return auth;
  const path = url.pathname.replace(/\/+$/, '');
  if (ADMIN_PATHS.test(path)) return fail(403, 'FORBIDDEN', 'endpoint not open to API clients');
  if (method !== 'GET') return fail(405, 'BAD_REQUEST', 'the simulator serves read endpoints only');
  const { world, cursors } = state;
  const merchant = auth.merchantId;

  if (path === '/v1/giftCards') {
    const query = parseListQuery(url.searchParams, 'giftCards', cursors, true);
    if (typeof query === 'string') return fail(400, 'BAD_REQUEST', query);
    const page = listPage(world.cards, 'giftCards', query, cursors, (c) => c.owner === merchant && c.findable);
    const data = page.items.map((c) =>
      state.cardListShape === 'full' ? c.record : { giftCardId: c.record.giftCardId, status: c.record.status },
    );
    return {
      status: 200,
      body: { success: true, data, pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore } },
    };
  }
  if (path === '/v1/giftCards/transactions') {
    const query = parseListQuery(url.searchParams, 'transactions', cursors, true);
    if (typeof query === 'string') return fail(400, 'BAD_REQUEST', query);
    const page = listPage(world.entries, 'transactions', query, cursors, (e) => e.owner === merchant && !e.deleted);
    return {
      status: 200,
      body: {
        success: true,
        data: page.items.map((e) => e.record),
        pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore },
      },
    };
  }
  const transaction = /^\/v1\/giftCards\/transactions\/([^/]+)$/.exec(path);
  if (transaction) {
    const id = decodeURIComponent(transaction[1] ?? '');
    if (!UUID.test(id)) return fail(400, 'BAD_REQUEST', 'transactionId is not a valid UUID');
    const entry = world.entries.get(id);
    if (!entry || entry.owner !== merchant || entry.deleted || entry.hiddenById)
      return fail(404, 'RECORD_NOT_FOUND', 'transaction not found');
    return ok(entry.record);
  }
  const giftCard = /^\/v1\/giftCards\/([^/]+)$/.exec(path);
  if (giftCard) {
    const id = decodeURIComponent(giftCard[1] ?? '');
    if (!UUID.test(id)) return fail(400, 'BAD_REQUEST', 'giftCardId is not a valid UUID');
    const card = world.cards.get(id);
    if (!card || card.owner !== merchant || !card.findable) return fail(404, 'RECORD_NOT_FOUND', 'gift card not found');
    return ok(card.record);
  }
  if (path === '/v1/coupons') {
    const query = parseListQuery(url.searchParams, 'coupons', cursors, true);
    if (typeof query === 'string') return fail(400, 'BAD_REQUEST', query);
    const templateId = url.searchParams.get('templateId');
    if (templateId !== null && !UUID.test(templateId))
      return fail(400, 'BAD_REQUEST', 'templateId is not a valid UUID');
    const page = listPage(
      world.coupons,
      'coupons',
      query,
      cursors,
      (c) => c.owner === merchant && !c.deleted && (templateId === null || c.record.couponTemplateId === templateId),
    );
    return {
      status: 200,
      body: {
        success: true,
        data: page.items.map((c) => c.record),
        pagination: { nextCursor: page.nextCursor, hasMore: page.hasMore },
      },
    };
  }
  const coupon = /^\/v1\/coupons\/([^/]+)$/.exec(path);
  if (coupon) {
    const id = decodeURIComponent(coupon[1] ?? '');
    if (!UUID.test(id)) return fail(400, 'BAD_REQUEST', 'couponId is not a valid UUID');
    const found = world.coupons.get(id);
    if (!found || found.owner !== merchant || found.deleted)
      return fail(404, 'INSTRUMENT_NOT_FOUND', 'coupon not found');
    return ok(found.record);
  }
  return fail(404, 'RECORD_NOT_FOUND', `no such endpoint: ${path}`);
}

function authenticate(state: GiftCardServiceState, headers: IncomingHttpHeaders): GiftCardApiClient | SimResponse {
  const clientId = headers['x-client-id'];
  const secret = headers['x-client-secret'];
  if (typeof clientId !== 'string' || typeof secret !== 'string' || clientId === '' || secret === '') {
    return fail(401, 'UNAUTHORIZED', 'client credentials missing, or a credential type not permitted');
  }
  const client = state.clients.find((c) => c.clientId === clientId);
  if (!client || client.clientSecret !== secret) return fail(401, 'API_KEY_INVALID', 'unknown client or wrong secret');
  if (!client.active) return fail(403, 'USER_INACTIVE', 'API client account deactivated');
  return client;
}
