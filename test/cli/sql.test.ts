import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/findings/reconcile.js';
import { queryMirror, type SqlOptions } from '../../src/app/sql.js';
import { runSync } from '../../src/sync/run-sync.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { cardLedger, FixtureMirror, T0 } from '../support/fixtures.js';
import { startServices } from '../support/simulator.js';
import { mirrorAt, ON_POSTGRES, openMirrorAt } from '../support/test-db.js';
import { cents } from '../../src/money.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
let fixture: string;
let synced: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-sql-'));
  // A small fixture whose every view has rows we can predict.
  fixture = mirrorAt(dir, 'fixture');
  const fx = await FixtureMirror.open(fixture);
  fx.ledger(
    cardLedger(
      10_000,
      [
        { type: 'DEBIT', amount: 3_000, ref: 'R1' },
        { type: 'REFUND', amount: 1_000, ref: 'R1' },
        { type: 'DEBIT', amount: 500, ref: 'R2' },
      ],
      { remainingCents: cents(6_000) },
    ),
  );
  fx.order({ id: 'order-1', lines: [{ currency: 'EUR', fxRate: 1.1, priceCents: 1_000, totalConvertedCents: 1_105 }] });
  fx.coupon({ id: 'coupon-1', redemptionCount: 3, usageLimitTotal: 0 });
  fx.wallet('wallet-1', 50_000, T0);
  fx.sync();
  fx.coupon({ id: 'coupon-1', redemptionCount: 2, usageLimitTotal: 0 });
  fx.wallet('wallet-1', 48_000, T0 + 3_600_000);
  await reconcile({ nowMs: testNow(), mirror: fx.mirror });
  await fx.close();
  // A mirror synced from the simulator with every planted break, for the cookbook's queries.
  const services = await startServices({ size: 'tiny', seed: 91, plant: true });
  synced = mirrorAt(dir, 'synced');
  const mirror = await openMirrorAt(synced);
  await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
  await reconcile({ nowMs: testNow(), mirror });
  await mirror.close();
  await services.close();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** What `ledger-recon sql` prints of `statement` (or `--file`) in `format`, exit 0: run in this process (src/app/sql.ts). */
async function printed(statement: string | undefined, db: string, format: 'table' | 'csv' | 'json', file?: string) {
  return { status: 0, stdout: (await queryMirror(statement, { db, format, file })).text };
}

async function query<T>(db: string, statement: string): Promise<T[]> {
  return JSON.parse((await queryMirror(statement, { db, format: 'json' })).text) as T[];
}

describe('the views', () => {
  it('card_ledger runs the recomputed balance beside the service’s', async () => {
    expect(
      await query(
        fixture,
        'SELECT transaction_id, type, balance_after_cents, running_balance_cents, difference_cents FROM card_ledger ORDER BY created_at_ms',
      ),
    ).toEqual([
      {
        transaction_id: 'entry-1',
        type: 'DEBIT',
        balance_after_cents: 7_000,
        running_balance_cents: 7_000,
        difference_cents: 0,
      },
      {
        transaction_id: 'entry-2',
        type: 'REFUND',
        balance_after_cents: 8_000,
        running_balance_cents: 8_000,
        difference_cents: 0,
      },
      {
        transaction_id: 'entry-3',
        type: 'DEBIT',
        balance_after_cents: 7_500,
        running_balance_cents: 7_500,
        difference_cents: 0,
      },
    ]);
  });

  it('card_reconciliation sets initial − debits + refunds against the reported balance', async () => {
    expect(await query(fixture, 'SELECT * FROM card_reconciliation')).toEqual([
      {
        gift_card_id: 'card-1',
        currency: 'USD',
        status: 'ACTIVE',
        initial_balance_cents: 10_000,
        debits_cents: 3_500,
        refunds_cents: 1_000,
        recomputed_cents: 7_500,
        reported_cents: 6_000,
        difference_cents: -1_500,
        entries: 3,
      },
    ]);
  });

  it('refunds_by_reference adds up debits and refunds per card and reference', async () => {
    expect(
      await query(
        fixture,
        'SELECT reference_id, debits, debited_cents, refunds, refunded_cents, refundable_left_cents FROM refunds_by_reference ORDER BY reference_id',
      ),
    ).toEqual([
      {
        reference_id: 'R1',
        debits: 1,
        debited_cents: 3_000,
        refunds: 1,
        refunded_cents: 1_000,
        refundable_left_cents: 2_000,
      },
      { reference_id: 'R2', debits: 1, debited_cents: 500, refunds: 0, refunded_cents: 0, refundable_left_cents: 500 },
    ]);
  });

  it('open_findings lists the newest run’s findings with age and bucket', async () => {
    const rows = await query<{
      code: string;
      entity_id: string;
      state: string;
      age_bucket: string;
      difference: number;
    }>(fixture, 'SELECT code, entity_id, state, age_bucket, difference FROM open_findings ORDER BY code');
    expect(rows).toContainEqual({
      code: 'GC_BALANCE_MISMATCH',
      entity_id: 'card-1',
      state: 'new',
      age_bucket: '0-1',
      difference: -1_500,
    });
    expect(rows).toContainEqual({
      code: 'CV_COUNTER_REGRESSED',
      entity_id: 'coupon-1',
      state: 'new',
      age_bucket: '0-1',
      difference: -1,
    });
  });

  it('order_lines_fx recomputes the conversion to the cent', async () => {
    expect(
      await query(
        fixture,
        'SELECT order_id, total_price_cents, fx_rate, total_converted_price_cents, recomputed_converted_cents, difference_cents FROM order_lines_fx',
      ),
    ).toEqual([
      {
        order_id: 'order-1',
        total_price_cents: 1_000,
        fx_rate: 1.1,
        total_converted_price_cents: 1_105,
        recomputed_converted_cents: 1_100,
        difference_cents: 5,
      },
    ]);
  });

  it('coupon_redemption_history and wallet_balance_history show each sync’s change', async () => {
    expect(
      await query(
        fixture,
        'SELECT coupon_id, sync_run_id, redemption_count, change FROM coupon_redemption_history ORDER BY sync_run_id',
      ),
    ).toEqual([
      { coupon_id: 'coupon-1', sync_run_id: 1, redemption_count: 3, change: null },
      { coupon_id: 'coupon-1', sync_run_id: 2, redemption_count: 2, change: -1 },
    ]);
    expect(
      await query(
        fixture,
        'SELECT wallet_id, sync_run_id, balance_cents, change_cents, read_at FROM wallet_balance_history ORDER BY sync_run_id',
      ),
    ).toEqual([
      {
        wallet_id: 'wallet-1',
        sync_run_id: 1,
        balance_cents: 50_000,
        change_cents: null,
        read_at: '2026-10-01T12:00:00.000Z',
      },
      {
        wallet_id: 'wallet-1',
        sync_run_id: 2,
        balance_cents: 48_000,
        change_cents: -2_000,
        read_at: '2026-10-01T13:00:00.000Z',
      },
    ]);
  });
});

describe('ledger-recon sql', () => {
  const hash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

  it("reads --file from a regular file of a statement's size: /dev/zero, a FIFO and a 2 MiB file are refused in one line", async () => {
    const fifo = join(dir, 'statement.fifo');
    spawnSync('mkfifo', [fifo]);
    const big = join(dir, 'big.sql');
    writeFileSync(big, `SELECT 1 -- ${'x'.repeat(2 * 1024 * 1024)}`);
    for (const [file, says] of [
      ['/dev/zero', 'a device, not a regular file'],
      [fifo, 'a FIFO, not a regular file'],
      [big, 'larger than 1,048,576 bytes'],
    ] as const) {
      const { status, stderr } = await runCli(['sql', '--file', file, '--db', synced], cleanEnv());
      expect(status).toBe(2);
      expect(stderr).toContain(`ledger-recon: --file ${file}: ${says}`);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it.runIf(ON_POSTGRES)("prints a server's timestamp as RFC 3339 in UTC, in CSV and in a table", async () => {
    const statement = "SELECT CAST('2026-11-27T11:56:26.5Z' AS timestamptz) AS at";
    const csv = await printed(statement, synced, 'csv');
    expect(csv.stdout).toBe('"at"\r\n"2026-11-27T11:56:26.500Z"\r\n');
    const table = await printed(statement, synced, 'table');
    expect(table.stdout).toContain('2026-11-27T11:56:26.500Z');
  });

  it.each([
    'select 1; commit; set transaction read write; update gift_cards set remaining_balance_cents = remaining_balance_cents + 100000',
    'select 1; commit; create table intruder (a int)',
    ON_POSTGRES ? 'select 1; commit; select count(*) from generate_series(1, 10000000000)' : 'select 1; select 2',
  ])('runs exactly one statement: %s is refused in one line, none of it run', async (statement) => {
    const balance = 'SELECT SUM(remaining_balance_cents) AS total FROM gift_cards';
    const before = await query<{ total: number }>(synced, balance);
    const { status, stdout, stderr } = await runCli(['sql', statement, '--db', synced], cleanEnv());
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'ledger-recon: the text holds several statements: `ledger-recon sql` runs one, and none of them was run; give them one at a time\n',
    );
    expect(await query(synced, balance)).toEqual(before);
    await expect(query(synced, 'SELECT COUNT(*) AS n FROM intruder')).rejects.toThrow(/intruder/);
  });

  // A file's bytes; on PostgreSQL every write path is refused in test/cli/postgres.test.ts.
  it
    .skipIf(ON_POSTGRES)
    .each([
      'DELETE FROM gift_cards',
      "UPDATE gift_cards SET status = 'ACTIVE'",
      'DROP VIEW card_ledger',
      "ATTACH DATABASE 'x.db' AS x",
      'PRAGMA journal_mode = DELETE',
    ])('refuses %s with exit 2, leaving the file unchanged', async (statement) => {
    const before = hash(fixture);
    const { status, stdout, stderr } = await runCli(['sql', statement, '--db', fixture], cleanEnv());
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^ledger-recon: (this statement would change the mirror, and `sql` only reads: it was not run|the statement (was refused|failed))/,
    );
    expect(hash(fixture)).toBe(before);
  });

  it("shows a value's control characters on a terminal, never obeys them, and writes them as they are to a pipe", async () => {
    // A clear-screen, an OSC 52 clipboard write ended by a bell, a C1 CSI, a carriage return printing over the line.
    const hostile = 'a\u001b[2J\u001b]52;c;ZXZpbA==\u0007\u009b31m\rover';
    const statement = `SELECT '${hostile}' AS v`;
    const printed = async (format: 'table' | 'csv' | 'json', tty: boolean): Promise<string> => {
      return (await queryMirror(statement, { db: fixture, format, tty })).text;
    };
    for (const format of ['table', 'csv', 'json'] as const) {
      const shown = await printed(format, true);
      expect(shown, format).toContain('\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007\\u009b31m');
      expect(shown, format).not.toMatch(/[\u001b\u0007\u009b]|\r(?!\n)/);
    }
    // JSON escaped for a terminal is still JSON, with the value whole.
    expect(JSON.parse(await printed('json', true))).toEqual([{ v: hostile }]);
    expect(await printed('csv', false)).toBe(`"v"\r\n"${hostile}"\r\n`);
  });

  it('stops a statement at its bound of rows, of size or of time, printing nothing, and says which bound and the flag that raises it', async () => {
    const rows = async (statement: string, bounds: Partial<SqlOptions>): Promise<string> => {
      return (await queryMirror(statement, { db: fixture, format: 'csv', ...bounds })).text;
    };
    const series = ON_POSTGRES
      ? 'SELECT g AS n FROM generate_series(1, 5000) AS g'
      : 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5000) SELECT n FROM c';
    await expect(rows(series, { maxRows: 4_999 })).rejects.toThrow(
      'the statement returned more than 4,999 rows and was stopped, nothing printed: narrow it (a WHERE, a LIMIT, fewer columns), or raise --max-rows',
    );
    expect((await rows(series, { maxRows: 5_000 })).split('\r\n')).toHaveLength(5_002);
    // Two values of a megabyte and a half each against a bound of one megabyte.
    const wide = ON_POSTGRES
      ? "SELECT repeat('x', 1500000) AS v FROM generate_series(1, 2)"
      : "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 2) SELECT printf('%.*c', 1500000, 'x') AS v FROM c";
    await expect(rows(wide, { maxMb: 1 })).rejects.toThrow(
      /came to more than 1 MB and were stopped, nothing printed: .*raise --max-mb$/,
    );
    // A statement without end, that never returns a row: ended when its second is up.
    const endless = ON_POSTGRES
      ? 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c'
      : 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c';
    await expect(rows(endless, { maxSeconds: 1 })).rejects.toThrow(
      /^the statement ran longer than 1 s and was stopped, nothing printed: .*raise --max-seconds$/,
    );
    // The mirror is whole and answers the next statement.
    expect(await rows('SELECT 1 AS one', {})).toBe('"one"\r\n1\r\n');
  });

  it.runIf(ON_POSTGRES)(
    "refuses the server's administrative and lock functions however they are named, before anything runs",
    async () => {
      for (const statement of [
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity',
        'select "pg_cancel_backend"(1)',
        'SELECT pg_catalog.pg_advisory_lock(42)',
        'SELECT pg_try_advisory_lock(42)',
        'SELECT /* a comment */ pg_sleep(30)',
        'explain analyze select pg_terminate_backend(1)',
        // A name spelt in Unicode escapes: the text does not say it, the server's plan does.
        'SELECT U&"\\0070g_terminate_backend"(1)',
        "SELECT set_config('statement_timeout', '0', false)",
      ]) {
        await expect(queryMirror(statement, { db: fixture }), statement).rejects.toThrow(
          /^`sql` does not call (pg_\w+|set_config): the server's administrative, signalling, lock and file functions reach past the mirror/,
        );
      }
    },
  );

  it('prints CSV, JSON or a table, and reads a statement from --file', async () => {
    const statement =
      "SELECT gift_card_id, status, initial_balance_cents FROM gift_cards WHERE gift_card_id = 'card-1'";
    const csv = await printed(statement, fixture, 'csv');
    expect(csv.stdout).toBe('"gift_card_id","status","initial_balance_cents"\r\n"card-1","ACTIVE",10000\r\n');
    const json = await printed(statement, fixture, 'json');
    expect(JSON.parse(json.stdout)).toEqual([
      { gift_card_id: 'card-1', status: 'ACTIVE', initial_balance_cents: 10_000 },
    ]);
    const file = join(dir, 'query.sql');
    writeFileSync(file, statement);
    const table = await printed(undefined, fixture, 'table', file);
    expect(table.stdout.split('\n')).toEqual([
      'gift_card_id │ status │ initial_balance_cents',
      '─────────────┼────────┼──────────────────────',
      'card-1       │ ACTIVE │ 10000',
      '(1 row)',
      '',
    ]);
  });

  it('prints CSV as the data is: -1, NULL, empty text and a formula-like text round-trip through Python’s csv module unchanged', async () => {
    const statement =
      "SELECT -1 AS n, NULL AS missing, '' AS empty, '=SUM(A1)' AS formula, 'a \"quoted\", two-line\ntext' AS awkward, 2.5 AS half";
    const { status, stdout } = await printed(statement, fixture, 'csv');
    expect(status).toBe(0);
    expect(stdout.split('\r\n')[1]).toBe('-1,,"","=SUM(A1)","a ""quoted"", two-line\ntext",2.5');
    // Python reads the values back exactly; NULL (empty, unquoted) and '' (quoted) stay apart in the text.
    const python = spawnSync('python3', ['-c', 'import csv,sys,json; print(json.dumps(list(csv.reader(sys.stdin))))'], {
      input: stdout,
      encoding: 'utf8',
    });
    expect(JSON.parse(python.stdout)).toEqual([
      ['n', 'missing', 'empty', 'formula', 'awkward', 'half'],
      ['-1', '', '', '=SUM(A1)', 'a "quoted", two-line\ntext', '2.5'],
    ]);
    const json = await printed(statement, fixture, 'json');
    expect(JSON.parse(json.stdout)).toEqual([
      { n: -1, missing: null, empty: '', formula: '=SUM(A1)', awkward: 'a "quoted", two-line\ntext', half: 2.5 },
    ]);
  });

  // SQLite's integers past 2^53 and blobs (the mirror's own reads on PostgreSQL refuse one past 2^53: test/db/pg-connection.test.ts).
  it.skipIf(ON_POSTGRES)(
    'prints in JSON an integer past 2^53 exactly and a blob as its hex literal; CSV and the table keep the digits too',
    async () => {
      const statement = "SELECT 9007199254740993 AS big, 42 AS small, x'00ff' AS blob";
      const json = await printed(statement, fixture, 'json');
      expect(JSON.parse(json.stdout)).toEqual([{ big: '9007199254740993', small: 42, blob: "x'00ff'" }]);
      const csv = await printed(statement, fixture, 'csv');
      expect(csv.stdout.split('\r\n')[1]).toBe(`9007199254740993,42,"x'00ff'"`);
    },
  );

  it('runs every query of the SQL cookbook as written', async () => {
    const section = readFileSync(new URL('../../docs/sql-cookbook.md', import.meta.url), 'utf8');
    // Plain `sql` blocks run on both databases; `sql sqlite` and `sql postgres` on theirs.
    const own = ON_POSTGRES ? 'postgres' : 'sqlite';
    const queries = [...section.matchAll(/```sql( \w+)?\n([\s\S]*?)```/g)]
      .filter((m) => m[1] === undefined || m[1].trim() === own)
      .map((m) => m[2] ?? '');
    expect(queries.length).toBeGreaterThanOrEqual(14);
    for (const statement of queries) {
      await expect(query(synced, statement), statement).resolves.toBeInstanceOf(Array);
    }
    const gaps = await query<{ entry_after_gap: string }>(synced, queries[2] ?? '');
    expect(gaps.length).toBeGreaterThan(0);
  });
});
