import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/findings/reconcile.js';
import { openMirror, type Mirror } from '../../src/db/mirror.js';
import type { SimulatorOptions } from '../../src/sim/simulator.js';
import { runSync } from '../../src/sync/run-sync.js';
import { cardLedger, FixtureMirror } from '../support/fixtures.js';
import { startServices, type TestServices } from '../support/simulator.js';
import { mirrorAt } from '../support/test-db.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
const opened: Array<{ services: TestServices; mirror: Mirror }> = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-runs-'));
});
afterEach(async () => {
  for (const { services, mirror } of opened.splice(0)) {
    mirror.close();
    await services.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

async function setup(options: SimulatorOptions) {
  const services = await startServices({ size: 'small', ...options });
  const mirror = openMirror(join(dir, 'ledger.db'));
  opened.push({ services, mirror });
  const sync = (full = false) =>
    runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp, full });
  return { services, mirror, sync };
}

const DAY = 86_400_000;
const key = (f: { code: string; entityId: string }) => `${f.code} ${f.entityId}`;

describe('a check over a synced mirror', () => {
  it('finds every planted break on its record and nothing else at error or warning; exit 1', async () => {
    const { services, mirror, sync } = await setup({ seed: 41, plant: true });
    await sync();
    const { summary, findings } = await reconcile({ nowMs: testNow(), mirror });
    const planted = services.sim.manifest.breaks;
    expect(planted.length).toBeGreaterThanOrEqual(29);
    const found = new Map(findings.map((f) => [key(f), f]));
    for (const b of planted) {
      const finding = found.get(key(b));
      expect(finding, `${b.code} (${b.scenario}) on ${b.entityId}`).toBeDefined();
      // Every record the manifest names is among the finding's records.
      for (const record of b.records) expect(finding?.records, `${b.code} records`).toContainEqual(record);
    }
    const plantedKeys = new Set(planted.map(key));
    expect(findings.filter((f) => f.severity !== 'info' && !plantedKeys.has(key(f))).map((f) => f.message)).toEqual([]);
    expect(summary).toMatchObject({ verdict: 'BREAKS', exitCode: 1, syncStatus: 'completed', failedChecks: [] });
    const balance = findings.find(
      (f) =>
        f.code === 'GC_BALANCE_MISMATCH' &&
        f.entityId === planted.find((b) => b.scenario === 'remaining balance altered')?.entityId,
    );
    expect(balance).toMatchObject({ unit: 'cents', expected: 5_000, actual: 5_500, difference: 500, currency: 'USD' });
  });

  it('raises nothing false at error or warning while the services keep working during the sync', async () => {
    const { services, mirror, sync } = await setup({ seed: 42, plant: true, live: { intervalMs: 2 } });
    await sync();
    services.sim.stopLive();
    const { findings } = await reconcile({ nowMs: testNow(), mirror });
    const plantedKeys = new Set(services.sim.manifest.breaks.map(key));
    expect(findings.filter((f) => f.severity !== 'info' && !plantedKeys.has(key(f))).map((f) => f.message)).toEqual([]);
    for (const b of services.sim.manifest.breaks) expect(findings.map(key)).toContain(key(b));
  });

  it("leaves a card of another merchant out of the liability, whose issued amounts are our cards' alone", async () => {
    const { services, mirror, sync } = await setup({ seed: 41, plant: true });
    await sync();
    const { summary, rollForward } = await reconcile({ nowMs: testNow(), mirror });
    const foreign = services.sim.manifest.breaks.find((b) => b.code === 'GC_FOREIGN_MERCHANT')!;
    const card = mirror.sqlite
      .prepare(
        'SELECT currency, initial_balance_cents AS initial, merchant_id AS merchant FROM gift_cards WHERE gift_card_id = ?',
      )
      .get(foreign.entityId) as { currency: string; initial: number; merchant: string };
    expect(card.merchant).not.toBe(summary.merchantId);
    // Our cards' initial balances, leaving out the cards an amount off the cent leaves unknown (counted apart).
    const ours = mirror.sqlite
      .prepare(
        `SELECT SUM(initial_balance_cents) FROM gift_cards c WHERE currency = ? AND merchant_id = ? AND initial_balance_cents IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM gift_card_transactions t WHERE t.gift_card_id = c.gift_card_id AND (t.amount_cents IS NULL OR t.balance_before_cents IS NULL OR t.balance_after_cents IS NULL))`,
      )
      .pluck()
      .get(card.currency, summary.merchantId) as number;
    const night = rollForward.find((r) => r.currency === card.currency)!;
    expect(card.initial).toBeGreaterThan(0);
    expect(night.issuedCents).toBe(ours);
  });

  it('reconciles a clean simulator, and its liability roll-forward closes run after run', async () => {
    const { services, mirror, sync } = await setup({ seed: 43 });
    await sync();
    const first = await reconcile({ nowMs: testNow(), mirror });
    expect(first.summary).toMatchObject({ verdict: 'RECONCILED', exitCode: 0, findings: 0 });
    expect(first.rollForward.length).toBeGreaterThan(0);
    for (const r of first.rollForward) expect(r).toMatchObject({ openingCents: 0, differenceCents: 0 });
    services.sim.applyActivity(300);
    await sync();
    const second = await reconcile({ nowMs: testNow(), mirror });
    expect(second.summary.verdict).toBe('RECONCILED');
    for (const r of second.rollForward) {
      const before = first.rollForward.find((p) => p.currency === r.currency);
      expect(r.openingCents).toBe(before?.cardsRemainingCents ?? 0);
      expect(r.differenceCents).toBe(0);
    }
    expect(second.rollForward.some((r) => r.debitedCents > 0)).toBe(true);
  });
});

describe('findings across runs', () => {
  it('keeps open a break on a coupon or order the service no longer lists, saying since which sync', async () => {
    const { services, mirror, sync } = await setup({ seed: 45, plant: true });
    await sync();
    const first = await reconcile({ nowMs: testNow(), mirror });
    const overRedeemed = first.findings.find((f) => f.code === 'CV_OVER_REDEEMED');
    const totalMismatch = first.findings.find((f) => f.code === 'DP_ORDER_TOTAL_MISMATCH');
    services.sim.mutate.setCouponListed(overRedeemed!.entityId, false);
    services.sim.mutate.removeOrder(totalMismatch!.entityId);
    const { syncRunId } = await sync();
    const second = await reconcile({ nowMs: testNow(), mirror });
    for (const before of [overRedeemed!, totalMismatch!]) {
      const after = second.findings.find((f) => f.fingerprint === before.fingerprint);
      expect(after, before.code).toMatchObject({ state: 'open', detailSha256: before.detailSha256 });
      const noun = before.code === 'CV_OVER_REDEEMED' ? 'coupon' : 'order';
      expect(after?.message).toBe(
        `${before.message} The service no longer lists ${noun} ${before.entityId} (since sync ${syncRunId}); the mirror keeps it as last read.`,
      );
    }
    expect(second.findings.filter((f) => f.message.includes('no longer lists'))).toHaveLength(2);
  });

  it('shows a repaired break as resolved, a new one as new, an unchanged one as open with its first-seen date', async () => {
    const { services, mirror, sync } = await setup({ seed: 44, plant: true });
    await sync();
    const day1 = testNow();
    const first = await reconcile({ mirror, nowMs: day1 });
    expect(first.findings.every((f) => f.state === 'new')).toBe(true);

    const altered = services.sim.manifest.breaks.find((b) => b.scenario === 'remaining balance altered');
    services.sim.mutate.setCard(altered!.entityId, { remainingBalance: 50 });
    const coupon = services.sim
      .truth()
      .coupons.find(
        (c) =>
          c.status === 'ACTIVE' &&
          typeof c.redemptionCount === 'number' &&
          c.redemptionCount > 0 &&
          c.usageLimitTotal === 0,
      );
    services.sim.mutate.setCoupon(coupon!.couponId, { redemptionCount: (coupon!.redemptionCount as number) - 1 });
    await sync();
    const day4 = day1 + 3 * DAY;
    const second = await reconcile({ mirror, nowMs: day4 });

    const resolved = mirror.sqlite
      .prepare('SELECT code, entity_id FROM resolved_findings WHERE check_run_id = ? ORDER BY code')
      .all(second.summary.checkRunId);
    expect(resolved).toEqual([
      { code: 'GC_BALANCE_MISMATCH', entity_id: altered!.entityId },
      { code: 'GC_LEDGER_TAIL_MISMATCH', entity_id: altered!.entityId },
    ]);
    expect(second.findings.filter((f) => f.state === 'new').map((f) => [f.code, f.entityId])).toEqual([
      ['CV_COUNTER_REGRESSED', coupon!.couponId],
    ]);
    const gap = second.findings.find((f) => f.code === 'GC_CHAIN_GAP');
    expect(gap).toMatchObject({
      state: 'open',
      firstSeenCheckRunId: first.summary.checkRunId,
      firstSeenAtMs: day1,
      ageDays: 3,
    });
    expect(second.summary).toMatchObject({ new: 1, resolved: 2, open: second.findings.length - 1 });
  });

  it('lets an accepted break stay visible without failing the run, until its date passes or it changes', async () => {
    const { services, mirror, sync } = await setup({ seed: 45 });
    await sync();
    const wallet = services.sim.truth().wallets[0]!;
    services.sim.mutate.moveWallet(wallet.walletID, -1_234);
    await sync();
    const now = testNow();
    const drifted = await reconcile({ mirror, nowMs: now, failOn: 'warning' });
    expect(drifted.summary).toMatchObject({ verdict: 'BREAKS', exitCode: 1 });
    const [drift] = drifted.findings;
    expect(drift).toMatchObject({
      code: 'DP_WALLET_DRIFT',
      entityId: wallet.walletID,
      expected: expect.any(Number),
      difference: -1_234,
    });

    mirror.sqlite
      .prepare(
        `INSERT INTO finding_acceptances (fingerprint, note, accepted_at, accepted_at_ms, until, until_ms, detail_sha256, check_run_id) VALUES (?, 'fee agreed with the partner', ?, ?, '2026-12-31', ?, ?, ?)`,
      )
      .run(
        drift!.fingerprint,
        new Date(now).toISOString(),
        now,
        now + 5 * DAY,
        drift!.detailSha256,
        drifted.summary.checkRunId,
      );
    const accepted = await reconcile({ mirror, nowMs: now + DAY, failOn: 'warning' });
    expect(accepted.findings).toMatchObject([{ fingerprint: drift!.fingerprint, state: 'accepted' }]);
    expect(accepted.summary).toMatchObject({ verdict: 'RECONCILED', exitCode: 0, accepted: 1 });

    const lapsed = await reconcile({ mirror, nowMs: now + 6 * DAY, failOn: 'warning' });
    expect(lapsed.findings).toMatchObject([{ fingerprint: drift!.fingerprint, state: 'open' }]);
    expect(lapsed.summary.exitCode).toBe(1);
  });
});

describe('our merchant', () => {
  it('is pinned: a later run checks for the merchant the last one did, never re-inferred by majority', async () => {
    const { services, mirror, sync } = await setup({ seed: 46 });
    await sync();
    const ours = services.sim.truth().merchantId;
    const inferred = await reconcile({ nowMs: testNow(), mirror });
    expect(inferred.summary.merchantId).toBe(ours);
    // Told otherwise once (--merchant-id), that merchant stays ours on the nights after.
    await reconcile({ nowMs: testNow(), mirror, merchantId: 'MERCHANT-TOLD-ONCE' });
    const next = await reconcile({ nowMs: testNow(), mirror });
    expect(next.summary.merchantId).toBe('MERCHANT-TOLD-ONCE');
  });
});

describe('our merchant when nothing resolves it', () => {
  it('takes a clear majority, and refuses to pin a split one, naming the setting', async () => {
    const fx = await FixtureMirror.open(mirrorAt(dir, 'split'));
    try {
      fx.sync();
      for (let i = 0; i < 3; i += 1) fx.coupon({ id: `ours-${i}`, merchantId: 'MERCHANT-A' });
      for (let i = 0; i < 3; i += 1) fx.coupon({ id: `theirs-${i}`, merchantId: 'MERCHANT-B' });
      await expect(reconcile({ nowMs: testNow(), mirror: fx.mirror })).rejects.toThrow(
        /cannot tell which merchant is ours: .* no clear majority; set it with --merchant-id ID or LEDGER_RECON_MERCHANT_ID/,
      );
      fx.coupon({ id: 'ours-3', merchantId: 'MERCHANT-A' });
      expect((await reconcile({ nowMs: testNow(), mirror: fx.mirror })).summary.merchantId).toBe('MERCHANT-A');
    } finally {
      await fx.close();
    }
  });
});

describe('an incomplete run', () => {
  it('is INCOMPLETE with exit 2 over a sync that did not complete, whatever it finds', async () => {
    const fx = await FixtureMirror.open(mirrorAt(dir, 'incomplete'));
    try {
      fx.ledger(cardLedger(1_000, [{ type: 'DEBIT', amount: 100 }]));
      fx.sync('failed');
      const { summary } = await reconcile({ nowMs: testNow(), mirror: fx.mirror });
      expect(summary).toMatchObject({ verdict: 'INCOMPLETE', exitCode: 2, findings: 0, syncStatus: 'failed' });
    } finally {
      await fx.close();
    }
  });
});
