/**
 * A hostile server of both services, the project's own and separate from the simulator: it
 * stands in front of a simulator on 127.0.0.1 and, per switch, turns its answers into what a
 * broken or malicious service might send. Every switch is off until a test turns it on.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Simulator } from '../../src/sim/simulator.js';
import { testNow } from './test-clock.js';

/** What the hostile server can do, one switch per attack. */
export interface Switches {
  /** This card (or these) stays in the card list but answers 404 when read by ID. */
  cardNotFoundById?: string | readonly string[];
  /** DP orders: the first voucher's code arrives as a number, the second's as an object. */
  voucherCodeNotString?: { number: number; object: string };
  /** Gift cards: an unknown field named like a voucher code, and a PIN, in every card. */
  voucherFieldOnCards?: { code: string; pin: string };
  /** Both services echo their client secret back in a data field of every record. */
  echoSecrets?: boolean;
  /** This list's cursors carry the client secret (and are refused when sent back). */
  secretInCursor?: '/v1/giftCards' | '/v1/giftCards/transactions';
  /** The first ledger page carries one record nested this many levels deep. */
  deepRecord?: number;
  /** The coupon list answers with a body of this many bytes (whitespace around a real page). */
  hugeBodyBytes?: number;
  /** The coupon list says hasMore forever, with a fresh cursor over the same records. */
  endlessPages?: boolean;
  /** The coupon list answers 429 with this Retry-After (seconds). */
  retryAfterSeconds?: number;
  /** The first ledger page's first entry gets this amount literal, as text. */
  amountLiteral?: string;
  /** The first coupon's expiresAt. */
  couponExpiresAt?: string;
  /** The first card of the list, and its read by ID, get this giftCardId. */
  cardId?: string;
  /** The ledger's first page comes with one more item than the 100 asked for. */
  oversizedPage?: boolean;
  /** The first ledger page's first entry gets a `__proto__` field. */
  protoField?: boolean;
  /** The first ledger page's first entry gets this referenceId. */
  referenceId?: string;
  /** Every request is refused with 401 and an HTML page. */
  htmlRefusal?: boolean;
  /** The DP service refuses every request at once (401 UNAUTHORIZED). */
  refuseDp?: boolean;
  /** The first request to this path (query aside) is answered 429 with this Retry-After, in seconds. */
  rateLimitOnce?: { path: string; seconds: number };
  /** Every gift card answer waits this long, as a slow network would. */
  giftcardDelayMs?: number;
  /**
   * The gift card secret the tool is given instead of the real one (a secret that occurs in the
   * data, such as `ACTIVE`): the hostile server swaps it for the real one upstream.
   */
  giftcardSecretAs?: string;
  /** The first page of the card list carries this many cards of another merchant (which lookups by ID do not find). */
  foreignCards?: number;
  /** The coupon list answers empty pages that say hasMore, under fresh cursors, for ever. */
  emptyEndless?: boolean;
  /** Every card of the card list fails validation (its ID is not a UUID). */
  cardsInvalid?: boolean;
}

/** One request as the hostile server received it. */
export interface Received {
  service: 'giftcard' | 'dp';
  path: string;
  at: number;
}

export interface Hostile {
  giftcardUrl: string;
  dpUrl: string;
  switches: Switches;
  /** Requests each service received. */
  requests: { giftcard: number; dp: number };
  /** Every request's path and query, in order. */
  urls: string[];
  /** Every request, with when it arrived. */
  received: Received[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/** Starts the hostile server in front of `sim`, both services on ports of their own. */
export async function startHostile(sim: Simulator, switches: Switches = {}): Promise<Hostile> {
  // The object the test holds: its switches are read at every request.
  const hostile: Hostile = {
    giftcardUrl: '',
    dpUrl: '',
    switches,
    requests: { giftcard: 0, dp: 0 },
    urls: [],
    received: [],
    close: async () => undefined,
  };
  const requests = hostile.requests;
  const servers = await Promise.all(
    (['giftcard', 'dp'] as const).map(async (service) => {
      const upstream = service === 'giftcard' ? sim.giftcardUrl : sim.dpUrl;
      const secret = service === 'giftcard' ? sim.credentials.giftcard.clientSecret : sim.credentials.dp.clientSecret;
      const server = createServer((request, response) => {
        requests[service] += 1;
        hostile.urls.push(request.url ?? '');
        hostile.received.push({
          service,
          path: new URL(request.url ?? '/', 'http://hostile').pathname,
          at: testNow(),
        });
        void answer(service, upstream, secret, hostile.switches, request, response).catch((error: unknown) =>
          response.destroy(error as Error),
        );
      });
      await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
      return server;
    }),
  );
  const url = (server: Server): string => `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return Object.assign(hostile, {
    giftcardUrl: url(servers[0]!),
    dpUrl: url(servers[1]!),
    close: async () => {
      for (const server of servers) server.closeAllConnections();
      await Promise.all(servers.map((server) => new Promise((closed) => server.close(closed))));
    },
  });
}

/** Switch sets whose foreign cards have been served (on the first card page of the first walk). */
const foreignServed = new WeakSet<Switches>();

/** Switch sets whose one 429 (rateLimitOnce) has been answered. */
const limited = new WeakSet<Switches>();

async function answer(
  service: 'giftcard' | 'dp',
  upstream: string,
  secret: string,
  switches: Switches,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://hostile');
  const path = url.pathname;
  const cursor = url.searchParams.get('nextCursor');
  if (service === 'dp' && switches.refuseDp) {
    response
      .writeHead(401, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'unauthorized', errCode: 'UNAUTHORIZED' }));
    return;
  }
  if (switches.rateLimitOnce?.path === path && !limited.has(switches)) {
    limited.add(switches);
    response
      .writeHead(429, { 'content-type': 'application/json', 'retry-after': String(switches.rateLimitOnce.seconds) })
      .end(JSON.stringify({ success: false, errCode: 'RATE_LIMITED', message: 'slow down' }));
    return;
  }
  if (service === 'giftcard' && switches.giftcardDelayMs)
    await new Promise((waited) => setTimeout(waited, switches.giftcardDelayMs));
  if (switches.htmlRefusal) {
    response
      .writeHead(401, { 'content-type': 'text/html' })
      .end('<html><body><h1>401 Authorization Required</h1></body></html>');
    return;
  }
  if (service === 'giftcard' && switches.secretInCursor === path && cursor !== null) {
    if (cursor.includes(secret) || cursor.includes('[redacted]')) {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ success: false, errCode: 'BAD_REQUEST', message: `bad cursor ${cursor}` }));
      return;
    }
  }
  if (
    service === 'giftcard' &&
    switches.cardNotFoundById !== undefined &&
    [switches.cardNotFoundById].flat().some((id) => path === `/v1/giftCards/${id}`)
  ) {
    response
      .writeHead(404, { 'content-type': 'application/json' })
      .end(JSON.stringify({ success: false, errCode: 'RECORD_NOT_FOUND', message: 'gift card not found' }));
    return;
  }
  const isCouponList = service === 'giftcard' && path === '/v1/coupons';
  if (isCouponList && switches.retryAfterSeconds !== undefined) {
    response
      .writeHead(429, { 'content-type': 'application/json', 'retry-after': String(switches.retryAfterSeconds) })
      .end(JSON.stringify({ success: false, errCode: 'RATE_LIMITED', message: 'slow down' }));
    return;
  }
  // Forward what the tool asked for (a fresh cursor of ours stands for the newest page).
  const forwarded = new URL(request.url ?? '/', upstream);
  if ((switches.endlessPages || switches.emptyEndless) && isCouponList) forwarded.searchParams.delete('nextCursor');
  const headers = { ...(request.headers as Record<string, string>) };
  if (
    service === 'giftcard' &&
    switches.giftcardSecretAs !== undefined &&
    headers['x-client-secret'] === switches.giftcardSecretAs
  )
    headers['x-client-secret'] = secret;
  const upstreamAnswer = await fetch(forwarded, { headers });
  let text = await upstreamAnswer.text();
  const status = upstreamAnswer.status;
  if (status === 200) {
    const body = JSON.parse(text) as Json;
    mutate(service, path, body, secret, switches);
    text = JSON.stringify(body);
    const lastLedgerPage =
      service === 'giftcard' &&
      path === '/v1/giftCards/transactions' &&
      (body['pagination'] as Json | undefined)?.['hasMore'] === false &&
      (body['data'] as unknown[]).length < 100;
    // On the last page, which has room for one more record.
    if (lastLedgerPage && switches.deepRecord !== undefined)
      text = text.replace(
        '"data":[',
        `"data":[{"transactionId":"deep-1","extra":${'{"d":'.repeat(switches.deepRecord)}1${'}'.repeat(switches.deepRecord)}},`,
      );
    if (service === 'giftcard' && path === '/v1/giftCards/transactions' && cursor === null) {
      if (switches.amountLiteral !== undefined)
        text = text.replace(/"amount":[-0-9.eE+]+/, `"amount":${switches.amountLiteral}`);
      if (switches.protoField) text = text.replace('"data":[{', '"data":[{"__proto__":{"polluted":true},');
    }
  }
  if (isCouponList && switches.hugeBodyBytes !== undefined) {
    // A real page padded with whitespace: valid JSON, only far too large.
    response.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, ' ');
    for (let sent = 0; sent < switches.hugeBodyBytes; sent += chunk.length) {
      if (!response.write(chunk)) await new Promise((drained) => response.once('drain', drained));
      if (response.destroyed) return;
    }
    response.end(text);
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

/** Applies the switches that change parsed bodies. */
function mutate(service: 'giftcard' | 'dp', path: string, body: Json, secret: string, switches: Switches): void {
  const records = (
    service === 'giftcard'
      ? Array.isArray(body['data'])
        ? body['data']
        : [body['data']]
      : Array.isArray(body['orders'])
        ? body['orders']
        : Array.isArray(body['products'])
          ? body['products']
          : [body]
  ) as Json[];
  if (switches.echoSecrets) {
    for (const record of records) {
      if (!record || typeof record !== 'object') continue;
      record['note'] = `echo ${secret} echo`;
      // A field the tool reads and keeps in a column of its own, not only in the raw record.
      if (typeof record['referenceId'] === 'string') record['referenceId'] = `${record['referenceId']} ${secret}`;
    }
  }
  if (service === 'giftcard') {
    const pagination = body['pagination'] as Json | undefined;
    if (switches.secretInCursor === path && pagination?.['nextCursor'])
      pagination['nextCursor'] = `${String(pagination['nextCursor'])}.${secret}`;
    if (switches.emptyEndless && path === '/v1/coupons' && pagination) {
      body['data'] = [];
      pagination['hasMore'] = true;
      pagination['nextCursor'] = `empty-${Math.random().toString(36).slice(2)}`;
    }
    if (switches.endlessPages && path === '/v1/coupons' && pagination) {
      pagination['hasMore'] = true;
      pagination['nextCursor'] = `fresh-${Math.random().toString(36).slice(2)}`;
    }
    if (
      switches.voucherFieldOnCards &&
      (path === '/v1/giftCards' || path.startsWith('/v1/giftCards/')) &&
      !path.includes('transactions')
    ) {
      for (const card of records)
        if (card && 'giftCardId' in card)
          Object.assign(card, {
            voucher_code: switches.voucherFieldOnCards.code,
            pin: switches.voucherFieldOnCards.pin,
          });
    }
    if (switches.couponExpiresAt && path === '/v1/coupons' && records[0])
      records[0]['expiresAt'] = switches.couponExpiresAt;
    if (
      switches.foreignCards &&
      path === '/v1/giftCards' &&
      !pagination?.['previousCursor'] &&
      records[0] &&
      !foreignServed.has(switches)
    ) {
      foreignServed.add(switches);
      const foreignMerchant = '00000000-0000-4000-8000-00000000f0e1';
      for (let i = 0; i < switches.foreignCards; i += 1)
        records.push({
          ...records[0],
          giftCardId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          merchantId: foreignMerchant,
        });
    }
    if (switches.cardsInvalid && path === '/v1/giftCards')
      for (const [i, card] of records.entries()) card['giftCardId'] = `not-a-uuid-${i}`;
    if (switches.cardId && path === '/v1/giftCards' && records[0]) records[0]['giftCardId'] = switches.cardId;
    if (switches.cardId && path === `/v1/giftCards/${encodeURIComponent(switches.cardId)}`)
      body['data'] = { ...(body['data'] as Json), giftCardId: switches.cardId };
    if (switches.referenceId !== undefined && path === '/v1/giftCards/transactions' && records[0])
      records[0]['referenceId'] = switches.referenceId;
    if (switches.oversizedPage && path === '/v1/giftCards/transactions' && records.length === 100)
      records.push({ ...records[0] });
    return;
  }
  if (path.includes('/orders/') && Array.isArray(body['orders'])) {
    const orders = body['orders'] as Json[];
    const vouchers = orders.flatMap((order) =>
      ((order['lineItems'] as Json[] | undefined) ?? []).flatMap(
        (line) => (line['vouchers'] as Json[] | undefined) ?? [],
      ),
    );
    if (switches.voucherCodeNotString && vouchers.length >= 2) {
      vouchers[0]!['voucherCode'] = switches.voucherCodeNotString.number;
      vouchers[1]!['voucherCode'] = { code: switches.voucherCodeNotString.object };
    }
  }
}
