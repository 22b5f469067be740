/**
 * The nightly job on PostgreSQL through the real CLI, as a platform runs it: the same findings
 * as on SQLite (also when a tenth of the answers fail), workers side by side on their own
 * schemas and refused on a held one, a worker whose connection is killed mid-sync, and the
 * server going away mid-run; after each, the next run on any process resumes from what was
 * committed, nothing lost and nothing doubled.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { openForReading, openForWriting } from '../../src/db/mirror.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { CLI, oneFailureLine, runCli, simulatorEnv, type CliResult } from '../support/cli.js';
import { pictureOf, truthPicture } from '../support/mirror.js';
import { newSchema, startPostgres } from '../support/postgres.js';
import { deadlineIn } from '../support/test-clock.js';
import { checkOf, failureOfJob, importAt, nightOf, syncOf } from '../support/app.js';

const serverUrl = inject('postgresUrl');

describe.skipIf(serverUrl === '')('the nightly job on PostgreSQL', () => {
  let sim: Simulator;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const drops: Array<() => Promise<void>> = [];
  const schema = (url = serverUrl) => {
    const made = newSchema(url);
    drops.push(made.drop);
    return made;
  };

  beforeAll(async () => {
    sim = await startSimulator({ seed: 52, size: 'small', plant: true, recordRequests: true });
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-pg-cli-'));
    sim.writeBooks(join(dir, 'books'));
    env = simulatorEnv(sim);
  });
  afterAll(async () => {
    await sim?.close();
    for (const drop of drops) await drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A night as the cron runs it, in this process: the books imported, then the night; its findings as comparable rows. */
  const night = async (db: string, out: string) => {
    const books = ['tenders', 'coupon-uses', 'dp-purchases'].map((kind) => join(dir, 'books', `${kind}.csv`));
    for (const file of books) expect((await importAt(db, [file])).notes).toEqual([]);
    const { result } = await nightOf(sim, db, out);
    if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
    const summary = result.record as typeof result.record & { rollforward?: unknown };
    const csv = readFileSync(summary.report.csv, 'utf8').trim().split('\n').slice(1);
    // Code, severity, entity, card, reference, currency, unit, expected, actual, difference, at stake; and the fingerprint.
    const findings = csv
      .map((line) => line.split('","'))
      .map((cells) => [...cells.slice(1, 13), cells[17]].join('|'))
      .sort();
    return {
      status: summary.exitCode,
      verdict: summary.verdict,
      findings,
      rollforward: summary.rollforward,
    };
  };

  it('finds on PostgreSQL every finding it finds on SQLite, with the same figures and fingerprints, also when a tenth of the answers fail', async () => {
    const onSqlite = await night(join(dir, 'ledger.db'), join(dir, 'out-sqlite'));
    const onPostgres = await night(schema().url, join(dir, 'out-pg'));
    expect(onSqlite).toMatchObject({ status: 1, verdict: 'BREAKS' });
    expect(onSqlite.findings.length).toBeGreaterThan(40);
    expect(onPostgres).toEqual(onSqlite);
    sim.faults.options = { rate: 0.1 };
    try {
      const faulty = await night(schema().url, join(dir, 'out-pg-faults'));
      expect(faulty).toEqual(onSqlite);
    } finally {
      sim.faults.options = {};
    }
  }, 120_000);

  it('runs two workers on two schemas at once; a second on one schema is refused in one line naming the holder', async () => {
    const [a, b] = [schema(), schema()];
    const synced = await Promise.all([syncOf(sim, a.url), syncOf(sim, b.url)]);
    for (const outcome of synced) expect(outcome).toMatchObject({ ok: true, summary: { completed: true } });
    const holder = await openForWriting(a.url, 'sync');
    try {
      const refused = await failureOfJob(() => checkOf(a.url));
      expect(refused.exitCode).toBe(2);
      expect(refused.line).toMatch(
        new RegExp(
          `^ledger-recon: another ledger-recon sync holds the mirror postgres://127\\.0\\.0\\.1:\\d+/postgres\\?schema=${a.schema} \\(process ${process.pid}, started 20[\\d-]+T[\\d:.]+Z\\); wait for it to finish$`,
        ),
      );
    } finally {
      await holder.release();
    }
    expect((await checkOf(a.url)).summary.exitCode).toBe(1);
  }, 60_000);

  it('stops in one line, not a hung night, when another session holds a lock on the mirror past LEDGER_RECON_LOCK_WAIT; runs once it is gone', async () => {
    const a = schema();
    expect((await syncOf(sim, a.url)).ok).toBe(true);
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    try {
      // An analyst's session, say, that left a transaction open over an ALTER of the cards' table.
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE "${a.schema}".gift_cards IN ACCESS EXCLUSIVE MODE`);
      // Killed if still waiting after 30 s: it did not give up on the lock.
      const stopped = await runCli(
        ['check', '--db', a.url],
        { ...env, LEDGER_RECON_LOCK_WAIT: '2' },
        { killAfterMs: 30_000 },
      );
      expect(stopped.signal).toBeNull();
      expect(oneFailureLine(stopped, [])).toMatch(
        /^ledger-recon: the mirror postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=t_\w+ waited too long for a lock another session holds on its tables \(55P03: canceling statement due to lock timeout; LEDGER_RECON_LOCK_WAIT\): nothing half-written stays; find that session .* then run again: it resumes from what was committed$/,
      );
      await admin.query('ROLLBACK');
      expect((await runCli(['check', '--db', a.url], { ...env, LEDGER_RECON_LOCK_WAIT: '2' })).status).toBe(1);
    } finally {
      await admin.end();
    }
    const refused = await runCli(['check', '--db', a.url], { ...env, LEDGER_RECON_LOCK_WAIT: 'ten' });
    expect(oneFailureLine(refused, [])).toBe(
      'ledger-recon: LEDGER_RECON_LOCK_WAIT is "ten": it must be whole seconds from 1 to 86400',
    );
  }, 120_000);

  /** Starts a sync in a child process, slowed, and runs `interrupt` once it is mid-walk (five answers in); resolves when it ends. */
  const interrupted = async (db: string, interrupt: (pid: number) => Promise<void>): Promise<CliResult> => {
    sim.faults.options = { rate: 0.6, kinds: ['slow'], slowMs: 60 };
    try {
      const child = spawn(process.execPath, [CLI, 'sync', '--db', db], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const ended = new Promise<CliResult>((resolve) =>
        child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr })),
      );
      // Mid-walk: the sync asks the services only once its mirror is open (which takes a second or more on a loaded machine).
      const asked = sim.requests.length;
      const late = deadlineIn(30_000);
      while (sim.requests.length < asked + 5 && !late()) await new Promise((resolve) => setTimeout(resolve, 20));
      await interrupt(child.pid ?? 0);
      return await ended;
    } finally {
      sim.faults.options = {};
    }
  };

  /** The next sync completes, and the mirror equals the ground truth. */
  const resumes = async (db: string): Promise<void> => {
    expect(await syncOf(sim, db)).toMatchObject({ ok: true, summary: { completed: true } });
    const mirror = await openForReading(db);
    try {
      expect(await pictureOf(mirror)).toEqual(truthPicture(sim.truth()));
      expect(
        await mirror.connection.pluck<number>("SELECT COUNT(*) FROM sync_runs WHERE status = 'running'").get(),
      ).toBe(0);
    } finally {
      await mirror.close();
    }
  };

  it('loses nothing when a worker’s connection is killed mid-sync (pg_terminate_backend): it stops in one line, and another process resumes', async () => {
    const a = schema();
    const killed = await interrupted(a.url, async (pid) => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      // This sync's sessions only: the server is shared with the other test files' commands.
      const ended = await admin.query(
        'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name LIKE $1',
        [`ledger-recon sync ${pid} %`],
      );
      await admin.end();
      expect(ended.rows.length).toBeGreaterThan(0);
    });
    expect(killed.status).toBe(2);
    expect(killed.stderr.trim().split('\n').at(-1)).toMatch(
      /^ledger-recon: the mirror postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=t_\w+ went away mid-run \(.*\): what was committed stays, and the next run resumes from it once the server is back$/,
    );
    await resumes(a.url);
  }, 60_000);

  it('says in one line when the server goes away mid-run (exit 2), and the next run resumes once it is back', async () => {
    const server = await startPostgres();
    try {
      const a = newSchema(server.url);
      const gone = await interrupted(a.url, async () => server.halt());
      expect(gone.status, gone.stderr).toBe(2);
      expect(gone.stderr.trim().split('\n').at(-1)).toMatch(
        /^ledger-recon: the mirror postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=t_\w+ (went away mid-run|cannot be reached)/,
      );
      const refused = await failureOfJob(() => syncOf(sim, a.url));
      expect(refused.exitCode).toBe(2);
      expect(refused.line).toMatch(
        /^ledger-recon: the mirror postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=t_\w+ cannot be reached: .*; check that the server is running and that --db \(or LEDGER_RECON_DB\) names it$/,
      );
      server.resume();
      await resumes(a.url);
    } finally {
      server.stop();
    }
  }, 90_000);

  it('keeps a mirror in the schema it names whatever the URL carries: options= is refused in one line, nothing is written elsewhere', async () => {
    const { url, schema: name } = schema();
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const publicTables = async () =>
        Number((await client.query("SELECT COUNT(*) AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0].n);
      const before = await publicTables();
      for (const options of ['-c%20search_path%3Dpublic', '-c%20statement_timeout%3D0']) {
        const refused = await failureOfJob(() => syncOf(sim, `${url}&options=${options}`));
        expect(refused.exitCode).toBe(2);
        expect(refused.line).toMatch(
          new RegExp(
            `^ledger-recon: the mirror postgres://127\\.0\\.0\\.1:\\d+/postgres\\?schema=${name}: the URL's options= parameter would change the settings of the mirror's sessions .*ALTER ROLE … SET …\\)$`,
          ),
        );
      }
      expect(await publicTables()).toBe(before);
      expect((await client.query('SELECT COUNT(*) AS n FROM pg_tables WHERE schemaname = $1', [name])).rows[0].n).toBe(
        '0',
      );
    } finally {
      await client.end();
    }
  });
});
