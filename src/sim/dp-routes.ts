import type { IncomingHttpHeaders } from 'node:http';
import type { CursorCodec } from './cursor.js';
import type { DpWorld } from './dp-world.js';
import { listPage, parseListQuery, type SimResponse } from './routes.js';

/** A delivery partner's credentials; its client ID is its DP ID. */
export interface DpApiClient {
  clientId: string;
  clientSecret: string;
}

export interface DpServiceState {
  worlds: Map<string, DpWorld>;
  clients: DpApiClient[];
  cursors: CursorCodec;
}

const fail = (status: number, errCode: string, error: string): SimResponse => ({ status, body: { error, errCode } });

/**
 * The DP service's documented read endpoints: unwrapped bodies, {error, errCode} errors,
 * `paginationInfo`, the DP ID in paths (another DP's ID is FORBIDDEN). The spec does not
 * give HTTP statuses for its errors; these are the conventional ones.
 */
export function handleDpRequest(
  state: DpServiceState,
  method: string,
  url: URL,
  headers: IncomingHttpHeaders,
): SimResponse {
  const clientId = headers['x-client-id'];
  const secret = headers['x-client-secret'];
  const client = state.clients.find((c) => c.clientId === clientId);
  if (typeof clientId !== 'string' || typeof secret !== 'string' || !client || client.clientSecret !== secret) {
    return fail(401, 'UNAUTHORIZED', 'credentials missing or invalid');
  }
  const path = url.pathname.replace(/\/+$/, '');
  const match =
    /^\/v1\/delivery-partners\/([^/]+)\/wallet\/(balance)$/.exec(path) ??
    /^\/v1\/products\/delivery-partners\/([^/]+)()$/.exec(path) ??
    /^\/v1\/orders\/b2b\/delivery-partners\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (!match) return fail(404, 'RECORD_NOT_FOUND', `no such endpoint: ${path}`);
  const dpId = decodeURIComponent(match[1] ?? '');
  if (dpId !== client.clientId) return fail(403, 'FORBIDDEN', 'DP ID not accessible to these credentials');
  if (method !== 'GET') return fail(405, 'INVALID_REQUEST', 'the simulator serves read endpoints only');
  const world = state.worlds.get(dpId);
  if (!world) return fail(404, 'RECORD_NOT_FOUND', 'delivery partner not found');

  if (path.endsWith('/wallet/balance')) {
    const selectedOnly = url.searchParams.get('selectedWallet') === 'true';
    const wallets = selectedOnly ? [world.selectedWallet] : world.wallets;
    return { status: 200, body: wallets.map((w) => w.record) };
  }
  if (path.startsWith('/v1/products/')) {
    const query = parseListQuery(url.searchParams, `products:${dpId}`, state.cursors, false);
    if (typeof query === 'string') return fail(400, 'INVALID_REQUEST', query);
    const page = listPage(world.products, `products:${dpId}`, query, state.cursors, () => true);
    return {
      status: 200,
      body: {
        products: page.items.map((p) => p.record),
        paginationInfo: { nextCursor: page.nextCursor, hasMore: page.hasMore },
      },
    };
  }
  const orderId = match[2];
  if (orderId) {
    const order = world.orders.get(decodeURIComponent(orderId));
    if (!order || order.deleted) return fail(404, 'RECORD_NOT_FOUND', 'order not found');
    return { status: 200, body: order.record };
  }
  const query = parseListQuery(url.searchParams, `orders:${dpId}`, state.cursors, false);
  if (typeof query === 'string') return fail(400, 'INVALID_REQUEST', query);
  const page = listPage(world.orders, `orders:${dpId}`, query, state.cursors, (o) => !o.deleted);
  return {
    status: 200,
    body: {
      orders: page.items.map((o) => o.record),
      paginationInfo: { nextCursor: page.nextCursor, hasMore: page.hasMore },
    },
  };
}
