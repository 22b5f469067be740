import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/db/mirror.js';
import type { SimulatorOptions } from '../../src/sim/simulator.js';
import { InterruptedError } from '../../src/errors.js';
import type { ResourceStats } from '../../src/sync/context.js';
import { runSync } from '../../src/sync/run-sync.js';
import { centsTotals, pictureOf, truthPicture } from '../support/mirror.js';
import { startServices, validCouponAndOrder, type TestServices } from '../support/simulator.js';
import { everyTextInMirror, mirrorAt, ON_POSTGRES, openMirrorAt } from '../support/test-db.js';
import { testNow } from '../support/test-clock.js';

// Reads of the mirror under test, on whichever database holds it.
const rows = (mirror: Mirror, sql: string, ...params: unknown[]) =>
  mirror.connection.read<Record<string, unknown>>(sql).all(...params);
const first = async (mirror: Mirror, sql: string, ...params: unknown[]) => (await rows(mirror, sql, ...params))[0];
const column = (mirror: Mirror, sql: string, ...params: unknown[]) =>
  mirror.connection.pluck<unknown>(sql).all(...params);
const value = (mirror: Mirror, sql: string, ...params: unknown[]) =>
  mirror.connection.pluck<unknown>(sql).get(...params);
const change = (mirror: Mirror, sql: string, ...params: unknown[]) => mirror.connection.write(sql).run(...params);

/**
 * The rows of `table` the sync's connection rewrites from now on (by `id`): on SQLite, recorded
 * by temporary triggers on that connection; on PostgreSQL, the rows whose version (xmin) moved.
 */
async function rewritten(
  mirror: Mirror,
  tables: ReadonlyArray<readonly [table: string, id: string]>,
): Promise<() => Promise<Array<{ tbl: string; id: string }>>> {
  if (!ON_POSTGRES) {
    await mirror.connection.exec(
      'CREATE TEMP TABLE written (tbl TEXT, id TEXT);' +
        tables
          .map(
            ([table, id]) =>
              `CREATE TEMP TRIGGER ${table}_written AFTER UPDATE ON main.${table} BEGIN INSERT INTO written VALUES ('${table}', new.${id}); END;`,
          )
          .join(''),
    );
    return async () => (await rows(mirror, 'SELECT tbl, id FROM written')) as Array<{ tbl: string; id: string }>;
  }
  const versions = async () => {
    const all = new Map<string, string>();
    for (const [table, id] of tables)
      for (const row of await rows(mirror, `SELECT ${id} AS id, xmin::text AS version FROM ${table}`))
        all.set(`${table} ${String(row['id'])}`, String(row['version']));
    return all;
  };
  const before = await versions();
  return async () =>
    [...(await versions())]
      .filter(([key, version]) => before.has(key) && before.get(key) !== version)
      .map(([key]) => ({ tbl: key.split(' ')[0]!, id: key.split(' ')[1]! }));
}

let dir: string;
const opened: Array<{ services: TestServices; mirror: Mirror }> = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-sync-'));
});
afterEach(async () => {
  for (const { services, mirror } of opened.splice(0)) {
    await mirror.close();
    await services.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `work` while the ledger list, from its `page`-th request on, answers 500 more often
 * than the client retries; the faults are cleared afterwards.
 */
async function failingLedgerFromPage(
  services: TestServices,
  page: number,
  work: () => Promise<unknown>,
): Promise<void> {
  let ledgerRequests = 0;
  const onSend = ({ request }: { request: { path: string } }): void => {
    if (!request.path.startsWith('/v1/giftCards/transactions') || (ledgerRequests += 1) !== page) return;
    services.sim.faults.inject('error500', 50, { pathPrefix: '/v1/giftCards/transactions' });
  };
  subscribe('undici:client:sendHeaders', onSend as (message: unknown) => void);
  try {
    await work();
  } finally {
    unsubscribe('undici:client:sendHeaders', onSend as (message: unknown) => void);
    services.sim.faults.queue.splice(0);
  }
}

async function setup(options: SimulatorOptions, name = 'ledger.db') {
  const services = await startServices({ size: 'small', ...options });
  const mirror = await openMirrorAt(mirrorAt(dir, name.replace(/\.db$/, '')));
  opened.push({ services, mirror });
  const sync = (full = false) =>
    runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp, full });
  return { services, mirror, sync };
}

describe('a full sync', () => {
  it('leaves a mirror equal to the simulator’s ground truth, malformed records in quarantine', async () => {
    const { services, mirror, sync } = await setup({ seed: 31, plant: true });
    const indexes = () =>
      column(
        mirror,
        ON_POSTGRES
          ? 'SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname'
          : "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name",
      );
    const asMigrated = await indexes();
    const summary = await sync();
    expect(summary).toMatchObject({ mode: 'full', completed: true, quarantined: 2 });
    // The bulk load dropped the secondary indexes and built every one of them back.
    expect(await indexes()).toEqual(asMigrated);
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
    const quarantined = await rows(mirror, 'SELECT resource, reason FROM quarantine ORDER BY resource');
    expect(quarantined).toEqual([
      { resource: 'coupons', reason: 'redemptionCount: Invalid input: expected number, received string' },
      { resource: 'dpOrders', reason: 'totalAmount: Invalid input: expected number, received string' },
    ]);
    expect(await mirror.integrity()).toBe('ok');
  });

  it('records the card an orphaned entry points at as missing', async () => {
    const { services, mirror, sync } = await setup({ seed: 31, plant: true });
    await sync();
    const orphan = services.sim.manifest.breaks.find((b) => b.code === 'GC_ORPHAN_ENTRY');
    const missing = await column(
      mirror,
      'SELECT m.gift_card_id FROM missing_gift_cards m JOIN gift_card_transactions t USING (gift_card_id) WHERE t.transaction_id = ?',
      orphan?.entityId,
    );
    expect(missing).toHaveLength(1);
  });

  it('stores voucher codes only as SHA-256 hashes, and no PIN anywhere', async () => {
    const { services, mirror, sync } = await setup({ seed: 32 });
    await sync();
    const voucher = services.sim.truth().orders.flatMap((o) => o.lineItems.flatMap((l) => l.vouchers))[0];
    expect(voucher).toBeDefined();
    const dump = (await column(mirror, 'SELECT raw_json FROM dp_orders')).join('');
    expect(dump).not.toContain(voucher?.voucherCode);
    expect(dump).not.toContain('voucherPin');
    expect(dump).not.toContain(`"${voucher?.voucherPin}"`);
    expect(await value(mirror, 'SELECT COUNT(*) FROM dp_vouchers WHERE length(code_sha256) = 64')).toBeGreaterThan(0);
  });

  it("never stores a voucher code of another type or a PIN by another name, not even in a quarantined record: every byte of the mirror's files is scanned", async () => {
    const { services, mirror, sync } = await setup({ seed: 37, size: 'tiny' }, 'vouchers.db');
    const [first, second] = services.sim.truth().orders.filter((o) => o.lineItems.some((l) => l.vouchers.length > 0));
    services.sim.mutate.editOrder(first!.orderID, (order) => {
      const voucher = order.lineItems.find((l) => l.vouchers.length > 0)!.vouchers[0]! as unknown as Record<
        string,
        unknown
      >;
      voucher['voucherCode'] = 4111111111111111;
    });
    services.sim.mutate.editOrder(second!.orderID, (order) => {
      const voucher = order.lineItems.find((l) => l.vouchers.length > 0)!.vouchers[0]! as unknown as Record<
        string,
        unknown
      >;
      voucher['voucherCode'] = { code: 'OBJECT-CODE-7741' };
      voucher['pin'] = 'PIN-99871';
      voucher['VOUCHER_CODE'] = 'SHOUTED-CODE-5520';
    });
    const summary = await sync();
    expect(summary.quarantined).toBeGreaterThanOrEqual(2);
    // Every byte of the mirror's files, its WAL checkpointed into them first; on PostgreSQL every value of its schema.
    if (!ON_POSTGRES) await mirror.connection.exec('PRAGMA wal_checkpoint(PASSIVE)');
    const bytes = ON_POSTGRES
      ? await everyTextInMirror(mirrorAt(dir, 'vouchers'))
      : readdirSync(dir)
          .filter((name) => name.startsWith('vouchers.db'))
          .map((name) => readFileSync(join(dir, name)).toString('latin1'))
          .join('');
    for (const secret of ['4111111111111111', 'OBJECT-CODE-7741', 'PIN-99871', 'SHOUTED-CODE-5520'])
      expect(bytes.includes(secret), secret).toBe(false);
    const raw = (await column(mirror, "SELECT raw_json FROM quarantine WHERE resource = 'dpOrders'")) as string[];
    expect(raw.some((json) => json.includes('voucherCodeSha256'))).toBe(true);
  });

  it('works the same when the card list gives only {giftCardId, status}', async () => {
    const { services, mirror, sync } = await setup({ seed: 33, cardListShape: 'minimal', plant: true });
    await sync();
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
  });

  it('gives the same mirror through 10 % injected faults of every kind', async () => {
    const clean = await setup({ seed: 34, plant: true, nowMs: Date.parse('2026-11-20T12:00:00Z') }, 'clean.db');
    const faulty = await setup(
      {
        seed: 34,
        plant: true,
        nowMs: Date.parse('2026-11-20T12:00:00Z'),
        faults: { rate: 0.1, retryAfterSeconds: 0, slowMs: 5 },
      },
      'faulty.db',
    );
    await clean.sync();
    const summary = await faulty.sync();
    expect(summary.retries).toBeGreaterThan(0);
    expect(await pictureOf(faulty.mirror)).toEqual(await pictureOf(clean.mirror));
    expect(await centsTotals(faulty.mirror)).toEqual(await centsTotals(clean.mirror));
  });
});

describe('a resumed first sync', () => {
  it('shows the settle pass moving while it re-reads every card: what it is doing, then cards read of how many', async () => {
    const services = await startServices({ seed: 33, size: 'small' });
    const mirror = await openMirrorAt(mirrorAt(dir, 'resumed'));
    opened.push({ services, mirror });
    // The first sync stops once the ledger is read, before its settle pass.
    const stop = new AbortController();
    const first = {
      update() {},
      done: (resource: string) =>
        resource === 'giftCardTransactions' && stop.abort(new InterruptedError('SIGINT', 'interrupted (SIGINT)')),
    };
    await expect(
      runSync({
        clock: { now: testNow },
        mirror,
        giftcard: services.giftcard,
        dp: services.dp,
        progress: first,
        signal: stop.signal,
      }),
    ).rejects.toThrow(InterruptedError);
    const seen: Array<{ records: number; expected: number | undefined; notes: string[] }> = [];
    const recorder = {
      update: (resource: string, stats: ResourceStats) =>
        void (
          resource === 'settle' &&
          seen.push({ records: stats.records, expected: stats.expected, notes: Object.keys(stats.notes) })
        ),
      done() {},
    };
    const summary = await runSync({
      clock: { now: testNow },
      mirror,
      giftcard: services.giftcard,
      dp: services.dp,
      progress: recorder,
    });
    expect(summary.completed).toBe(true);
    expect(seen[0]?.notes).toContain('comparing');
    const reading = seen.filter((s) => s.records > 0 && s.expected !== undefined && s.records < s.expected);
    expect(reading.length).toBeGreaterThan(10);
    expect(summary.resources.settle.records).toBe(seen.at(-1)?.expected ?? -1);
  });
});

describe('an incremental sync', () => {
  it('adds exactly the new and changed records after new activity', async () => {
    const { services, mirror, sync } = await setup({ seed: 35 });
    await sync();
    const before = services.sim.truth();
    services.sim.applyActivity(80);
    const after = services.sim.truth();
    const summary = await sync();
    expect(summary.mode).toBe('incremental');
    expect(await pictureOf(mirror)).toEqual(truthPicture(after));
    const newEntries = after.transactions.length - before.transactions.length;
    expect(summary.resources.giftCardTransactions.new + summary.resources.settle.new).toBe(newEntries);
    const newOrders = after.orders.length - before.orders.length;
    expect(summary.resources.dpOrders.new).toBe(newOrders);
    const changedOrders = after.orders.filter((o) =>
      before.orders.some((b) => b.orderID === o.orderID && b.status !== o.status),
    ).length;
    expect(summary.resources.dpOrders.changed).toBe(changedOrders);
    // The incremental walk read only the head of the ledger.
    expect(summary.resources.giftCardTransactions.pages).toBeLessThan(5);
  });

  it('reads on past one old entry among new ones: the incremental walk stops only at a page wholly before its boundary', async () => {
    const { services, mirror, sync } = await setup({ seed: 36, size: 'tiny' });
    await sync();
    const card = services.sim
      .truth()
      .giftCards.find((c) => c.status === 'ACTIVE' && c.merchantId === services.sim.truth().merchantId)!;
    const write = (atMs: number) =>
      services.sim.mutate.writeEntry(card.giftCardId, { type: 'REFUND', amountCents: 1, atMs });
    // Newest first, the list will show 99 new entries, then one stamped ten days ago at the end of
    // the first page, then 150 more new ones behind it.
    const now = testNow();
    const added = [
      ...Array.from({ length: 150 }, (_, i) => write(now + i)),
      write(now - 10 * 86_400_000),
      ...Array.from({ length: 99 }, (_, i) => write(now + 150 + i)),
    ];
    const summary = await sync();
    expect(summary.mode).toBe('incremental');
    const mirrored = new Set((await column(mirror, 'SELECT transaction_id FROM gift_card_transactions')) as string[]);
    expect(added.filter((id) => !mirrored.has(id))).toEqual([]);
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
  });

  it('keeps the whole pages it wrote, with their checkpoint, when the service fails mid-walk; a rerun resumes there', async () => {
    const { services, mirror, sync } = await setup({ seed: 38 });
    await failingLedgerFromPage(services, 3, () => expect(sync()).rejects.toThrow(/500/));
    const checkpoint = await first(
      mirror,
      "SELECT pages, records, CASE WHEN done THEN 1 ELSE 0 END AS done FROM sync_checkpoints WHERE resource = 'giftCardTransactions'",
    );
    expect(checkpoint).toEqual({ pages: 2, records: 200, done: 0 });
    expect(await value(mirror, 'SELECT COUNT(*) FROM gift_card_transactions')).toBe(200);
    const summary = await sync();
    expect(summary.resources.giftCardTransactions.notes).toMatchObject({ resumed: 1 });
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
  });

  it('resumes a resource whose checkpointed cursor the service refuses, from the newest page', async () => {
    const { services, mirror, sync } = await setup({ seed: 36 });
    await sync();
    await change(
      mirror,
      "UPDATE sync_checkpoints SET done = FALSE, cursor = 'stale-cursor' WHERE resource = 'coupons'",
    );
    const summary = await sync();
    expect(summary.resources.coupons.notes).toMatchObject({ resumed: 1, cursorRestarts: 1 });
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
  });

  it('on --full, keeps both versions of an entry that came back changed, and marks one that vanished', async () => {
    const { services, mirror, sync } = await setup({ seed: 37 });
    await sync();
    const [first, second] = services.sim.truth().transactions.slice(-2);
    services.sim.mutate.rewriteEntry(first?.transactionId ?? '', { amount: 999.99 });
    services.sim.mutate.removeEntry(second?.transactionId ?? '');
    const incremental = await sync();
    expect(incremental.resources.giftCardTransactions.changed).toBe(0); // old entries are past the incremental window
    const full = await sync(true);
    expect(full.resources.giftCardTransactions.changed).toBe(1);
    expect(full.resources.giftCardTransactions.notes['vanished']).toBe(1);
    const versions = await rows(
      mirror,
      'SELECT transaction_id AS id, change FROM gift_card_transaction_versions ORDER BY change',
    );
    expect(versions).toEqual([
      { id: first?.transactionId, change: 'changed' },
      { id: second?.transactionId, change: 'vanished' },
    ]);
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
  });

  it('on --full, writes no ledger entry that did not change, and tells what vanished even when killed part-way and resumed', async () => {
    const { services, mirror, sync } = await setup({ seed: 42 });
    await sync();
    const written = await rewritten(mirror, [['gift_card_transactions', 'transaction_id']]);
    const unchanged = await sync(true);
    expect(unchanged.resources.giftCardTransactions.notes['vanished']).toBe(0);
    expect(await written()).toEqual([]);

    // The oldest entry goes; a --full walk fails after two pages, and the next sync resumes it.
    const oldest = services.sim.truth().transactions.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
    services.sim.mutate.removeEntry(oldest.transactionId);
    await failingLedgerFromPage(services, 3, () => expect(sync(true)).rejects.toThrow(/500/));
    expect(await value(mirror, 'SELECT COUNT(*) FROM ledger_walk_seen')).toBe(200);
    const resumed = await sync();
    expect(resumed.resources.giftCardTransactions.notes).toMatchObject({ resumed: 1, vanished: 1 });
    const vanished = await column(
      mirror,
      'SELECT transaction_id FROM gift_card_transactions WHERE vanished_sync_run_id IS NOT NULL',
    );
    expect(vanished).toEqual([oldest.transactionId]);
    expect(await value(mirror, 'SELECT COUNT(*) FROM ledger_walk_seen')).toBe(0);
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
  });

  it('writes no unchanged coupon or order, and marks those the service stops listing as vanished', async () => {
    const { services, mirror, sync } = await setup({ seed: 39 });
    await sync();
    // Every row the sync's own connection updates in these tables, recorded by temporary triggers.
    const written = await rewritten(mirror, [
      ['coupons', 'coupon_id'],
      ['dp_orders', 'order_id'],
      ['dp_products', 'product_id'],
    ]);
    const vanished = () =>
      rows(
        mirror,
        'SELECT coupon_id AS id, vanished_sync_run_id AS run FROM coupons WHERE vanished_sync_run_id IS NOT NULL UNION ALL SELECT order_id, vanished_sync_run_id FROM dp_orders WHERE vanished_sync_run_id IS NOT NULL ORDER BY 1',
      );

    // The lists' versions (what a past night re-performs its coupons and orders from): one per record so far.
    const versions = async () =>
      Number(await value(mirror, 'SELECT COUNT(*) FROM coupon_versions')) +
      Number(await value(mirror, 'SELECT COUNT(*) FROM dp_order_versions'));
    const kept = await versions();
    expect(kept).toBeGreaterThan(0);

    await sync();
    expect(await written()).toEqual([]);
    // A quiet night keeps no version: the lists as of it are those of the night before.
    expect(await versions()).toBe(kept);

    const { coupon, order } = validCouponAndOrder(services.sim);
    services.sim.mutate.setCouponListed(coupon, false);
    services.sim.mutate.removeOrder(order);
    const gone = await sync();
    expect([gone.resources.coupons.notes['vanished'], gone.resources.dpOrders.notes['vanished']]).toEqual([1, 1]);
    expect(await vanished()).toEqual(
      [
        { id: coupon, run: gone.syncRunId },
        { id: order, run: gone.syncRunId },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
    // Each keeps a version without JSON: no longer listed from that sync on.
    const versionOf = (table: string, key: string, id: string, run: number) =>
      value(mirror, `SELECT COUNT(*) FROM ${table} WHERE ${key} = ? AND sync_run_id = ? AND raw_json IS NULL`, id, run);
    expect(Number(await versionOf('coupon_versions', 'coupon_id', coupon, gone.syncRunId))).toBe(1);
    expect(Number(await versionOf('dp_order_versions', 'order_id', order, gone.syncRunId))).toBe(1);

    services.sim.mutate.setCouponListed(coupon, true);
    const back = await sync();
    expect(back.resources.coupons.changed).toBe(1);
    expect(await vanished()).toEqual([{ id: order, run: gone.syncRunId }]);
    // Listed again: a version with its JSON, from that sync on.
    expect(
      Number(
        await value(
          mirror,
          'SELECT COUNT(*) FROM coupon_versions WHERE coupon_id = ? AND sync_run_id = ? AND raw_json IS NOT NULL',
          coupon,
          back.syncRunId,
        ),
      ),
    ).toBe(1);
    expect(await versions()).toBe(kept + 3);
  });

  it('marks nothing vanished from a walk resumed from its checkpoint, which cannot tell, but from the whole list it reads again after it', async () => {
    const { services, mirror, sync } = await setup({ seed: 40 });
    await sync();
    const { coupon } = validCouponAndOrder(services.sim);
    services.sim.mutate.setCouponListed(coupon, false);
    // As if the last sync had been killed part-way through the coupons.
    await change(
      mirror,
      "UPDATE sync_checkpoints SET done = FALSE, cursor = 'stale-cursor' WHERE resource = 'coupons'",
    );
    const resumed = await sync();
    // The resumed walk cannot tell (vanishedUnchecked); the list read again whole from its head can.
    expect(resumed.resources.coupons.notes).toMatchObject({
      resumed: 1,
      vanishedUnchecked: 1,
      readAgainAfterResume: 1,
      vanished: 1,
    });
    const next = await sync();
    expect(next.resources.coupons.notes['vanished'] ?? 0).toBe(0); // already marked
  });

  it('on --full with nothing new, re-reads no card whose snapshot agrees with its ledger', async () => {
    const { services, mirror, sync } = await setup({ seed: 41 });
    await sync();
    const full = await sync(true);
    expect(full.resources.settle.notes['cardsReread']).toBe(0);
    expect(await pictureOf(mirror)).toEqual(truthPicture(services.sim.truth()));
  });

  it('keeps a history row per observed change of a card, a coupon and an order', async () => {
    const { services, mirror, sync } = await setup({ seed: 38 });
    await sync();
    const histories = () =>
      rows(
        mirror,
        'SELECT (SELECT COUNT(*) FROM gift_card_history) AS cards, (SELECT COUNT(*) FROM coupon_history) AS coupons, (SELECT COUNT(*) FROM dp_order_history) AS orders',
      );
    const afterFirst = await histories();
    await sync();
    expect(await histories()).toEqual(afterFirst); // nothing changed, nothing recorded
    const card = services.sim.truth().giftCards.find((c) => c.status === 'ACTIVE');
    services.sim.mutate.setCard(card?.giftCardId ?? '', { status: 'FROZEN' });
    const coupon = services.sim.truth().coupons.find((c) => c.redemptionCount > 1);
    services.sim.mutate.setCoupon(coupon?.couponId ?? '', { redemptionCount: 0 });
    await sync();
    const history = await column(
      mirror,
      'SELECT status FROM gift_card_history WHERE gift_card_id = ? ORDER BY sync_run_id',
      card?.giftCardId,
    );
    expect(history).toEqual(['ACTIVE', 'FROZEN']);
    const counts = await column(
      mirror,
      'SELECT redemption_count FROM coupon_history WHERE coupon_id = ? ORDER BY sync_run_id',
      coupon?.couponId,
    );
    expect(counts).toEqual([coupon?.redemptionCount, 0]);
  });
});

describe('a sync during live activity', () => {
  it('holds every entry committed before it ended, none twice, and settles or flags moving cards', async () => {
    // Answers slowed often enough that the activity timer runs while the sync waits: some 40–60
    // entries land during the sync, not the 17–20 of 3 ms answers (10 once, on a loaded machine).
    const { services, mirror, sync } = await setup({
      seed: 39,
      live: { intervalMs: 1 },
      faults: { rate: 0.6, kinds: ['slow'], slowMs: 10 },
    });
    const atStart = services.sim.truth().transactions.length;
    const summary = await sync();
    services.sim.stopLive();
    const truth = services.sim.truth();
    const committedDuring =
      truth.transactions.filter((t) => Date.parse(t.createdAt) < summary.ledgerReadUntilMs).length - atStart;
    expect(committedDuring).toBeGreaterThan(10);
    const mirrored = new Set((await column(mirror, 'SELECT transaction_id FROM gift_card_transactions')) as string[]);
    const due = truth.transactions.filter((t) => Date.parse(t.createdAt) < summary.ledgerReadUntilMs);
    expect(due.filter((t) => !mirrored.has(t.transactionId))).toEqual([]);
    const inTruth = new Set(truth.transactions.map((t) => t.transactionId));
    expect([...mirrored].filter((id) => !inTruth.has(id))).toEqual([]);
    // Every card whose snapshot disagrees with its mirrored ledger was recorded as in flight.
    const disagreeing = (await column(
      mirror,
      `SELECT c.gift_card_id FROM gift_cards c JOIN gift_card_transactions t ON t.gift_card_id = c.gift_card_id
         WHERE t.transaction_id = (SELECT transaction_id FROM gift_card_transactions x WHERE x.gift_card_id = c.gift_card_id ORDER BY created_at_ms DESC, list_order DESC LIMIT 1)
           AND t.balance_after_cents <> c.remaining_balance_cents`,
    )) as string[];
    const inFlight = new Set(
      (await column(
        mirror,
        'SELECT gift_card_id FROM gift_cards_in_flight WHERE sync_run_id = ?',
        summary.syncRunId,
      )) as string[],
    );
    expect(disagreeing.filter((id) => !inFlight.has(id))).toEqual([]);
  });
});
