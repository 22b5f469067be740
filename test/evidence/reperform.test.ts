/**
 * Re-performing a past night (sealed nights, item 3, its first part): `verify --run N` rebuilds
 * the night's gift card ledger from the mirror's history and compares its population and its
 * roll-forward with what the night sealed and stated. Every past night of a world with legal activity, a planted break and a
 * weekly --full re-performs identically, and so does every night after the service rewrote an
 * entry they read (from the figures its version keeps) or re-keyed one (the entries under one key
 * and the orphaned ones are read as each night saw them); a ledger entry's amount, key or card
 * changed in the mirror's past by SQL, a card's history row deleted and an acceptance dated back
 * are each named.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { changeMirror, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { reperformNight } from '../../src/app/verify.js';
import { acceptAt, closeOf, nightOf, told } from '../support/app.js';
import { verifyClose, verifyFolderAt, verifyNight, whatIfRun } from '../../src/app/verified.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
let sim: Simulator;
let db: string;
const nights: number[] = [];
let month = '';
/** Where the closed month begins: a debit from it moves the month to date and the month's close. */
const monthStartMs = (): number => Date.parse(`${month}-01T00:00:00Z`);

interface Verified {
  identical: boolean;
  syncRunId: number;
  differences: string[];
  population: { cards: number; entries: number; merkleRoot: string };
}

/**
 * Check run `run` of the mirror at `mirror` (the shared world's unless named) re-performed in this
 * process (src/app/verify.ts, what `verify --run N` calls); `status` is the exit code verify gives it.
 */
const verify = async (run: number, mirror = db) => {
  const opened = await openMirrorAt(mirror);
  try {
    const result = await reperformNight(opened, run);
    const identical = result.differences.length === 0;
    return { status: identical ? 0 : 1, verified: { ...result, identical } satisfies Verified };
  } finally {
    await opened.close();
  }
};

/** A finding's record as a difference names it: "giftCard <id>". */
const recordOf = async (run: number, fingerprint: string): Promise<string> => {
  const [row] = await rowsOfMirror<{ entity_type: string; entity_id: string }>(
    db,
    'SELECT entity_type, entity_id FROM findings WHERE check_run_id = ? AND fingerprint = ?',
    run,
    fingerprint,
  );
  return `${row?.entity_type} ${row?.entity_id}`;
};

/** A weekly --full night of the shared world, in this process. */
const fullNight = async () => {
  const { result } = await nightOf(sim, db, join(dir, 'reports'), { full: true });
  if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
  return result.record;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-reperform-'));
  db = mirrorAt(dir);
  sim = await startSimulator({ seed: 61, size: 'tiny', plant: true });
  // Four nights (in this process, src/app/night.ts): legal activity between them (balances move,
  // cards and entries are added), the third a weekly --full pass. Each is sealed as it runs.
  for (const night of [1, 2, 3, 4]) {
    // Activity before every night, the first too: each night's month holds debits it read, even one
    // that began minutes before it (a run at 23:59 on the last day of a month crosses into the next).
    sim.applyActivity(40);
    const { result } = await nightOf(sim, db, join(dir, 'reports'), night === 3 ? { full: true } : {});
    if (!result.ok) throw new Error(`night ${night}: ${result.record.error.message}`);
    const night_ = result.record;
    nights.push(night_.runId);
    // The month closed after the second night; later nights move the ledger on.
    if (night === 2) {
      month = night_.asOf.slice(0, 7);
      await closeOf(db, join(dir, 'reports'), month, testNow());
    }
  }
}, 240_000);

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('verify --run', () => {
  it('re-performs every past night identically after later nights of activity and a --full pass', async () => {
    const roots = new Set<string>();
    for (const run of nights) {
      const { status, verified } = await verify(run);
      expect(status, verified.differences.join('\n')).toBe(0);
      expect(verified.identical).toBe(true);
      expect(verified.differences).toEqual([]);
      // The planted world's card breaks are drafted again, each one the night stated.
      expect((verified as Verified & { cardFindings: number }).cardFindings).toBeGreaterThan(0);
      roots.add(verified.population.merkleRoot);
    }
    // The activity moved the ledger between nights: each night's population is its own.
    expect(roots.size).toBe(nights.length);
    const text = await told(() => verifyNight(Number(nights[0]), { db: db }));
    expect(text.stdout).toMatch(/^re-performed check run \d+ \(sync \d+, data as of .*\): identical: \d+ cards/);
  }, 120_000);

  it("names a ledger entry's amount changed in the mirror's past, and a card's history row deleted", async () => {
    const first = nights[0]!;
    const { verified } = await verify(first);
    // An entry the first night read, its amount changed by SQL.
    const [entry] = await rowsOfMirror<{ transaction_id: string; amount_cents: number }>(
      db,
      // One of the night's month where it has one: an earlier month's debit moves neither the month to date nor its close.
      "SELECT transaction_id, amount_cents FROM gift_card_transactions WHERE first_sync_run_id <= ? AND type = 'DEBIT' AND amount_cents IS NOT NULL ORDER BY CASE WHEN created_at_ms >= ? THEN 0 ELSE 1 END, transaction_id LIMIT 1",
      verified.syncRunId,
      Date.parse(`${verified.cutOff.slice(0, 7)}-01T00:00:00Z`),
    );
    if (!entry) throw new Error('the first night read a debit');
    await changeMirror(
      db,
      'UPDATE gift_card_transactions SET amount_cents = amount_cents + 1 WHERE transaction_id = ?',
      entry.transaction_id,
    );
    try {
      const changed = await verify(first);
      expect(changed.status).toBe(1);
      expect(changed.verified.differences).toContainEqual(
        expect.stringMatching(
          /^[A-Z]{3} debited, all time: sealed [A-Z]{3} [\d,]+\.\d\d, re-performed [A-Z]{3} [\d,]+\.\d\d$/,
        ),
      );
      expect(changed.verified.differences).toContainEqual(
        expect.stringMatching(/^Merkle root of the population: sealed [0-9a-f]{64}/),
      );
      // The night's roll-forward, walked again from the same ledger, moves with it.
      expect(changed.verified.differences).toContainEqual(
        expect.stringMatching(
          /^roll-forward [A-Z]{3} debited: stated [A-Z]{3} [\d.,-]+, re-performed [A-Z]{3} [\d.,-]+$/,
        ),
      );
      expect(changed.verified.differences).toContainEqual(expect.stringMatching(/^month to date [A-Z]{3} /));
      // The card checks, drafted again over the changed entry, find a break the night did not state.
      expect(changed.verified.differences).toContainEqual(
        expect.stringMatching(/^finding GC_[A-Z_]+ [0-9a-f]+: found again now, not among the night's findings$/),
      );
      // As the operator reads it: one line per difference, then what it means; exit 1.
      const said = await told(() => verifyNight(Number(first), { db: db }));
      expect(said.status).toBe(1);
      expect(said.stderr).toContain(`check run ${first} does not re-perform`);
    } finally {
      await changeMirror(
        db,
        'UPDATE gift_card_transactions SET amount_cents = ? WHERE transaction_id = ?',
        entry.amount_cents,
        entry.transaction_id,
      );
    }
    expect((await verify(first)).status).toBe(0);

    // A card's history row deleted: a card read once and never changed, so putting its row back restores it.
    const [history] = await rowsOfMirror<{
      gift_card_id: string;
      sync_run_id: number;
      read_at_ms: number;
      status: string;
      remaining_balance_cents: number | null;
      version: number;
    }>(
      db,
      `SELECT gift_card_id, sync_run_id, read_at_ms, status, remaining_balance_cents, version FROM gift_card_history
       WHERE gift_card_id IN (SELECT gift_card_id FROM gift_card_history GROUP BY gift_card_id HAVING COUNT(*) = 1)
         AND sync_run_id <= ? ORDER BY gift_card_id LIMIT 1`,
      verified.syncRunId,
    );
    if (!history) throw new Error('a card the first night read and nothing changed since');
    await changeMirror(db, 'DELETE FROM gift_card_history WHERE gift_card_id = ?', history.gift_card_id);
    try {
      const deleted = await verify(first);
      expect(deleted.status).toBe(1);
      expect(deleted.verified.differences).toContainEqual(
        expect.stringMatching(/^Merkle root of the population: sealed/),
      );
    } finally {
      await changeMirror(
        db,
        'INSERT INTO gift_card_history (gift_card_id, sync_run_id, read_at_ms, status, remaining_balance_cents, version) VALUES (?, ?, ?, ?, ?, ?)',
        history.gift_card_id,
        history.sync_run_id,
        history.read_at_ms,
        history.status,
        history.remaining_balance_cents,
        history.version,
      );
    }
    expect((await verify(first)).status).toBe(0);
  }, 120_000);

  it("re-performs each night's coupons, orders and wallets as of its sync, and names a coupon's past changed by SQL", async () => {
    // Orders were placed and fulfilled between the nights: each night still compares its own lists.
    for (const run of nights) {
      const text = await told(() => verifyNight(Number(run), { db: db }));
      expect(text.status, text.stderr).toBe(0);
      expect(text.stdout).toContain('the month to date and the coupons, DP orders and wallets as of its sync');
    }
    const first = nights[0]!;
    const [version] = await rowsOfMirror<{ version_id: number }>(
      db,
      'SELECT version_id FROM coupon_versions WHERE sync_run_id <= ? AND raw_json IS NOT NULL ORDER BY coupon_id LIMIT 1',
      (await verify(first)).verified.syncRunId,
    );
    if (!version) throw new Error('the first night read a coupon');
    const edit = (sql: string) => changeMirror(db, sql, version.version_id);
    await edit("UPDATE coupon_versions SET raw_json = raw_json || ' ' WHERE version_id = ?");
    try {
      const changed = await verify(first);
      expect(changed.status).toBe(1);
      expect(changed.verified.differences.some((d) => d.startsWith('coupons Merkle root: sealed '))).toBe(true);
    } finally {
      await edit(
        'UPDATE coupon_versions SET raw_json = SUBSTR(raw_json, 1, LENGTH(raw_json) - 1) WHERE version_id = ?',
      );
    }
    expect((await verify(first)).status).toBe(0);
    // Orders moved after the first night (placed, fulfilled): it compared them as they were then.
    const [moved] = await rowsOfMirror<{ n: number }>(
      db,
      'SELECT COUNT(*) AS n FROM dp_order_versions WHERE sync_run_id > ?',
      (await verify(first)).verified.syncRunId,
    );
    expect(Number(moved?.n)).toBeGreaterThan(0);
  }, 120_000);

  it('drafts the checks over coupons, DP orders and wallets again over the lists as of each night, and names a finding a kept coupon changed by SQL would make', async () => {
    let drafted = 0;
    for (const run of nights) {
      const { status, verified } = await verify(run);
      expect(status, verified.differences.join('\n')).toBe(0);
      const listFindings = (verified as Verified & { listFindings?: number }).listFindings;
      expect(listFindings).toBeTypeOf('number');
      drafted += listFindings ?? 0;
    }
    // The planted world's coupon and order breaks are drafted again, each one the night stated.
    expect(drafted).toBeGreaterThan(0);
    const first = nights[0]!;
    const sync = (await verify(first)).verified.syncRunId;
    // A coupon the first night read with room under its limit: its kept record made over-redeemed.
    const versions = await rowsOfMirror<{ version_id: number; raw_json: string }>(
      db,
      `SELECT v.version_id, v.raw_json FROM coupon_versions v WHERE v.sync_run_id <= ? AND v.raw_json IS NOT NULL
       AND v.version_id = (SELECT MAX(w.version_id) FROM coupon_versions w WHERE w.coupon_id = v.coupon_id AND w.sync_run_id <= ?)
       ORDER BY v.coupon_id`,
      sync,
      sync,
    );
    const version = versions.find((v) => {
      const coupon = JSON.parse(v.raw_json) as { status: string; redemptionCount: number; usageLimitTotal: number };
      return (
        coupon.status === 'ACTIVE' && coupon.usageLimitTotal > 1 && coupon.redemptionCount < coupon.usageLimitTotal
      );
    });
    if (!version) throw new Error('the first night read an active coupon under its limit');
    const coupon = JSON.parse(version.raw_json) as { redemptionCount: number; usageLimitTotal: number };
    const overRedeemed = JSON.stringify({ ...coupon, redemptionCount: coupon.usageLimitTotal + 1 });
    const put = (raw: string) =>
      changeMirror(db, 'UPDATE coupon_versions SET raw_json = ? WHERE version_id = ?', raw, version.version_id);
    await put(overRedeemed);
    try {
      const changed = await verify(first);
      expect(changed.status).toBe(1);
      expect(changed.verified.differences).toContainEqual(
        expect.stringMatching(/^finding CV_OVER_REDEEMED [0-9a-f]+: found again now, not among the night's findings$/),
      );
    } finally {
      await put(version.raw_json);
    }
    expect((await verify(first)).status).toBe(0);
  }, 120_000);

  it('compares the wallets alone of a night older than the versions of a mirror made before them', async () => {
    // What migration 0019 leaves in a mirror made before it: the lists as they stand, as of the newest sync.
    const statements = (tables: string[], sql: (table: string) => string) =>
      tables.reduce((done, table) => done.then(() => changeMirror(db, sql(table))), Promise.resolve());
    const lists = ['coupon_versions', 'dp_order_versions'];
    await statements(lists, (table) => `CREATE TABLE saved_${table} AS SELECT * FROM ${table}`);
    try {
      await statements(lists, (table) => `DELETE FROM ${table}`);
      await changeMirror(
        db,
        'INSERT INTO coupon_versions (coupon_id, sync_run_id, raw_json) SELECT coupon_id, (SELECT MAX(sync_run_id) FROM sync_runs), raw_json FROM coupons WHERE vanished_sync_run_id IS NULL',
      );
      await changeMirror(
        db,
        'INSERT INTO dp_order_versions (order_id, sync_run_id, raw_json, currency, total_amount_cents) SELECT order_id, (SELECT MAX(sync_run_id) FROM sync_runs), raw_json, currency, total_amount_cents FROM dp_orders WHERE vanished_sync_run_id IS NULL',
      );
      const old = await told(() => verifyNight(Number(nights[0]), { db: db }));
      expect(old.status, old.stderr).toBe(0);
      expect(old.stdout).toMatch(
        /the DP wallets \(its coupons and orders predate sync \d+, from which the mirror keeps them/,
      );
    } finally {
      await statements(lists, (table) => `DELETE FROM ${table}`);
      await statements(lists, (table) => `INSERT INTO ${table} SELECT * FROM saved_${table}`);
      await statements(lists, (table) => `DROP TABLE saved_${table}`);
    }
    expect((await verify(nights[0]!)).verified.identical).toBe(true);
  }, 120_000);

  it('names an acceptance dated back before a night that stated the finding open', async () => {
    const [first, last] = [nights[0]!, nights.at(-1)!];
    // A break the first night found and the last still finds, unchanged.
    const [found] = await rowsOfMirror<{ fingerprint: string }>(
      db,
      `SELECT a.fingerprint FROM findings a JOIN findings b ON b.fingerprint = a.fingerprint AND b.detail_sha256 = a.detail_sha256
       WHERE a.check_run_id = ? AND b.check_run_id = ? AND a.state <> 'accepted' ORDER BY a.fingerprint LIMIT 1`,
      first,
      last,
    );
    if (!found) throw new Error('the planted world keeps a break from the first night to the last');
    await acceptAt(db, { fingerprint: found.fingerprint, note: 'explained', by: 'auditor' });
    try {
      // Accepted today, after every night: no night should have honoured it.
      expect((await verify(first)).status).toBe(0);
      await changeMirror(
        db,
        'UPDATE finding_acceptances SET accepted_at_ms = 0 WHERE fingerprint = ?',
        found.fingerprint,
      );
      const backDated = await verify(first);
      expect(backDated.status).toBe(1);
      expect(backDated.verified.differences).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^acceptance of [A-Z_]+ ${found.fingerprint}: dated 1970-01-01T00:00:00.000Z, before this night, which stated the finding (new|open)`,
          ),
        ),
      );
    } finally {
      // The mirror as it was: the acceptance gone, and its history row too (a night after it reads none).
      await changeMirror(db, 'DELETE FROM finding_acceptances WHERE fingerprint = ?', found.fingerprint);
      await changeMirror(db, 'DELETE FROM finding_acceptance_history WHERE fingerprint = ?', found.fingerprint);
    }
  }, 60_000);

  it("names a finding's standing changed in the mirror's past: its state, and the night it was first seen", async () => {
    const [second, last] = [nights[1]!, nights.at(-1)!];
    // A card break the second night stated open (first seen the night before), still found by the last.
    const [found] = await rowsOfMirror<{ fingerprint: string; code: string; first_seen_check_run_id: number }>(
      db,
      `SELECT fingerprint, code, first_seen_check_run_id FROM findings
       WHERE check_run_id = ? AND state = 'open' AND code LIKE 'GC_%' AND code <> 'GC_IN_FLIGHT' ORDER BY fingerprint LIMIT 1`,
      second,
    );
    if (!found) throw new Error('the planted world keeps a card break open from the first night to the second');
    const where = 'WHERE check_run_id = ? AND fingerprint = ?';
    await changeMirror(db, `UPDATE findings SET state = 'new' ${where}`, second, found.fingerprint);
    try {
      const changed = await verify(second);
      expect(changed.status).toBe(1);
      expect(changed.verified.differences).toContain(
        `finding ${found.code} ${found.fingerprint} (${await recordOf(second, found.fingerprint)}): stated new, re-performed open`,
      );
    } finally {
      await changeMirror(db, `UPDATE findings SET state = 'open' ${where}`, second, found.fingerprint);
    }
    await changeMirror(db, `UPDATE findings SET first_seen_check_run_id = ? ${where}`, last, second, found.fingerprint);
    try {
      const changed = await verify(second);
      expect(changed.status).toBe(1);
      expect(changed.verified.differences).toContain(
        `finding ${found.code} ${found.fingerprint} (${await recordOf(second, found.fingerprint)}): stated first seen in check run ${last}, re-performed ${found.first_seen_check_run_id}`,
      );
    } finally {
      await changeMirror(
        db,
        `UPDATE findings SET first_seen_check_run_id = ? ${where}`,
        found.first_seen_check_run_id,
        second,
        found.fingerprint,
      );
    }
    expect((await verify(second)).status).toBe(0);
  }, 60_000);

  it('says what would change under other settings, the sealed night untouched', async () => {
    const first = nights[0]!;
    const count = async () =>
      JSON.stringify(
        await rowsOfMirror(db, 'SELECT COUNT(*) AS n FROM findings UNION ALL SELECT COUNT(*) FROM check_runs'),
      );
    const before = await count();
    const result = await told(() =>
      whatIfRun(first, ['double-debit-window-seconds=0', 'fail-on=never', 'materiality=USD=0.01'], db),
    );
    expect(result.status, result.stderr).toBe(0);
    const what = result.record as {
      disappear: { code: string; fingerprint: string }[];
      appear: unknown[];
      verdict: { stated: string; whatIf: string };
      exitCode: { stated: number; whatIf: number };
      material: { currency: string; stakeCents: number; fingerprint: string }[];
    };
    // The planted double debit is no double debit in a window of no time at all.
    expect(what.disappear.map((f) => f.code)).toContain('GC_SUSPECTED_DOUBLE_DEBIT');
    expect(what.appear).toEqual([]);
    expect(what.exitCode).toEqual({ stated: 1, whatIf: 0 });
    expect(what.verdict.whatIf).toBe('BREAKS');
    expect(what.material.length).toBeGreaterThan(0);
    expect(what.material.every((f) => f.currency === 'USD' && f.stakeCents >= 1)).toBe(true);
    // Material after the change: a finding the change makes disappear is not among them.
    const gone = new Set(what.disappear.map((f) => f.fingerprint));
    expect(what.material.filter((f) => gone.has(f.fingerprint))).toEqual([]);
    // The night as sealed: the same rows, and it still re-performs.
    expect(await count()).toBe(before);
    expect((await verify(first)).status).toBe(0);
    // The books' matching options too: this world's nights had no books, so nothing changes.
    const books = await told(() => whatIfRun(first, ['books-window-hours=1'], db));
    expect(books.status, books.stderr).toBe(0);
    expect(books.stdout).toContain('  the findings: the same\n');
  }, 60_000);

  it('says what the checks over DP orders would find under another SLA, over the orders as of the night', async () => {
    const first = nights[0]!;
    const whatIf = async (hours: number) => {
      const result = await told(() => whatIfRun(first, [`stuck-order-sla-hours=${hours}`], db));
      expect(result.status, result.stderr).toBe(0);
      return result.record as { appear: { code: string }[]; disappear: { code: string }[] };
    };
    const stuck = (fs: { code: string }[]) => fs.filter((f) => f.code === 'DP_STUCK_ORDER').length;
    const [stated] = await rowsOfMirror<{ n: number }>(
      db,
      "SELECT COUNT(*) AS n FROM findings WHERE check_run_id = ? AND code = 'DP_STUCK_ORDER'",
      first,
    );
    // An SLA of about a century: no order the night read is stuck.
    const lenient = await whatIf(876_000);
    expect(stuck(lenient.disappear)).toBe(Number(stated?.n));
    expect(lenient.appear).toEqual([]);
    // No SLA at all: every order the night read open is stuck, some of them not stated stuck by the night.
    const strict = await whatIf(0);
    expect(strict.disappear).toEqual([]);
    expect(stuck(strict.appear)).toBeGreaterThan(0);
    expect(strict.appear.every((f) => f.code === 'DP_STUCK_ORDER')).toBe(true);
  }, 60_000);

  it("re-performs the month's close over the mirror's history at the sync it read, after later nights", async () => {
    const result = await told(() => verifyClose(month, { db: db }));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^re-performed the close of ${month} \\(sync \\d+, data as of .*\\): identical: closing outstanding ([A-Z]{3} [\\d,]+\\.\\d\\d(, )?)+; (ties out|DOES NOT TIE OUT) as sealed\n$`,
      ),
    );
    // An entry the close read, changed by SQL: the close no longer re-performs.
    const [entry] = await rowsOfMirror<{ transaction_id: string }>(
      db,
      // One of the closed month where the close read one: an earlier month's debit is not the month's.
      "SELECT transaction_id FROM gift_card_transactions WHERE first_sync_run_id <= 2 AND type = 'DEBIT' AND amount_cents IS NOT NULL ORDER BY CASE WHEN created_at_ms >= ? THEN 0 ELSE 1 END, transaction_id LIMIT 1",
      monthStartMs(),
    );
    const change = (by: number) =>
      changeMirror(
        db,
        'UPDATE gift_card_transactions SET amount_cents = amount_cents + ?, balance_after_cents = balance_after_cents - ? WHERE transaction_id = ?',
        by,
        by,
        entry!.transaction_id,
      );
    await change(1);
    try {
      const changed = await told(() => verifyClose(month, { db: db }));
      expect(changed.status).toBe(1);
      expect(changed.stderr).toContain(`the close of ${month} does not re-perform`);
    } finally {
      await change(-1);
    }
  }, 60_000);

  it('re-performs a night whose entries the service rewrote since, from the figures their versions keep', async () => {
    const first = nights[0]!;
    const { verified } = await verify(first);
    // A debit the first night read, on a card with an earlier entry: the service rewrites its
    // amount and moves it before that entry, and a --full night reads the rewrite.
    const [entry] = await rowsOfMirror<{ transaction_id: string; gift_card_id: string; earliest: number }>(
      db,
      `SELECT t.transaction_id, t.gift_card_id, (SELECT MIN(e.created_at_ms) FROM gift_card_transactions e WHERE e.gift_card_id = t.gift_card_id) AS earliest
       FROM gift_card_transactions t WHERE t.first_sync_run_id <= ? AND t.type = 'DEBIT' AND t.amount_cents > 100
       AND t.created_at_ms > (SELECT MIN(e.created_at_ms) FROM gift_card_transactions e WHERE e.gift_card_id = t.gift_card_id)
       ORDER BY t.transaction_id LIMIT 1`,
      verified.syncRunId,
    );
    if (!entry) throw new Error('the first night read a debit after another entry of its card');
    sim.mutate.rewriteEntry(entry.transaction_id, {
      amount: 0.01,
      createdAt: new Date(Number(entry.earliest) - 60_000).toISOString(),
    });
    const rewritten = await fullNight();
    const [version] = await rowsOfMirror<{ previous_amount_cents: number | null; change: string }>(
      db,
      'SELECT previous_amount_cents, change FROM gift_card_transaction_versions WHERE transaction_id = ?',
      entry.transaction_id,
    );
    expect(version?.change).toBe('changed');
    expect(Number(version?.previous_amount_cents)).toBeGreaterThan(100);
    // Every earlier night re-performs as it read the entry then, and says nothing is read as now.
    for (const run of nights) {
      const again = await told(() => verifyNight(Number(run), { db: db }));
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain('identical');
      expect(again.stdout).not.toContain('read as they are now');
    }
    const latest = rewritten;
    const latestVerified = (await verify(latest.runId)).verified;
    expect(latestVerified.identical, latestVerified.differences.join('\n')).toBe(true);
    // The night that read the rewrite stated it (GC_LEDGER_REWRITTEN); with the version it kept
    // deleted by SQL, the night is no longer re-performed, and the finding is named.
    const [kept] = await rowsOfMirror<Record<string, unknown>>(
      db,
      'SELECT * FROM gift_card_transaction_versions WHERE transaction_id = ?',
      entry.transaction_id,
    );
    if (!kept) throw new Error('the rewrite was kept');
    await changeMirror(db, 'DELETE FROM gift_card_transaction_versions WHERE transaction_id = ?', entry.transaction_id);
    try {
      const changed = await verify(latest.runId);
      expect(changed.status).toBe(1);
      expect(changed.verified.differences).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^finding GC_LEDGER_REWRITTEN [0-9a-f]+ \\(giftCardTransaction ${entry.transaction_id}\\): among the night's findings, not found again now$`,
          ),
        ),
      );
    } finally {
      const columns = Object.keys(kept);
      await changeMirror(
        db,
        `INSERT INTO gift_card_transaction_versions (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        ...columns.map((column) => kept[column]),
      );
    }
    expect((await verify(latest.runId)).status).toBe(0);
  }, 180_000);

  it('re-performs a night whose cards the service changed since in fields it keeps no history of by status or balance', async () => {
    const first = nights[0]!;
    const { verified } = await verify(first);
    // A card the first night read ACTIVE: the service moves its expiry into the past, its
    // status, balance and version untouched, and a --full night reads the change.
    const [card] = await rowsOfMirror<{ gift_card_id: string }>(
      db,
      `SELECT gift_card_id FROM gift_cards WHERE first_sync_run_id <= ? AND status = 'ACTIVE' AND expires_at_ms > ?
       ORDER BY gift_card_id LIMIT 1`,
      verified.syncRunId,
      testNow() + 86_400_000,
    );
    if (!card) throw new Error('the first night read an ACTIVE card expiring later');
    sim.mutate.setCard(card.gift_card_id, { expiresAt: new Date(testNow() - 3 * 86_400_000).toISOString() });
    const changed = await fullNight();
    const latest = changed;
    const overdue = await rowsOfMirror<{ code: string }>(
      db,
      "SELECT code FROM findings WHERE check_run_id = ? AND entity_id = ? AND code = 'GC_EXPIRY_OVERDUE'",
      latest.runId,
      card.gift_card_id,
    );
    expect(overdue).toHaveLength(1);
    // Every earlier night re-performs with the expiry it read then.
    for (const run of nights) {
      const again = await told(() => verifyNight(Number(run), { db: db }));
      expect(again.status, again.stdout + again.stderr).toBe(0);
      expect(again.stdout).toContain('identical');
    }
    const latestVerified = (await verify(latest.runId)).verified;
    expect(latestVerified.identical, latestVerified.differences.join('\n')).toBe(true);
  }, 180_000);

  it('refuses in one line a mirror an older version made, which a writing command migrates first', async () => {
    // The mirror as an older version leaves it: its newest migration not applied.
    const [newest] = await rowsOfMirror<{ hash: string; created_at: number }>(
      db,
      'SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at DESC LIMIT 1',
    );
    if (!newest) throw new Error('the mirror records its migrations');
    await changeMirror(db, 'DELETE FROM __drizzle_migrations WHERE hash = ?', newest.hash);
    try {
      const old = await told(() => verifyNight(Number(nights[0]), { db: db }));
      expect(old.status).toBe(2);
      expect(old.stderr).toMatch(
        /^ledger-recon: the mirror .* was made by an older ledger-recon \(schema \d+; this version knows \d+\): the next writing command \(ledger-recon run, sync, report or close\) brings it up to date; then read it again\n$/,
      );
    } finally {
      await changeMirror(
        db,
        'INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)',
        newest.hash,
        newest.created_at,
      );
    }
    expect((await verify(nights[0]!)).status).toBe(0);
  });

  it('re-performs the entries under one idempotency key and the orphaned entries as each night saw them, after the service re-keyed one; each changed in the past by SQL is named', async () => {
    const first = nights[0]!;
    const findingOf = async (code: string) => {
      const [found] = await rowsOfMirror<{ entity_id: string }>(
        db,
        'SELECT entity_id FROM findings WHERE check_run_id = ? AND code = ? ORDER BY fingerprint LIMIT 1',
        first,
        code,
      );
      if (!found) throw new Error(`the planted world's first night states ${code}`);
      return found.entity_id;
    };
    await findingOf('GC_DUPLICATE_IDEMPOTENCY_KEY');
    const orphan = await findingOf('GC_ORPHAN_ENTRY');
    // The newest of the entries the first night found under one key.
    const [shared] = await rowsOfMirror<{ transaction_id: string; idempotency_key: string }>(
      db,
      `SELECT transaction_id, idempotency_key FROM gift_card_transactions
       WHERE idempotency_key IN (SELECT idempotency_key FROM gift_card_transactions WHERE first_sync_run_id <= ? GROUP BY idempotency_key HAVING COUNT(*) > 1)
       ORDER BY entry_id DESC LIMIT 1`,
      (await verify(first)).verified.syncRunId,
    );
    if (!shared) throw new Error('the first night read two entries under one key');
    /** An entry's column set by SQL in the mirror's past: the first night names the finding it stated and no longer drafts; put back after. */
    const namedWhenChanged = async (
      column: string,
      transactionId: string,
      value: unknown,
      code: string,
      record: string,
    ) => {
      const [was] = await rowsOfMirror<Record<string, unknown>>(
        db,
        `SELECT ${column} AS value FROM gift_card_transactions WHERE transaction_id = ?`,
        transactionId,
      );
      const set = (to: unknown) =>
        changeMirror(db, `UPDATE gift_card_transactions SET ${column} = ? WHERE transaction_id = ?`, to, transactionId);
      await set(value);
      try {
        const changed = await verify(first);
        expect(changed.status).toBe(1);
        expect(changed.verified.differences).toContainEqual(
          expect.stringMatching(
            new RegExp(`^finding ${code} [0-9a-f]+ \\(${record}\\): among the night's findings, not found again now$`),
          ),
        );
      } finally {
        await set(was?.value);
      }
    };
    // Its key changed: the duplicate the night stated is no longer drafted.
    await namedWhenChanged(
      'idempotency_key',
      shared.transaction_id,
      'changed-by-sql',
      'GC_DUPLICATE_IDEMPOTENCY_KEY',
      'giftCard [\\w-]+',
    );
    // The orphaned entry moved onto a card the night had: its finding is no longer drafted.
    const [card] = await rowsOfMirror<{ id: string }>(db, 'SELECT MIN(gift_card_id) AS id FROM gift_cards');
    await namedWhenChanged('gift_card_id', orphan, card?.id, 'GC_ORPHAN_ENTRY', `giftCardTransaction ${orphan}`);
    expect((await verify(first)).status).toBe(0);

    // The service re-keys the entry, and a --full night reads it: every night re-performs with the key it saw.
    sim.mutate.rewriteEntry(shared.transaction_id, { idempotencyKey: `${shared.idempotency_key}-rekeyed` });
    const rekeyed = await fullNight();
    const [now] = await rowsOfMirror<{ idempotency_key: string }>(
      db,
      'SELECT idempotency_key FROM gift_card_transactions WHERE transaction_id = ?',
      shared.transaction_id,
    );
    expect(now?.idempotency_key).toBe(`${shared.idempotency_key}-rekeyed`);
    for (const run of [...nights, rekeyed.runId]) {
      const again = await verify(run);
      expect(again.verified.differences, `check run ${run}`).toEqual([]);
      expect(again.status).toBe(0);
    }
  }, 180_000);

  it("re-performs each night's rejected records from the syncs that rejected them, after later syncs rejected them again; a sighting deleted by SQL is named", async () => {
    const first = nights[0]!;
    const { verified } = await verify(first);
    expect(verified).toMatchObject({ identical: true, rejectionsKept: true });
    // A record the first night's sync rejected, and a later sync (the --full night) rejected again.
    const [rejected] = await rowsOfMirror<{ quarantine_id: number; resource: string; last_sync_run_id: number }>(
      db,
      `SELECT q.quarantine_id, q.resource, q.last_sync_run_id FROM quarantine q JOIN quarantine_sightings s ON s.quarantine_id = q.quarantine_id
       WHERE s.sync_run_id = ? AND q.resource <> 'giftCardTransactions' ORDER BY q.quarantine_id LIMIT 1`,
      verified.syncRunId,
    );
    if (!rejected) throw new Error("the planted world's first sync rejected a record other than an entry");
    expect(Number(rejected.last_sync_run_id)).toBeGreaterThan(verified.syncRunId);
    expect(verified.differences).toEqual([]);
    await changeMirror(
      db,
      'DELETE FROM quarantine_sightings WHERE quarantine_id = ? AND sync_run_id = ?',
      rejected.quarantine_id,
      verified.syncRunId,
    );
    try {
      const deleted = await verify(first);
      expect(deleted.status).toBe(1);
      expect(deleted.verified.differences).toContainEqual(
        expect.stringMatching(
          /^finding SYNC_REJECTED_RECORD [0-9a-f]+ \(\w+ [^)]+\): among the night's findings, not found again now$/,
        ),
      );
    } finally {
      await changeMirror(
        db,
        'INSERT INTO quarantine_sightings (quarantine_id, sync_run_id) VALUES (?, ?)',
        rejected.quarantine_id,
        verified.syncRunId,
      );
    }
    const text = await told(() => verifyNight(Number(first), { db: db }));
    expect(text.stdout).toContain(
      "GC_ORPHAN_ENTRY's, GC_LISTED_NOT_FOUND's, GC_IN_FLIGHT's and SYNC_REJECTED_RECORD's)",
    );
    // Its books (none) matched again too: nothing of the night is left out.
    expect(text.stdout).toContain(
      ", the books' checks (no books had been imported by then: nothing to match) and their standing",
    );
    expect(text.stdout).not.toContain('not yet');
  });

  it('says in one line why a run cannot be re-performed', async () => {
    const result = await told(() => verifyNight(999, { db: db }));
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'ledger-recon: check run 999 is not a completed run of this mirror: see `ledger-recon history`\n',
    );
  });
});

describe('verify --run, the acceptances as they stood', () => {
  let own: string;
  let ownDb: string;
  let ownSim: Simulator;

  beforeAll(async () => {
    own = mkdtempSync(join(tmpdir(), 'ledger-recon-reperform-accepted-'));
    ownDb = mirrorAt(own);
    ownSim = await startSimulator({ seed: 62, size: 'tiny', plant: true });
  }, 60_000);

  afterAll(async () => {
    await ownSim.close();
    rmSync(own, { recursive: true, force: true });
  });

  const night = async (): Promise<number> => {
    const { result } = await nightOf(ownSim, ownDb, join(own, 'reports'));
    if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
    return result.record.runId;
  };
  const accept = async (fingerprint: string, note: string) => {
    await acceptAt(ownDb, { fingerprint, note, by: 'controller' });
  };
  const verifyOwn = (run: number) => verify(run, ownDb);

  it('re-performs a night that honoured an acceptance replaced since, and names its history row deleted', async () => {
    const first = await night();
    const [found] = await rowsOfMirror<{ fingerprint: string; code: string; entity_type: string; entity_id: string }>(
      ownDb,
      `SELECT fingerprint, code, entity_type, entity_id FROM findings
       WHERE check_run_id = ? AND code LIKE 'GC_%' AND code <> 'GC_IN_FLIGHT' ORDER BY fingerprint LIMIT 1`,
      first,
    );
    if (!found) throw new Error('the planted world has a card break on its first night');
    await accept(found.fingerprint, 'explained by the partner');
    const second = await night();
    const [stated] = await rowsOfMirror<{ state: string }>(
      ownDb,
      'SELECT state FROM findings WHERE check_run_id = ? AND fingerprint = ?',
      second,
      found.fingerprint,
    );
    expect(stated?.state).toBe('accepted');
    // Accepted again after the second night, with another note: the acceptance in force now is a later one.
    await accept(found.fingerprint, 'explained again, with the partner’s letter');
    const { status, verified } = await verifyOwn(second);
    expect(status, verified.differences.join('\n')).toBe(0);
    expect(verified.differences).toEqual([]);
    // The acceptance the second night honoured, deleted from the history: the night is no longer re-performed.
    await changeMirror(
      ownDb,
      'DELETE FROM finding_acceptance_history WHERE history_id = (SELECT MIN(history_id) FROM finding_acceptance_history WHERE fingerprint = ?)',
      found.fingerprint,
    );
    const changed = await verifyOwn(second);
    expect(changed.status).toBe(1);
    expect(changed.verified.differences).toContain(
      `finding ${found.code} ${found.fingerprint} (${found.entity_type} ${found.entity_id}): stated accepted, re-performed open`,
    );
  }, 120_000);
});

describe('verify after the mirror was rebound to other services', () => {
  let own: string;
  let ownDb: string;
  let before: Simulator;
  let after: Simulator;

  beforeAll(async () => {
    own = mkdtempSync(join(tmpdir(), 'ledger-recon-reperform-rebound-'));
    ownDb = mirrorAt(own);
    before = await startSimulator({ seed: 63, size: 'tiny' });
    after = await startSimulator({ seed: 64, size: 'tiny' });
  }, 60_000);

  afterAll(async () => {
    await before.close();
    await after.close();
    rmSync(own, { recursive: true, force: true });
  });

  it('refuses in one line a night and a close from before the rebind, and re-performs the nights after it', async () => {
    const night = async (simulator: Simulator, rebind = false) => {
      const { result } = await nightOf(simulator, ownDb, join(own, 'reports'), rebind ? { rebind } : {});
      if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
      return result.record;
    };
    const first = await night(before);
    const period = first.asOf.slice(0, 7);
    await closeOf(ownDb, join(own, 'reports'), period, testNow());
    expect((await verify(first.runId, ownDb)).status).toBe(0);
    // The mirror moves to other services on purpose: the first services' records leave its current tables.
    const second = await night(after, true);
    const refused = await told(() => verifyNight(Number(first.runId), { db: ownDb }));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^ledger-recon: check run ${first.runId} read sync \\d+, and sync \\d+ rebound the mirror to other services on \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(\`sync --rebind\`\\): the earlier services' cards, coupons and orders left its current tables, so it cannot be rebuilt from the mirror; its files still verify offline \\(\`ledger-recon verify --dir <its reports folder>\`\\)\\n$`,
      ),
    );
    const closeRefused = await told(() => verifyClose(period, { db: ownDb }));
    expect(closeRefused.status).toBe(2);
    expect(closeRefused.stderr).toMatch(
      new RegExp(`^ledger-recon: the close of ${period} read sync \\d+, and sync \\d+ rebound the mirror`),
    );
    // The night after the rebind reads the services it is bound to: it re-performs.
    const again = await verify(second.runId, ownDb);
    expect(again.verified.differences).toEqual([]);
    expect(again.status).toBe(0);
    // The reports folder still verifies offline, across the rebind.
    expect((await verifyFolderAt(join(own, 'reports'))).identical).toBe(true);
  }, 180_000);
});
