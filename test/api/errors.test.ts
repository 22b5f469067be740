import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DpClient } from '../../src/api/dp-client.js';
import { GiftCardClient } from '../../src/api/giftcard-client.js';
import type { HttpEvent } from '../../src/api/http-client.js';
import { ApiError, AuthError, CursorRejectedError, NotFoundError, ServiceUnavailableError } from '../../src/errors.js';
import {
  collect,
  dpConfig,
  FAST_RETRY,
  giftcardConfig,
  startServices,
  type TestServices,
} from '../support/simulator.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

let services: TestServices;
beforeAll(async () => {
  services = await startServices({ seed: 3 });
});
afterAll(() => services.close());
afterEach(() => {
  services.sim.faults.queue.length = 0;
  services.sim.faults.options = {};
});

/** Requests the simulator received on paths starting with `prefix`. */
const received = (prefix: string) => services.sim.requests.filter((r) => r.path.startsWith(prefix)).length;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('authentication errors, never retried', () => {
  it('maps 401 API_KEY_INVALID to an auth error naming the secret variable', async () => {
    const client = new GiftCardClient(
      giftcardConfig(services.sim, { ...services.sim.credentials.giftcard, clientSecret: 'rotated-away' }),
      { retry: FAST_RETRY },
    );
    const before = received('/v1/giftCards/');
    const error = await rejection(client.getGiftCard(MISSING));
    await client.close();
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).errCode).toBe('API_KEY_INVALID');
    expect((error as AuthError).message).toBe(
      'the gift card service refused the client secret (API_KEY_INVALID): check GIFTCARD_CLIENT_SECRET; it may have been rotated (or GIFTCARD_CLIENT_ID is unknown to the service)',
    );
    expect(received('/v1/giftCards/') - before).toBe(1);
  });

  it('maps 401 UNAUTHORIZED (no credentials) to an auth error', async () => {
    const client = new GiftCardClient(giftcardConfig(services.sim, { clientId: '', clientSecret: '' }), {
      retry: FAST_RETRY,
    });
    const error = await rejection(client.getGiftCard(MISSING));
    await client.close();
    expect(error).toBeInstanceOf(AuthError);
    expect([(error as AuthError).status, (error as AuthError).errCode]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('maps 403 USER_INACTIVE to an auth error about the deactivated client', async () => {
    const client = new GiftCardClient(giftcardConfig(services.sim, services.sim.credentials.inactive), {
      retry: FAST_RETRY,
    });
    const error = await rejection(collect(client.listTransactions()));
    await client.close();
    expect(error).toBeInstanceOf(AuthError);
    expect([(error as AuthError).status, (error as AuthError).errCode]).toEqual([403, 'USER_INACTIVE']);
    expect((error as AuthError).message).toContain('GIFTCARD_CLIENT_ID');
  });

  it('answers 403 FORBIDDEN to an administrator endpoint', async () => {
    const { clientId, clientSecret } = services.sim.credentials.giftcard;
    const response = await request(`${services.sim.giftcardUrl}/v1/programs`, {
      headers: { 'X-Client-Id': clientId, 'X-Client-Secret': clientSecret },
    });
    expect(response.statusCode).toBe(403);
    expect(await response.body.json()).toMatchObject({ success: false, errCode: 'FORBIDDEN' });
  });

  it('maps the DP service’s UNAUTHORIZED and FORBIDDEN to auth errors', async () => {
    const wrong = new DpClient(dpConfig(services.sim, { ...services.sim.credentials.dp, clientSecret: 'nope' }), {
      retry: FAST_RETRY,
    });
    const unauthorized = await rejection(wrong.getWallets());
    const otherDp = new DpClient(dpConfig(services.sim, services.sim.credentials.otherDp), {
      retry: FAST_RETRY,
      dpId: services.sim.credentials.dp.clientId,
    });
    const forbidden = await rejection(collect(otherDp.listOrders()));
    await Promise.all([wrong.close(), otherDp.close()]);
    expect(unauthorized).toBeInstanceOf(AuthError);
    expect((unauthorized as AuthError).errCode).toBe('UNAUTHORIZED');
    expect((unauthorized as AuthError).message).toContain('DP_CLIENT_SECRET');
    expect(forbidden).toBeInstanceOf(AuthError);
    expect((forbidden as AuthError).errCode).toBe('FORBIDDEN');
  });

  it('shows another merchant only its own records, and ours as not found', async () => {
    const other = new GiftCardClient(giftcardConfig(services.sim, services.sim.credentials.otherMerchant), {
      retry: FAST_RETRY,
    });
    const theirs = await collect(other.listGiftCards());
    const ours = services.sim.truth().giftCards;
    const error = await rejection(other.getGiftCard(ours[0]?.giftCardId ?? MISSING));
    await other.close();
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.some((c) => ours.some((o) => o.giftCardId === c.giftCardId))).toBe(false);
    expect(error).toBeInstanceOf(NotFoundError);
  });
});

describe('not found and bad requests', () => {
  it('gives each resource its own 404 code', async () => {
    const card = await rejection(services.giftcard.getGiftCard(MISSING));
    const entry = await rejection(services.giftcard.getTransaction(MISSING));
    const coupon = await rejection(services.giftcard.getCoupon(MISSING));
    const order = await rejection(services.dp.getOrder('ORDIN20260101NOSUCH'));
    expect([card, entry, coupon, order].map((e) => [e instanceof NotFoundError, (e as NotFoundError).errCode])).toEqual(
      [
        [true, 'RECORD_NOT_FOUND'],
        [true, 'RECORD_NOT_FOUND'],
        [true, 'INSTRUMENT_NOT_FOUND'],
        [true, 'RECORD_NOT_FOUND'],
      ],
    );
  });

  it('refuses an identifier that is not a UUID with 400 BAD_REQUEST, not retried', async () => {
    const before = received('/v1/giftCards/');
    const error = await rejection(services.giftcard.getGiftCard('not-a-uuid'));
    expect(error).toBeInstanceOf(ApiError);
    expect([(error as ApiError).status, (error as ApiError).errCode]).toEqual([400, 'BAD_REQUEST']);
    expect(received('/v1/giftCards/') - before).toBe(1);
  });

  it('refuses a made-up cursor and a damaged one with 400, as a rejected cursor', async () => {
    const madeUp = await rejection(collect(services.giftcard.listTransactions({ startCursor: 'page-2' })));
    const first = await services.giftcard.listTransactions({ limit: 5 }).next();
    const real = first.value?.nextCursor ?? '';
    const damaged = `${real.slice(0, -2)}${real.endsWith('A') ? 'B' : 'A'}x`;
    const broken = await rejection(collect(services.giftcard.listTransactions({ startCursor: damaged })));
    const dp = await rejection(collect(services.dp.listOrders({ startCursor: 'nope' })));
    for (const error of [madeUp, broken, dp]) {
      expect(error).toBeInstanceOf(CursorRejectedError);
      expect((error as CursorRejectedError).status).toBe(400);
    }
  });

  it('resumes a walk from a checkpointed cursor with exactly the rest of the list', async () => {
    const truth = services.sim.truth().transactions.map((t) => t.transactionId);
    const pages = services.giftcard.listTransactions({ limit: 7 });
    const first = (await pages.next()).value;
    await pages.return(undefined);
    const rest = await collect(services.giftcard.listTransactions({ limit: 7, startCursor: first?.nextCursor ?? '' }));
    expect([...(first?.records ?? []), ...rest].map((t) => t.transactionId)).toEqual(truth);
  });

  it('answers the documented 400 for a limit that is not an integer, and serves at most 100', async () => {
    const { clientId, clientSecret } = services.sim.credentials.giftcard;
    const headers = { 'X-Client-Id': clientId, 'X-Client-Secret': clientSecret };
    const bad = await request(`${services.sim.giftcardUrl}/v1/giftCards/transactions?limit=ten`, { headers });
    expect([bad.statusCode, ((await bad.body.json()) as { errCode: string }).errCode]).toEqual([400, 'BAD_REQUEST']);
    const all = await request(`${services.sim.giftcardUrl}/v1/giftCards/transactions?limit=-1`, { headers });
    const body = (await all.body.json()) as { data: unknown[]; pagination: { hasMore: boolean } };
    expect(body.data).toHaveLength(services.sim.truth().transactions.length);
    expect(body.pagination.hasMore).toBe(false);
    const standard = (await (
      await request(`${services.sim.giftcardUrl}/v1/giftCards/transactions`, { headers })
    ).body.json()) as { data: unknown[] };
    expect(standard.data).toHaveLength(15);
  });
});

describe('transient failures are retried', () => {
  it.each(['error500', 'html503', 'reset', 'truncate'] as const)(
    'recovers from one %s on the next attempt',
    async (kind) => {
      const client = new GiftCardClient(giftcardConfig(services.sim), { retry: FAST_RETRY });
      services.sim.faults.inject(kind, 1, { service: 'giftcard' });
      const truth = services.sim.truth().giftCards[0];
      const card = await client.getGiftCard(truth?.giftCardId ?? MISSING);
      await client.close();
      expect(card.giftCardId).toBe(truth?.giftCardId);
      expect(client.http.stats).toEqual({ requests: 2, retries: 1 });
    },
  );

  it('waits the seconds a 429 names in Retry-After', async () => {
    const events: HttpEvent[] = [];
    const client = new GiftCardClient(giftcardConfig(services.sim), {
      retry: FAST_RETRY,
      onEvent: (e) => events.push(e),
    });
    services.sim.faults.options = { retryAfterSeconds: 1 };
    services.sim.faults.inject('throttle', 1, { service: 'giftcard' });
    await client.getGiftCard(services.sim.truth().giftCards[0]?.giftCardId ?? MISSING);
    await client.close();
    const retry = events.find((e) => e.type === 'retry');
    expect(retry).toMatchObject({ type: 'retry', delayMs: 1000, cause: 'HTTP 429' });
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    const events: HttpEvent[] = [];
    const client = new GiftCardClient(giftcardConfig(services.sim), {
      retry: FAST_RETRY,
      onEvent: (e) => events.push(e),
    });
    services.sim.faults.options = { retryAfterSeconds: 2, retryAfterAsDate: true };
    services.sim.faults.inject('throttle', 1, { service: 'giftcard' });
    await client.getGiftCard(services.sim.truth().giftCards[0]?.giftCardId ?? MISSING);
    await client.close();
    const retry = events.find((e) => e.type === 'retry');
    // An HTTP date has one-second resolution: the wait is between 1 and 2 seconds.
    expect(retry?.type === 'retry' && retry.delayMs > 0 && retry.delayMs <= 2000).toBe(true);
  });

  it('fails at once, naming the wait, when Retry-After asks for longer than a run waits (5 minutes)', async () => {
    const client = new GiftCardClient(giftcardConfig(services.sim), { retry: FAST_RETRY });
    services.sim.faults.options = { retryAfterSeconds: 3600 };
    services.sim.faults.inject('throttle', 1, { service: 'giftcard' });
    const asked = services.sim.requests.length;
    const error = await rejection(client.getGiftCard(services.sim.truth().giftCards[0]?.giftCardId ?? MISSING));
    await client.close();
    // At once: the one 429 answered, no retry, no wait.
    expect(services.sim.requests.length - asked).toBe(1);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toMatch(
      /^the gift card service asks to be called again in 3600 s \(Retry-After on HTTP 429, GET \/v1\/giftCards\/[^)]+\), longer than the 300 s a run waits: run again later$/,
    );
  });

  it('refuses a response body larger than its cap as a fault, then fails the read with one sentence; memory stays bounded', async () => {
    const client = new GiftCardClient(giftcardConfig(services.sim), {
      retry: { ...FAST_RETRY, maxRetries: 1 },
      maxBodyBytes: 1_000,
    });
    const error = await rejection(collect(client.listGiftCards()));
    await client.close();
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toMatch(
      /^the gift card service is unavailable at [^:]+:\d+: a response body larger than 1,000 bytes \(GET \/v1\/giftCards\?limit=100, 2 attempts\); if the service.s answers are really this large, raise LEDGER_RECON_MAX_BODY_MB$/,
    );
  });

  it('retries a response slower than the request time-out', async () => {
    const client = new GiftCardClient(giftcardConfig(services.sim), { retry: FAST_RETRY, requestTimeoutMs: 100 });
    services.sim.faults.options = { slowMs: 400 };
    services.sim.faults.inject('slow', 1, { service: 'giftcard' });
    const id = services.sim.truth().giftCards[0]?.giftCardId ?? MISSING;
    const card = await client.getGiftCard(id);
    await client.close();
    expect(card.giftCardId).toBe(id);
    expect(client.http.stats).toEqual({ requests: 2, retries: 1 });
  });

  it('rides out a service that answers 429 above a number of requests in flight', async () => {
    const client = new GiftCardClient(giftcardConfig(services.sim), {
      retry: { baseDelayMs: 10, maxDelayMs: 100, maxRetries: 10 },
      maxConnections: 6,
    });
    services.sim.faults.options = { maxInFlight: 2, retryAfterSeconds: 0, slowMs: 20, rate: 0.5, kinds: ['slow'] };
    const ids = services.sim
      .truth()
      .giftCards.slice(0, 12)
      .map((c) => c.giftCardId);
    const start = services.sim.requests.length;
    const cards = await Promise.all(ids.map((id) => client.getGiftCard(id)));
    await client.close();
    expect(cards.map((c) => c.giftCardId)).toEqual(ids);
    expect(services.sim.requests.slice(start).some((r) => r.status === 429)).toBe(true);
  });

  it('gives up after the configured bound with the service named', async () => {
    const client = new GiftCardClient(giftcardConfig(services.sim), { retry: { ...FAST_RETRY, maxRetries: 2 } });
    services.sim.faults.inject('error500', 3, { service: 'giftcard' });
    const error = await rejection(client.getGiftCard(MISSING));
    await client.close();
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).message).toBe(
      `the gift card service is unavailable at ${new URL(services.sim.giftcardUrl).host}: HTTP 500 (GET /v1/giftCards/${MISSING}, 3 attempts)`,
    );
  });

  it('holds every request to a service back while a 429 is in force', async () => {
    const client = new GiftCardClient(giftcardConfig(services.sim), { retry: FAST_RETRY, maxConnections: 2 });
    const ids = services.sim
      .truth()
      .giftCards.slice(0, 6)
      .map((c) => c.giftCardId);
    services.sim.faults.options = { retryAfterSeconds: 1 };
    services.sim.faults.inject('throttle', 1, { service: 'giftcard', pathPrefix: '/v1/giftCards/' });
    const start = services.sim.requests.length;
    await Promise.all(ids.map((id) => client.getGiftCard(id)));
    await client.close();
    const seen = services.sim.requests.slice(start);
    const throttled = seen.find((r) => r.fault === 'throttle');
    expect(throttled).toBeDefined();
    const t = throttled?.startedAt ?? 0;
    // Apart from the one request already in flight beside it, nothing reached the service
    // during the second it asked for.
    const during = seen.filter((r) => r !== throttled && r.startedAt > t + 50 && r.startedAt < t + 950);
    expect(during).toEqual([]);
    expect(seen.filter((r) => r.fault === undefined)).toHaveLength(6);
  });
});
