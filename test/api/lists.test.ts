import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { collect, startServices, type TestServices } from '../support/simulator.js';

const PAGE_SIZES = [1, 15, 100] as const;

/** Strips what a validated record adds nothing to: compares as JSON values. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe.each([
  { name: 'a clean service', faults: undefined },
  { name: '10 % injected faults of every kind', faults: { rate: 0.1, retryAfterSeconds: 0, slowMs: 5 } },
])('walking every list against $name', ({ faults }) => {
  let services: TestServices;

  beforeAll(async () => {
    services = await startServices({ seed: 11, plant: true, ...(faults ? { faults } : {}) });
  });
  afterAll(() => services.close());

  it.each(PAGE_SIZES)('returns exactly the simulator’s ledger entries at page size %i', async (limit) => {
    const truth = services.sim.truth();
    const entries = await collect(services.giftcard.listTransactions({ limit }));
    expect(plain(entries)).toEqual(plain(truth.transactions));
  });

  it.each(PAGE_SIZES)('returns exactly the simulator’s gift cards at page size %i', async (limit) => {
    const truth = services.sim.truth();
    const cards = await collect(services.giftcard.listGiftCards({ limit }));
    expect(plain(cards.map((c) => c.full))).toEqual(plain(truth.giftCards));
  });

  it.each(PAGE_SIZES)(
    'returns every coupon at page size %i, the malformed one rejected with its raw JSON',
    async (limit) => {
      const truth = services.sim.truth();
      const accepted: unknown[] = [];
      const rejected: unknown[] = [];
      for await (const page of services.giftcard.listCoupons({ limit })) {
        accepted.push(...page.records);
        rejected.push(...page.rejected.map((r) => r.raw));
      }
      const malformed = truth.coupons.filter((c) => typeof c.redemptionCount !== 'number');
      expect(malformed).toHaveLength(1);
      expect(plain(rejected)).toEqual(plain(malformed));
      expect(plain(accepted)).toEqual(plain(truth.coupons.filter((c) => typeof c.redemptionCount === 'number')));
    },
  );

  it.each(PAGE_SIZES)('returns every DP order and product at page size %i', async (limit) => {
    const truth = services.sim.truth();
    const orders: unknown[] = [];
    for await (const page of services.dp.listOrders({ limit }))
      orders.push(...page.records, ...page.rejected.map((r) => r.raw));
    const byId = (list: unknown[]) =>
      [...(plain(list) as Array<{ orderID: string }>)].sort((a, b) => a.orderID.localeCompare(b.orderID));
    expect(byId(orders)).toEqual(byId(truth.orders));
    expect(plain(await collect(services.dp.listProducts({ limit })))).toEqual(plain(truth.products));
  });

  it('reads the wallets, and the selected wallet alone with selectedWallet=true', async () => {
    const truth = services.sim.truth();
    const all = await services.dp.getWallets();
    expect(plain(all.wallets)).toEqual(plain(truth.wallets));
    const selected = await services.dp.getWallets({ selectedOnly: true });
    expect(selected.wallets).toHaveLength(1);
    expect(selected.wallets[0]?.currency).toBe('USD');
  });

  it('never asks for more than 100 records a page', () => {
    expect(services.sim.maxLimitRequested).toBeLessThanOrEqual(100);
    expect(services.sim.requests.every((r) => !/limit=(\d{4,}|[2-9]\d\d|1\d[1-9]|10[1-9])/.test(r.query))).toBe(true);
  });

  it.runIf(faults !== undefined)('met every kind of fault on the way, and retried through them', () => {
    const kinds = new Set(services.sim.requests.map((r) => r.fault).filter(Boolean));
    expect([...kinds].sort()).toEqual(['error500', 'html503', 'reset', 'slow', 'throttle', 'truncate']);
    const failed = services.sim.requests.filter((r) => r.fault !== undefined && r.fault !== 'slow').length;
    expect(services.giftcard.http.stats.retries + services.dp.http.stats.retries).toBe(failed);
  });

  it('sends only GETs', () => {
    expect(services.sim.writeAttempts).toBe(0);
    expect(services.sim.requests.every((r) => r.method === 'GET')).toBe(true);
  });
});

describe('a service whose card list gives only {giftCardId, status}', () => {
  let services: TestServices;
  beforeAll(async () => {
    services = await startServices({ seed: 5, cardListShape: 'minimal' });
  });
  afterAll(() => services.close());

  it('lists the cards without a full record, and each reads in full by ID', async () => {
    const truth = services.sim.truth();
    const listed = await collect(services.giftcard.listGiftCards({ limit: 100 }));
    expect(listed.map((c) => c.giftCardId)).toEqual(truth.giftCards.map((c) => c.giftCardId));
    expect(listed.every((c) => c.full === undefined && c.status !== undefined)).toBe(true);
    const full = await Promise.all(listed.map((c) => services.giftcard.getGiftCard(c.giftCardId)));
    expect(plain(full)).toEqual(plain(truth.giftCards));
  });
});

describe('live activity on a timer', () => {
  it('keeps adding legal records while serving', async () => {
    const services = await startServices({ seed: 12, live: { intervalMs: 2 } });
    const records = () => services.sim.truth().transactions.length + services.sim.truth().orders.length;
    const before = records();
    // Until the timer has added a record (the deadline only bounds a simulator that never does).
    await vi.waitFor(() => expect(records()).toBeGreaterThan(before), { timeout: 10_000, interval: 10 });
    await services.close();
  });
});

describe('live activity between two walks', () => {
  let services: TestServices;
  beforeAll(async () => {
    services = await startServices({ seed: 9 });
  });
  afterAll(() => services.close());

  it('shows the new entries at the head of the ledger, newest first', async () => {
    const before = await collect(services.giftcard.listTransactions());
    const done = services.sim.applyActivity(30);
    expect(done.length).toBeGreaterThan(0);
    const after = await collect(services.giftcard.listTransactions());
    const truth = services.sim.truth();
    expect(plain(after)).toEqual(plain(truth.transactions));
    expect(plain(after.slice(after.length - before.length))).toEqual(plain(before));
  });
});
