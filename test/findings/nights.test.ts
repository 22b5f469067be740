/**
 * Several nights of the real CLI (`ledger-recon run` in a child process) against the simulator
 * over HTTP, the simulator's world changing between nights: legal activity, two planted breaks
 * repaired, an entry rewritten, an entry deleted, an entry the service lists but answers 404
 * for by ID, a coupon counter going down, a USED coupon back to ACTIVE, a wallet drop no order
 * explains, an entry committed late with the newest mirrored createdAt, and a new chain gap.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/app/night.js';
import type { ExportedFinding } from '../../src/findings/finding.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { mirrorAt, rowsOfMirror } from '../support/test-db.js';
import { testNow } from '../support/test-clock.js';
import { acceptAt, nightOf } from '../support/app.js';

interface Night {
  summary: RunSummary;
  findings: ExportedFinding[];
  csvRows: number;
}

let sim: Simulator;
let dir: string;
let db: string;
const nights: Night[] = [];
/** What the test did to the world, by record. */
const touched = {
  repaired: [] as string[],
  hiddenEntry: '',
  hiddenCard: '',
  regressedCoupon: '',
  revivedCoupon: '',
  wallet: '',
  lateEntry: '',
  gapCard: '',
  rewrittenEntry: '',
  rewrittenCard: '',
  deletedEntry: '',
  deletedCard: '',
};

/** A night in this process (src/app/night.ts); `extra` as `run` takes it (`--full`). */
async function night(...extra: string[]): Promise<Night> {
  const out = join(dir, 'reports');
  const { result } = await nightOf(sim, db, out, extra.includes('--full') ? { full: true } : {});
  if (!result.ok || result.record.exitCode !== 1)
    throw new Error(`night ${nights.length + 1}: ${JSON.stringify(result.record)}`);
  const summary = result.record;
  const findings = JSON.parse(readFileSync(summary.report.json, 'utf8')) as ExportedFinding[];
  const csvRows = readFileSync(summary.report.csv, 'utf8').trimEnd().split('\r\n').length - 1;
  const done = { summary, findings, csvRows };
  nights.push(done);
  return done;
}

const at = (n: Night, code: string, entityId: string): ExportedFinding | undefined =>
  n.findings.find((f) => f.code === code && f.entityId === entityId);
const key = (f: { code: string; entityId: string }): string => `${f.code} ${f.entityId}`;

beforeAll(async () => {
  sim = await startSimulator({ seed: 181, size: 'small', plant: true });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-nights-'));
  db = mirrorAt(dir);

  // ---- night 1: the planted world ---------------------------------------------------------
  const first = await night();
  const truth = sim.truth();
  const planted = new Set(sim.manifest.breaks.flatMap((b) => [b.entityId, ...b.records.map((r) => r.id)]));
  for (const l of sim.manifest.lookAlikes) for (const r of l.records) planted.add(r.id);
  const entriesOf = (card: string) =>
    truth.transactions.filter((t) => t.giftCardId === card).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const newestMs = Math.max(...truth.transactions.map((t) => Date.parse(t.createdAt)));
  const legalCards = truth.giftCards.filter(
    (c) =>
      c.merchantId === truth.merchantId &&
      c.status === 'ACTIVE' &&
      !planted.has(c.giftCardId) &&
      Date.parse(c.expiresAt) > testNow() + 7 * 86_400_000,
  );
  // Entries far older than the incremental pass's overlap: only the weekly --full re-reads them.
  const [rewritten, deleted] = legalCards.filter(
    (c) =>
      entriesOf(c.giftCardId).length >= 2 &&
      Date.parse(entriesOf(c.giftCardId)[0]!.createdAt) < newestMs - 2 * 86_400_000,
  );
  const [late, gap] = legalCards.filter(
    (c) =>
      c !== rewritten &&
      c !== deleted &&
      c.remainingBalance >= 5 &&
      entriesOf(c.giftCardId).every((t) => Date.parse(t.createdAt) < newestMs),
  );
  if (!rewritten || !deleted || !late || !gap) throw new Error('seed 181 lacks the legal cards this suite needs');

  // ---- between night 1 and night 2 ------------------------------------------------------
  // Two planted breaks repaired: the altered card's balance, and the coupon active past expiry.
  const altered = sim.manifest.breaks.find((b) => b.scenario === 'remaining balance altered')!.entityId;
  sim.mutate.setCard(altered, { remainingBalance: Number(at(first, 'GC_BALANCE_MISMATCH', altered)!.expected) });
  const expiredActive = sim.manifest.breaks.find((b) => b.code === 'CV_EXPIRED_BUT_ACTIVE')!.entityId;
  sim.mutate.setCoupon(expiredActive, { status: 'EXPIRED' });
  touched.repaired = [
    `GC_BALANCE_MISMATCH ${altered}`,
    `GC_LEDGER_TAIL_MISMATCH ${altered}`,
    `CV_EXPIRED_BUT_ACTIVE ${expiredActive}`,
  ];
  // The service answers 404 by ID for an entry it still lists (the debit of zero).
  const zero = sim.manifest.breaks.find((b) => b.scenario === 'debit of zero')!;
  touched.hiddenEntry = zero.entityId;
  touched.hiddenCard = zero.records.find((r) => r.type === 'giftCard')!.id;
  sim.mutate.hideEntryById(zero.entityId);
  // A coupon counter goes down; a USED coupon comes back to ACTIVE.
  const coupons = truth.coupons.filter(
    (c) => c.merchantId === truth.merchantId && !planted.has(c.couponId) && typeof c.redemptionCount === 'number',
  );
  const counted = coupons.find((c) => c.status === 'ACTIVE' && c.redemptionCount > 0 && c.usageLimitTotal === 0)!;
  const used = coupons.find((c) => c.status === 'USED')!;
  sim.mutate.setCoupon(counted.couponId, { redemptionCount: counted.redemptionCount - 1 });
  sim.mutate.setCoupon(used.couponId, { status: 'ACTIVE' });
  touched.regressedCoupon = counted.couponId;
  touched.revivedCoupon = used.couponId;
  // A wallet drops with no order behind it.
  touched.wallet = truth.wallets[0]!.walletID;
  sim.mutate.moveWallet(touched.wallet, -1_234);
  // Ledger changes only a --full pass can see.
  touched.rewrittenCard = rewritten.giftCardId;
  touched.rewrittenEntry = entriesOf(rewritten.giftCardId)[0]!.transactionId;
  sim.mutate.rewriteEntry(touched.rewrittenEntry, { idempotencyKey: 'rewritten-after-the-fact' });
  touched.deletedCard = deleted.giftCardId;
  touched.deletedEntry = entriesOf(deleted.giftCardId)[0]!.transactionId;
  sim.mutate.removeEntry(touched.deletedEntry);
  // An entry committed late, stamped with the newest createdAt already mirrored.
  touched.lateEntry = sim.mutate.writeEntry(late.giftCardId, { type: 'DEBIT', amountCents: 100, atMs: newestMs });
  // A new chain gap: a debit that starts 5.00 above where its card stood.
  touched.gapCard = gap.giftCardId;
  sim.mutate.writeEntry(gap.giftCardId, {
    type: 'DEBIT',
    amountCents: 300,
    atMs: testNow(),
    beforeCents: Math.round(gap.remainingBalance * 100) + 500,
  });
  sim.applyActivity(40);
  await night();

  // ---- night 3: the weekly --full ----------------------------------------------------------
  sim.applyActivity(40);
  await night('--full');

  // ---- night 4: quiet ------------------------------------------------------------------------
  await night();
}, 120_000);

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Records that explain an error or warning: planted, or changed by this suite on purpose. */
function explained(f: ExportedFinding): boolean {
  const ids = new Set(sim.manifest.breaks.flatMap((b) => [b.entityId, ...b.records.map((r) => r.id)]));
  for (const id of [
    touched.hiddenEntry,
    touched.hiddenCard,
    touched.regressedCoupon,
    touched.revivedCoupon,
    touched.wallet,
    touched.gapCard,
    touched.rewrittenCard,
    touched.deletedCard,
  ])
    ids.add(id);
  return [f.entityId, ...f.records.map((r) => r.id)].some((id) => ids.has(id));
}

describe('findings across nights', () => {
  it('finds every planted break on the first night', () => {
    const [first] = nights;
    for (const b of sim.manifest.breaks)
      expect(at(first!, b.code, b.entityId), `${b.code} (${b.scenario})`).toBeDefined();
  });

  it('reports each change of the world as an error or warning on its record, the night it can be seen', () => {
    const [, second, third] = nights;
    expect(at(second!, 'CV_COUNTER_REGRESSED', touched.regressedCoupon)).toMatchObject({
      severity: 'error',
      state: 'new',
      unit: 'count',
    });
    expect(at(second!, 'CV_COUNTER_REGRESSED', touched.revivedCoupon)).toMatchObject({
      severity: 'error',
      state: 'new',
    });
    expect(at(second!, 'DP_WALLET_DRIFT', touched.wallet)).toMatchObject({
      severity: 'warning',
      state: 'new',
      difference: '-12.34',
    });
    expect(at(second!, 'GC_LEDGER_REWRITTEN', touched.hiddenEntry)).toMatchObject({
      severity: 'error',
      state: 'new',
      message: expect.stringMatching(/reading it by ID answers 404 — the service disagrees with itself/),
    });
    // The card holding that entry is not "in flight": its entry breaks stay errors.
    expect(
      second!.findings
        .filter((f) => f.giftCardId === touched.hiddenCard)
        .map((f) => f.code)
        .sort(),
    ).toEqual(['GC_INVALID_AMOUNT', 'GC_INVALID_AMOUNT', 'GC_LEDGER_REWRITTEN']);
    expect(second!.findings.find((f) => f.code === 'GC_CHAIN_GAP' && f.giftCardId === touched.gapCard)).toMatchObject({
      severity: 'error',
      state: 'new',
      difference: '5.00',
    });
    // An old entry rewritten is seen by the weekly --full pass at the latest (an incremental walk sees it
    // only when it reads that far, which an out-of-order list can make it do); a deleted entry only by
    // --full, and one that reads 404 is confirmed, never in flight.
    const rewritten =
      at(second!, 'GC_LEDGER_REWRITTEN', touched.rewrittenEntry) ??
      at(third!, 'GC_LEDGER_REWRITTEN', touched.rewrittenEntry);
    expect(rewritten).toMatchObject({
      severity: 'error',
      state: 'new',
      message: expect.stringMatching(/idempotencyKey/),
    });
    expect(at(third!, 'GC_LEDGER_REWRITTEN', touched.rewrittenEntry)).toMatchObject({
      severity: 'error',
      fingerprint: rewritten!.fingerprint,
    });
    expect(at(second!, 'GC_LEDGER_REWRITTEN', touched.deletedEntry)).toBeUndefined();
    expect(at(third!, 'GC_LEDGER_REWRITTEN', touched.deletedEntry)).toMatchObject({
      severity: 'error',
      state: 'new',
      message: expect.stringMatching(/no longer appears in the ledger/),
    });
    expect(third!.findings.filter((f) => f.code === 'GC_IN_FLIGHT' && f.entityId === touched.deletedCard)).toEqual([]);
    expect(third!.summary.confirmation.moved).toBe(0);
  });

  it('keeps every break found from a change open on every later night, with its fingerprint and first-seen date', () => {
    const [, second, third, fourth] = nights;
    const events = second!.findings.filter((f) =>
      ['CV_COUNTER_REGRESSED', 'DP_WALLET_DRIFT', 'GC_LEDGER_REWRITTEN'].includes(f.code),
    );
    // Two coupons, the wallet, the entry that reads 404 by ID (and the rewritten one if night 2 read that far).
    expect(events.filter((f) => f.entityId !== touched.rewrittenEntry)).toHaveLength(4);
    for (const later of [third!, fourth!]) {
      for (const event of events) {
        expect(
          later.findings.find((f) => f.fingerprint === event.fingerprint),
          key(event),
        ).toMatchObject({ state: 'open', severity: event.severity, firstSeenAt: event.firstSeenAt });
      }
    }
    for (const entry of [touched.rewrittenEntry, touched.deletedEntry]) {
      const found = at(third!, 'GC_LEDGER_REWRITTEN', entry)!;
      expect(fourth!.findings.find((f) => f.fingerprint === found.fingerprint)).toMatchObject({
        state: 'open',
        firstSeenAt: found.firstSeenAt,
      });
    }
    // Planted breaks keep their first night's fingerprint and date.
    const [first] = nights;
    const chainGap = first!.findings.find((f) => f.code === 'GC_CHAIN_GAP')!;
    expect(fourth!.findings.find((f) => f.fingerprint === chainGap.fingerprint)).toMatchObject({
      state: 'open',
      firstSeenAt: chainGap.firstSeenAt,
    });
  });

  it('resolves the two repaired breaks exactly once, and nothing on a quiet night', async () => {
    const resolved = await rowsOfMirror<{ run: number; code: string; entityId: string }>(
      db,
      'SELECT check_run_id AS run, code, entity_id AS "entityId" FROM resolved_findings ORDER BY check_run_id, code',
    );
    expect(
      resolved
        .filter((r) => r.run === 2)
        .map(key)
        .sort(),
    ).toEqual([...touched.repaired].sort());
    for (const repaired of touched.repaired) expect(resolved.filter((r) => key(r) === repaired)).toHaveLength(1);
    expect(resolved.filter((r) => r.run === 4)).toEqual([]);
    expect(nights.map((n) => n.summary.resolved)).toEqual([0, 3, expect.any(Number), 0]);
  });

  it('raises nothing false at error or warning on what the legal activity touched, and mirrors the late entry', async () => {
    for (const n of nights)
      expect(n.findings.filter((f) => f.severity !== 'info' && !explained(f)).map((f) => f.message)).toEqual([]);
    expect(
      await rowsOfMirror(
        db,
        'SELECT COUNT(*) AS n FROM gift_card_transactions WHERE transaction_id = ? AND vanished_sync_run_id IS NULL',
        touched.lateEntry,
      ),
    ).toEqual([{ n: 1 }]);
  });

  it('counts what the files hold: new + open + accepted = the findings in the JSON and the CSV', () => {
    for (const n of nights) {
      const { summary } = n;
      expect(summary.new + summary.open + summary.accepted).toBe(summary.findings);
      expect(n.findings).toHaveLength(summary.findings);
      expect(n.csvRows).toBe(summary.findings);
      for (const state of ['new', 'open', 'accepted'] as const)
        expect(n.findings.filter((f) => f.state === state)).toHaveLength(summary[state]);
    }
  });

  it('shows an acceptance’s note, who and until in the workbook, CSV and JSON; the break no longer fails but stays listed', async () => {
    const drift = at(nights[3]!, 'DP_WALLET_DRIFT', touched.wallet)!;
    await acceptAt(db, {
      fingerprint: drift.fingerprint,
      note: 'partner fee, credit note CN-77',
      by: 'J. Controller',
      until: '2099-12-31',
    });
    const fifth = await night();
    expect(at(fifth, 'DP_WALLET_DRIFT', touched.wallet)).toMatchObject({
      state: 'accepted',
      acceptedNote: 'partner fee, credit note CN-77',
      acceptedBy: 'J. Controller',
      acceptedUntil: '2100-01-01T00:00:00.000Z',
    });
    expect(readFileSync(fifth.summary.report.csv, 'utf8')).toMatch(
      /"DP_WALLET_DRIFT".*"accepted".*"partner fee, credit note CN-77","J\. Controller","[^"]+","2100-01-01T00:00:00\.000Z",""/,
    );
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(fifth.summary.report.workbook);
    const ws = workbook.getWorksheet('Findings')!;
    const header = ws.getRow(1).values as unknown[];
    const row = ws
      .getRows(2, ws.rowCount - 1)!
      .find((r) => r.getCell(header.indexOf('fingerprint')).value === drift.fingerprint)!;
    expect([
      row.getCell(header.indexOf('state')).value,
      row.getCell(header.indexOf('accepted: note')).value,
      row.getCell(header.indexOf('accepted by')).value,
    ]).toEqual(['accepted', 'partner fee, credit note CN-77', 'J. Controller']);
  });
});
