/**
 * The edge against a hostile or broken service: the project's own hostile server stands in
 * front of the simulator, one switch per attack. Each case asserts what the product promises:
 * no secret, voucher code or PIN in any byte under the mirror's folder or the outputs; the night
 * completes with the bad record quarantined, or stops with exit 2 and one line; within a time
 * budget, and a memory budget (the child's heap is capped at 256 MB).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shownDb } from '../../src/db/location.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { oneFailureLine, runCli, simulatorEnv, type CliResult } from '../support/cli.js';
import { failureOfJob, nightOf, syncOf } from '../support/app.js';
import { journalOf } from '../../src/app/export.js';
import { queryMirror } from '../../src/app/sql.js';
import type { Config } from '../../src/config.js';
import { dpConfig, giftcardConfig } from '../support/simulator.js';
import { startHostile, type Hostile, type Switches } from '../support/hostile.js';
import { hasProgram } from '../support/programs.js';
import { everyTextInMirror, mirrorAt, ON_POSTGRES, rowsOfMirror } from '../support/test-db.js';

let sim: Simulator;
let hostile: Hostile | undefined;
let dir: string;
/** The mirror of the last night, where its secrets must not be. */
let lastDb = '';
/** Plaintext that must never be stored: both secrets, every voucher code and PIN of the simulator's world. */
let forbidden: string[];

beforeAll(async () => {
  // Enough records for lists of several pages (cursors), few enough for a night of a second.
  sim = await startSimulator({
    seed: 191,
    size: { cards: 230, entriesPerCard: 2, coupons: 8, products: 4, orders: 10 },
  });
  const truth = sim.truth();
  const vouchers = truth.orders.flatMap((order) => order.lineItems.flatMap((line) => line.vouchers));
  forbidden = [
    sim.credentials.giftcard.clientSecret,
    sim.credentials.dp.clientSecret,
    ...vouchers.flatMap((v) => [v.voucherCode, v.voucherPin]),
  ];
  expect(vouchers.length).toBeGreaterThan(2);
});
afterAll(async () => {
  await sim.close();
});
afterEach(async () => {
  await hostile?.close();
  hostile = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Night {
  result: CliResult;
  /** It ended by itself within its bound (else it was killed). */
  ended: boolean;
  db: string;
  out: string;
}

/** The services as the hostile front serves them: `sim`'s credentials, the front's addresses. */
function fronted(served: Simulator, front: Hostile): Config {
  return {
    giftcard: { ...giftcardConfig(served), baseUrl: front.giftcardUrl },
    dp: { ...dpConfig(served), baseUrl: front.dpUrl },
  };
}

/** Runs the CLI against the hostile server with `switches` on, in a fresh folder, heap capped at 256 MB. */
async function night(
  command: string[],
  switches: Switches,
  env: Record<string, string> = {},
  boundMs = 30_000,
): Promise<Night> {
  hostile ??= await startHostile(sim);
  hostile.switches = switches;
  dir ??= '';
  if (!dir || !statSync(dir, { throwIfNoEntry: false })) dir = mkdtempSync(join(tmpdir(), 'ledger-recon-hostile-'));
  const db = mirrorAt(join(dir, 'mirror'));
  lastDb = db;
  const out = join(dir, 'reports');
  // sync is quiet: its progress lines are not what is under test.
  const result = await runCli(
    [...command, '--db', db, ...(command[0] === 'run' ? ['--out', out] : ['--quiet'])],
    {
      ...simulatorEnv(sim),
      GIFTCARD_API_URL: hostile.giftcardUrl,
      DP_API_URL: hostile.dpUrl,
      NODE_OPTIONS: '--max-old-space-size=256',
      ...env,
    },
    { killAfterMs: boundMs },
  );
  // A night still going after its bound is killed: it hung on the hostile service.
  return { result, ended: result.signal === null, db, out };
}

/**
 * Every byte of every file under the night's folder (mirror, WAL and side files, reports) and, on
 * PostgreSQL, every value of the night's schema: none of `extra` nor the forbidden texts.
 */
async function expectNothingStored(extra: readonly string[] = []): Promise<void> {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(dir);
  if (!ON_POSTGRES) expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const bytes = readFileSync(file).toString('latin1');
    for (const text of [...forbidden, ...extra]) expect(holds(bytes, text), `${text} in ${file}`).toBe(false);
  }
  const stored = await everyTextInMirror(lastDb);
  for (const text of [...forbidden, ...extra])
    expect(holds(stored, text), `${text} in the mirror's schema`).toBe(false);
}

/**
 * Whether `text` holds `secret`. A PIN is a few digits: it counts only as a value of its own,
 * not inside a longer run of letters and digits (a timestamp in ms, a SHA-256 in hex), where any
 * six digits turn up by chance (CI met a voucher PIN inside a night's numbers).
 */
function holds(text: string, secret: string): boolean {
  if (!/^\d{1,8}$/.test(secret)) return text.includes(secret);
  return new RegExp(`(?<![0-9A-Za-z])${secret}(?![0-9A-Za-z])`).test(text);
}

function oneLine(result: CliResult): string {
  return oneFailureLine(result, forbidden.slice(0, 2));
}

const query = <T>(db: string, sql: string): Promise<T[]> => rowsOfMirror<T>(db, sql);

describe('secrets and codes are never stored', () => {
  it('hashes voucher codes that arrive as a number, as an object, or in an unknown field of a card, and drops PINs', async () => {
    const codes = { number: 987_650_123_456_789, object: 'HOSTILE-OBJECT-CODE-7f3a' };
    const cards = { code: 'HOSTILE-CARD-CODE-91bd', pin: 'HOSTILE-PIN-5521' };
    const { result, ended, db } = await night(['sync', '--json'], {
      voucherCodeNotString: codes,
      voucherFieldOnCards: cards,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(ended).toBe(true);
    expect(JSON.parse(result.stdout)).toMatchObject({ completed: true });
    const quarantined = await query<{ resource: string; raw_json: string }>(
      db,
      'SELECT resource, raw_json FROM quarantine',
    );
    expect(quarantined.map((q) => q.resource)).toContain('dpOrders');
    expect(quarantined.find((q) => q.resource === 'dpOrders')?.raw_json).toContain('voucherCodeSha256');
    const card = (await query<{ raw_json: string }>(db, 'SELECT raw_json FROM gift_cards LIMIT 1'))[0];
    expect(card?.raw_json).toContain('voucher_codeSha256');
    await expectNothingStored([String(codes.number), codes.object, cards.code, cards.pin]);
  });

  it('never stores a secret the services echo back in their records', async () => {
    const { result, db } = await night(['run'], { echoSecrets: true });
    expect(result.status, result.stderr).not.toBe(2);
    expect((await query<{ raw_json: string }>(db, 'SELECT raw_json FROM gift_cards LIMIT 1'))[0]?.raw_json).toContain(
      'echo [redacted] echo',
    );
    // A secret echoed as a reference is redacted in its own column too, and so in every export.
    expect(
      (
        await query<{ reference_id: string }>(
          db,
          "SELECT reference_id FROM gift_card_transactions WHERE reference_id LIKE '%[redacted]'",
        )
      ).length,
    ).toBeGreaterThan(0);
    await journalOf(db, { path: join(dir, 'ledger.journal') });
    await expectNothingStored();
  });

  it('never stores a cursor that carries the secret: the walk restarts, then stops with one line; sync --json and sync_runs hold no secret', async () => {
    const { result, ended, db } = await night(['sync', '--json'], { secretInCursor: '/v1/giftCards' });
    expect(oneLine(result)).toMatch(
      /^ledger-recon: the gift card service refused a pagination cursor \(BAD_REQUEST\) at \/v1\/giftCards\?.*\[redacted\]/,
    );
    expect(ended).toBe(true);
    expect(JSON.parse(result.stdout)).toMatchObject({ completed: false, error: expect.stringContaining('[redacted]') });
    expect(
      (await query<{ error: string }>(db, "SELECT error FROM sync_runs WHERE status = 'failed'"))[0]?.error,
    ).toContain('[redacted]');
    await expectNothingStored();
  });

  it('parses the data as sent when the secret occurs in it (a secret of ACTIVE): every card mirrored, only what is stored redacted, the night reconciles', async () => {
    const { result, db } = await night(
      ['run', '--json'],
      { giftcardSecretAs: 'ACTIVE' },
      { GIFTCARD_CLIENT_SECRET: 'ACTIVE' },
    );
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ verdict: 'RECONCILED' });
    expect((await query<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM gift_cards'))[0]?.n).toBeGreaterThanOrEqual(230);
    expect((await query<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM quarantine'))[0]?.n).toBe(0);
    expect(
      (await query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM gift_cards WHERE status = 'ACTIVE'"))[0]?.n,
    ).toBeGreaterThan(0);
    expect(
      (await query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM gift_cards WHERE raw_json LIKE '%ACTIVE%'"))[0]?.n,
    ).toBe(0);
  });

  it('calls a night INCOMPLETE, never BREAKS, when not one record of a list could be mirrored', async () => {
    const { result } = await night(['run', '--json'], { cardsInvalid: true });
    expect(result.status).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({
      verdict: 'INCOMPLETE',
      sync: { completed: false },
      error: { code: 'INCOMPLETE', message: expect.stringContaining('giftCards (230 records)') },
    });
    expect(oneLine((await night(['run'], { cardsInvalid: true })).result)).toMatch(
      /^ledger-recon: INCOMPLETE: .*every record the services listed of giftCards \(230 records\) failed validation and was quarantined/,
    );
    const sync = await night(['sync'], { cardsInvalid: true });
    expect(oneLine(sync.result)).toMatch(
      /^ledger-recon: every record the services listed of giftCards \(230 records\)/,
    );
  });
});

describe('a card the service lists but cannot find', () => {
  it('is named on the first night: its entries are GC_ORPHAN_ENTRY breaks saying the card answers 404, and the sync counts it', async () => {
    const small = await startSimulator({ seed: 193, size: 'tiny', cardListShape: 'minimal' });
    const truth = small.truth();
    const lost = truth.giftCards.find((card) =>
      truth.transactions.some((entry) => entry.giftCardId === card.giftCardId),
    )!.giftCardId;
    const front = await startHostile(small, { cardNotFoundById: lost });
    const folder = mkdtempSync(join(tmpdir(), 'ledger-recon-lost-card-'));
    try {
      const config = fronted(small, front);
      const { result } = await nightOf(small, mirrorAt(folder), join(folder, 'reports'), { config });
      if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
      expect(result.record.exitCode).toBe(1);
      const json = result.record;
      expect(json.byCode['GC_ORPHAN_ENTRY']).toBeGreaterThan(0);
      const findings = JSON.parse(readFileSync(json.report.json, 'utf8')) as {
        code: string;
        giftCardId: string;
        message: string;
      }[];
      const orphans = findings.filter((f) => f.code === 'GC_ORPHAN_ENTRY');
      expect(
        orphans.every((f) => f.giftCardId === lost && f.message.includes('which the service answers "not found" for')),
      ).toBe(true);
      expect(findings.filter((f) => f.code === 'GC_IN_FLIGHT')).toEqual([]);
      const sync = await syncOf(small, mirrorAt(folder, 'second'), { config });
      if (!sync.ok) throw sync.error;
      expect(sync.summary.resources['giftCards']?.notes).toMatchObject({ listedNotFound: 1 });
    } finally {
      await front.close();
      await small.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('our merchant', () => {
  it('is what the credentials resolve to, not a vote: 50 foreign cards against our 20 on a first run', async () => {
    const small = await startSimulator({
      seed: 192,
      size: { cards: 20, entriesPerCard: 2, coupons: 2, products: 2, orders: 2 },
    });
    const front = await startHostile(small, { foreignCards: 50 });
    const folder = mkdtempSync(join(tmpdir(), 'ledger-recon-merchant-'));
    try {
      const db = mirrorAt(folder);
      const { result } = await nightOf(small, db, join(folder, 'out'), { config: fronted(small, front) });
      if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
      const json = result.record;
      expect((await query<{ merchant_id: string }>(db, 'SELECT merchant_id FROM check_runs'))[0]?.merchant_id).toBe(
        small.truth().merchantId,
      );
      expect(json.byCode['GC_FOREIGN_MERCHANT']).toBe(50);
      expect(
        (
          await query<{ n: number }>(
            db,
            "SELECT COUNT(*) AS n FROM findings WHERE code = 'GC_FOREIGN_MERCHANT' AND entity_id NOT LIKE '00000000-0000-4000-8000-%'",
          )
        )[0]?.n,
      ).toBe(0);
    } finally {
      await front.close();
      await small.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('a bounded edge', () => {
  it('quarantines a record nested 5,000 levels deep and completes the night', async () => {
    const { result, db } = await night(['sync', '--json'], { deepRecord: 5000 });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ completed: true, quarantined: 1 });
    expect((await query<{ reason: string }>(db, 'SELECT reason FROM quarantine'))[0]?.reason).toMatch(
      /nested deeper than 64 levels/,
    );
    expect((await query<{ n: number }>(db, 'SELECT COUNT(*) AS n FROM gift_card_transactions'))[0]?.n).toBe(
      sim.truth().transactions.length,
    );
    await expectNothingStored();
  });

  it('refuses a body over LEDGER_RECON_MAX_BODY_MB as a fault, then stops with one line, memory bounded', async () => {
    const { result, ended } = await night(
      ['sync'],
      { hugeBodyBytes: 24 * 1024 * 1024 },
      { LEDGER_RECON_MAX_BODY_MB: '2' },
      60_000,
    );
    expect(oneLine(result)).toMatch(
      /^ledger-recon: the gift card service is unavailable at .*: a response body larger than 2,097,152 bytes \(GET \/v1\/coupons\?limit=100, 7 attempts\); if the service's answers are really this large, raise LEDGER_RECON_MAX_BODY_MB$/,
    );
    expect(ended).toBe(true);
  }, 90_000);

  it('stops a list that repeats its records under fresh cursors, at once', async () => {
    const { result, ended } = await night(['sync'], { endlessPages: true });
    expect(oneLine(result)).toMatch(
      /\/v1\/coupons: the service returned on page 2 exactly the records of an earlier page, under a fresh cursor; stopping instead of looping/,
    );
    expect(ended).toBe(true);
  });

  it('stops a list of empty pages that still say hasMore after 100 in a row, with one line', async () => {
    const { result, ended } = await night(['sync'], { emptyEndless: true });
    expect(oneLine(result)).toMatch(
      /\/v1\/coupons: the service returned 100 empty pages in a row that each still said hasMore \(pages 1 to 100\); stopping instead of looping/,
    );
    expect(ended).toBe(true);
  });

  it('fails at once with one line on a Retry-After of an hour, instead of waiting with the lock held', async () => {
    const { result, ended } = await night(['sync'], { retryAfterSeconds: 3600 });
    expect(oneLine(result)).toMatch(
      /asks to be called again in 3600 s \(Retry-After on HTTP 429, GET \/v1\/coupons.*\), longer than the 300 s a run waits: run again later$/,
    );
    expect(ended).toBe(true);
  });

  it('calls a page larger than asked for a protocol violation', async () => {
    const { result } = await night(['sync'], { oversizedPage: true });
    expect(oneLine(result)).toMatch(
      /more than the 100 asked for \(the documented maximum is 100\): a protocol violation$/,
    );
  });

  it('is an authentication error at once on a 401 with an HTML body, never retried', async () => {
    const { result } = await night(['sync'], { htmlRefusal: true });
    expect(oneLine(result)).toMatch(
      /^ledger-recon: the gift card service refused the request with HTTP 401 \(UNKNOWN\): check GIFTCARD_CLIENT_ID and GIFTCARD_CLIENT_SECRET$/,
    );
    // Each walk that ran asked once: nothing was asked twice.
    const urls = hostile?.urls ?? [];
    expect(urls.length).toBeGreaterThan(0);
    expect(new Set(urls).size).toBe(urls.length);
  });
});

describe('exact or rejected', () => {
  it('makes an amount a double cannot carry a finding on its entry, its literal kept in the raw JSON', async () => {
    const { result, db, out } = await night(['run', '--json'], { amountLiteral: '10.000000000000000001' });
    expect(result.status, result.stderr).toBe(1);
    const [entry] = await query<{ transaction_id: string; raw_json: string }>(
      db,
      'SELECT transaction_id, raw_json FROM gift_card_transactions WHERE amount_cents IS NULL',
    );
    expect(entry?.raw_json).toContain('"amount":10.000000000000000001');
    const findings = JSON.parse(readFileSync(JSON.parse(result.stdout).report.json, 'utf8')) as Array<{
      code: string;
      entityId: string;
    }>;
    expect(findings).toContainEqual(
      expect.objectContaining({ code: 'GC_INVALID_AMOUNT', entityId: entry?.transaction_id }),
    );
    expect(out).toBeTruthy();
  });

  it('quarantines a date that names no instant and an identifier that is not the UUID the spec types', async () => {
    const { result, db } = await night(['sync', '--json'], {
      couponExpiresAt: '2025-02-30T00:00:00Z',
      cardId: 'not-a-uuid',
    });
    expect(result.status, result.stderr).toBe(0);
    const reasons = await query<{ resource: string; reason: string }>(
      db,
      'SELECT DISTINCT resource, reason FROM quarantine ORDER BY resource',
    );
    expect(reasons).toEqual([
      { resource: 'coupons', reason: 'expiresAt: not an RFC 3339 timestamp with a zone naming a real instant' },
      { resource: 'giftCards', reason: 'giftCardId: not a UUID, as the spec types it' },
    ]);
  });

  it("keeps a record's raw JSON byte for byte, a __proto__ field included", async () => {
    const { result, db } = await night(['sync'], { protoField: true });
    expect(result.status, result.stderr).toBe(0);
    const rows = await query<{ raw_json: string }>(
      db,
      `SELECT raw_json FROM gift_card_transactions WHERE raw_json LIKE '%__proto__%'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.raw_json.startsWith('{"__proto__":{"polluted":true},"transactionId":')).toBe(true);
  });
});

describe('readers never see a half-built mirror', () => {
  it('refuses sql and export after a first sync stopped mid-ledger, until a sync finishes it', async () => {
    const stopped = await night(['sync'], { secretInCursor: '/v1/giftCards/transactions' });
    expect(oneLine(stopped.result)).toMatch(/refused a pagination cursor/);
    const count = () =>
      queryMirror('SELECT COUNT(*) AS n FROM gift_card_transactions', { format: 'json', db: stopped.db });
    const refused = await failureOfJob(count);
    expect(refused.line).toBe(
      `ledger-recon: the mirror ${shownDb(stopped.db)} is half-built: its first sync is loading the ledger or stopped while loading it, so entries may be listed twice: run ledger-recon sync --db ${shownDb(stopped.db)} to finish it, then read it again`,
    );
    expect((await failureOfJob(() => journalOf(stopped.db, { path: join(dir, 'half.journal') }))).line).toMatch(
      /is half-built/,
    );
    const finished = await night(['sync'], {});
    expect(finished.result.status, finished.result.stderr).toBe(0);
    expect(JSON.parse((await count()).text)).toEqual([{ n: sim.truth().transactions.length }]);
    await expectNothingStored();
  });
});

describe.runIf(hasProgram('hledger', 'hledger'))('journal text is inert', () => {
  it('keeps a hostile reference from adding a transaction or an include to the journal', async () => {
    const hostileReference = 'ORD-1\n2026-01-01 forged\n    assets:cash  5000 EUR\n    income\ninclude /etc/passwd';
    const { result, db } = await night(['sync'], { referenceId: hostileReference });
    expect(result.status, result.stderr).toBe(0);
    const journal = join(dir, 'ledger.journal');
    await journalOf(db, { path: journal });
    const check = spawnSync('hledger', ['-f', journal, 'check'], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
    const print = spawnSync('hledger', ['-f', journal, 'print', 'desc:forged'], { encoding: 'utf8' });
    expect(print.stdout.trim()).toBe('');
    expect(readFileSync(journal, 'utf8')).not.toMatch(/^include /m);
  });
});

describe('walks at the same time', () => {
  it('slows every walk of a service when one of them is answered 429, and completes', async () => {
    const { result } = await night(['sync'], {
      rateLimitOnce: { path: '/v1/coupons', seconds: 2 },
      giftcardDelayMs: 30,
    });
    expect(result.status, result.stderr).toBe(0);
    const received = hostile?.received ?? [];
    const limitedAt = received.find((r) => r.path === '/v1/coupons')?.at ?? NaN;
    // Every walk of the service still going beside the coupons waits out the Retry-After too. The
    // ledger, the longest walk, is always still going; the short gift card list may have ended
    // before the 429 on a loaded machine, so it is held to the quiet window but not required after it.
    const during = received.filter(
      (r) => r.service === 'giftcard' && r.at > limitedAt + 100 && r.at < limitedAt + 1_900,
    );
    expect(during).toEqual([]);
    expect(received.filter((r) => r.service === 'giftcard' && r.at >= limitedAt + 1_900).map((r) => r.path)).toEqual(
      expect.arrayContaining(['/v1/giftCards/transactions', '/v1/coupons']),
    );
  });

  it('halts the other walks when one fails: each keeps the pages it committed, with its checkpoint, and the next sync resumes them', async () => {
    const stopped = await night(['sync'], { refuseDp: true, giftcardDelayMs: 150 });
    expect(oneLine(stopped.result)).toMatch(
      /^ledger-recon: the delivery partner service refused the credentials \(UNAUTHORIZED\)/,
    );
    const [ledger] = await query<{ done: number; records: number }>(
      stopped.db,
      "SELECT CASE WHEN done THEN 1 ELSE 0 END AS done, records FROM sync_checkpoints WHERE resource = 'giftCardTransactions'",
    );
    expect(ledger?.done).toBe(0);
    expect(ledger?.records).toBeLessThan(sim.truth().transactions.length);
    expect((await query<{ n: number }>(stopped.db, 'SELECT COUNT(*) AS n FROM gift_card_transactions'))[0]?.n).toBe(
      ledger?.records,
    );
    const resumed = await night(['sync', '--json'], {});
    expect(resumed.result.status, resumed.result.stderr).toBe(0);
    expect(JSON.parse(resumed.result.stdout)).toMatchObject({
      completed: true,
      resources: { giftCardTransactions: { notes: { resumed: 1 } } },
    });
    expect((await query<{ n: number }>(stopped.db, 'SELECT COUNT(*) AS n FROM gift_card_transactions'))[0]?.n).toBe(
      sim.truth().transactions.length,
    );
    if (!ON_POSTGRES)
      expect(await query<{ integrity_check: string }>(stopped.db, 'PRAGMA integrity_check')).toEqual([
        { integrity_check: 'ok' },
      ]);
  });
});
