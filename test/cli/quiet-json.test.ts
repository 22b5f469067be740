/**
 * The CLI as its users expect it (operator issue, item 6): `--quiet` on every command (errors
 * only; rows and --json still print), `--json` on every command that reports, and `-v` /
 * `--log-level` logging the talk with the services without a secret.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { runCli, simulatorEnv } from '../support/cli.js';
import { plantedMonth } from '../support/simulator.js';
import { testDate } from '../support/test-clock.js';
import { checkOf, nightOf } from '../support/app.js';
import { rowsOfMirror } from '../support/test-db.js';
import { historyOf } from '../../src/app/history.js';
import { exportedFindings } from '../../src/app/check.js';
import { formatCheckSummary } from '../../src/app/check-lines.js';

let dir: string;
let sim: Simulator;
let db: string;
let out: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-quiet-'));
  db = join(dir, 'ledger', 'ledger.db');
  out = join(dir, 'reports');
  sim = await startSimulator({ seed: 41, size: 'tiny', plant: true });
  const { result } = await nightOf(sim, db, out);
  expect(result.record.exitCode).toBe(1);
}, 120_000);

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--quiet', () => {
  it('prints nothing on stdout for every command that succeeds, before or after the command name', async () => {
    const env = simulatorEnv(sim);
    const commands: string[][] = [
      ['ping'],
      ['doctor', '--db', db, '--out', out],
      ['sync', '--db', db],
      ['check', '--db', db],
      ['report', '--db', db, '--out', out],
      // A month the planted world has data in, whatever the test clock's day.
      ['close', '--db', db, '--out', out, '--period', plantedMonth()],
      ['verify', '--dir', out],
      ['export', 'hledger', '--db', db, '--out', join(dir, 'ledger.journal')],
    ];
    for (const [i, command] of commands.entries()) {
      const args = i % 2 === 0 ? ['--quiet', ...command] : [...command, '--quiet'];
      const result = await runCli(args, env);
      expect(result.stdout, `${args.join(' ')}: ${result.stderr}`).toBe('');
      // check's verdict is its exit code: BREAKS is 1, as without --quiet.
      expect([0, 1], `${args.join(' ')}: ${result.stderr}`).toContain(result.status);
    }
  }, 120_000);

  it('still prints what a command is run to print: rows, and --json', async () => {
    const history = await runCli(['--quiet', 'history', '--db', db, '--json'], simulatorEnv(sim));
    // The night, and whatever checks other tests of this file ran (they run in any order).
    expect((JSON.parse(history.stdout) as unknown[]).length).toBeGreaterThanOrEqual(1);
    const sql = await runCli(['sql', '--db', db, '--quiet', 'SELECT 1 AS one'], simulatorEnv(sim));
    expect(sql.stdout.trim()).toBe('"one"\r\n1');
    const check = await runCli(['check', '--db', db, '--quiet', '--json'], simulatorEnv(sim));
    expect(JSON.parse(check.stdout)).toMatchObject({ verdict: 'BREAKS' });
  }, 60_000);

  it('leaves a failing doctor its FAIL lines alone', async () => {
    const result = await runCli(['doctor', '--quiet', '--db', db, '--out', out], {
      ...simulatorEnv(sim),
      DP_CLIENT_SECRET: 'wrong-secret-value',
    });
    expect(result.status).toBe(2);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.startsWith('FAIL'))).toBe(true);
    expect(result.stdout).not.toContain('wrong-secret-value');
  }, 60_000);
});

describe('--json on every command that reports', () => {
  it('prints one object for ping, report, close, verify, export and accept', async () => {
    const env = simulatorEnv(sim);
    const json = async (args: string[]) => {
      const result = await runCli([...args, '--json'], env);
      expect([0, 1], `${args.join(' ')}: ${result.stderr}`).toContain(result.status);
      expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    expect(await json(['ping'])).toMatchObject({ ok: true, dp: { dpId: sim.credentials.dp.clientId } });
    const report = await json(['report', '--db', db, '--out', out]);
    expect(report['workbook']).toMatch(/\.xlsx$/);
    expect(report['evidence']).toMatch(/-evidence\.json$/);
    // This month of the test clock: the world's cards are open in it, whatever day the run is on.
    const month = testDate().toISOString().slice(0, 7);
    const close = await json(['close', '--db', db, '--out', out, '--period', month]);
    expect(close).toMatchObject({ period: month });
    expect((close['rollForwards'] as unknown[]).length).toBeGreaterThan(0);
    expect(close['files']).toHaveLength(8);
    expect(await json(['verify', '--dir', out])).toMatchObject({ ok: true, problems: [] });
    const exported = await json(['export', 'hledger', '--db', db, '--out', join(dir, 'j.journal')]);
    expect(exported).toMatchObject({ format: 'hledger', out: join(dir, 'j.journal') });
    const [first] = await rowsOfMirror<{ fingerprint: string; code: string }>(
      db,
      'SELECT fingerprint, code FROM findings ORDER BY fingerprint LIMIT 1',
    );
    if (!first) throw new Error('the planted world has findings');
    expect(await json(['accept', first.fingerprint, '--db', db, '--note', 'known', '--by', 'auditor'])).toEqual({
      accepted: true,
      code: first.code,
      fingerprint: first.fingerprint,
      by: 'auditor',
      until: null,
      note: 'known',
    });
  }, 120_000);

  it('refuses export --json with the journal on standard output', async () => {
    const result = await runCli(['export', 'hledger', '--db', db, '--out', '-', '--json'], simulatorEnv(sim));
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--json and --out - both want standard output');
  });
});

describe('-v and --log-level', () => {
  it('logs each retry at info, every request at debug, and never a secret', async () => {
    const faulty = await startSimulator({ seed: 42, size: 'tiny', faults: { rate: 0.2, kinds: ['error500'] } });
    try {
      const env = simulatorEnv(faulty);
      const info = await runCli(['sync', '--db', join(dir, 'faulty', 'faulty.db'), '-v', '--quiet'], env);
      expect(info.status, info.stderr).toBe(0);
      const retries = info.stderr.split('\n').filter((line) => line.includes('retry'));
      expect(retries.length).toBeGreaterThan(0);
      expect(retries[0]).toMatch(/^ledger-recon: (giftcard|dp) GET \/\S+: HTTP 500, retry \d+ in \d+\.\d s$/);
      expect(info.stderr).not.toContain('→');

      const debug = await runCli(
        ['--log-level', 'debug', 'sync', '--db', join(dir, 'faulty', 'faulty.db'), '--quiet'],
        env,
      );
      expect(debug.status, debug.stderr).toBe(0);
      expect(debug.stderr).toMatch(/^ledger-recon: giftcard GET \/v1\/giftCards\S* → 200 in \d+ ms$/m);
      for (const secret of [faulty.credentials.giftcard.clientSecret, faulty.credentials.dp.clientSecret]) {
        expect(info.stderr).not.toContain(secret);
        expect(debug.stderr).not.toContain(secret);
      }
      const quiet = await runCli(['sync', '--db', join(dir, 'faulty', 'faulty.db'), '--quiet'], env);
      expect(quiet.stderr).toBe('');

      // Each resource's line counts its own retries: the lines add up to the closing total and to the log.
      const counted = await runCli(['sync', '--db', join(dir, 'faulty-count', 'faulty-count.db'), '-v'], env);
      expect(counted.status, counted.stderr).toBe(0);
      const lines = counted.stderr.split('\n');
      const perResource = lines
        .filter((line) => / \| .* (\d+) retr(y|ies)/.test(line) && !line.startsWith('ledger-recon:'))
        .map((line) => Number(/(\d+) retr(?:y|ies)/.exec(line)?.[1]));
      expect(perResource).toHaveLength(7);
      const closing = /completed in .*, (\d+) retr(?:y|ies)(?: \((\d+) after the lists\))?$/m.exec(counted.stderr);
      const total = Number(closing?.[1]);
      const after = Number(closing?.[2] ?? 0);
      const logged = lines.filter((line) => /^ledger-recon: .*, retry \d+ in /.test(line)).length;
      expect(logged).toBeGreaterThan(0);
      expect(perResource.reduce((a, b) => a + b, after)).toBe(total);
      expect(total).toBe(logged);
    } finally {
      await faulty.close();
    }
  }, 120_000);
});

describe('check --dry-run', () => {
  it('judges the newest sync as check does and records nothing: history, standing and the next check unchanged', async () => {
    const history = async () => JSON.stringify(await historyOf({ db }));
    const tables = async () =>
      JSON.stringify(
        await rowsOfMirror(
          db,
          'SELECT (SELECT COUNT(*) FROM check_runs) AS runs, (SELECT COUNT(*) FROM findings) AS findings',
        ),
      );
    const [before, counted] = [await history(), await tables()];
    const dry = await checkOf(db, { dryRun: true });
    expect(dry.summary.exitCode).toBe(1);
    expect(exportedFindings(dry, true).every((f) => f.runId === null)).toBe(true);
    expect(await history()).toBe(before);
    expect(await tables()).toBe(counted);
    expect(formatCheckSummary(dry.summary)).toContain('dry run (recorded nowhere)');
    // The same judgement a recorded check reaches.
    const recorded = (await checkOf(db)).summary;
    expect(recorded.checkRunId).toBeGreaterThan(0);
    expect(recorded.bySeverity).toEqual(dry.summary.bySeverity);
    expect(recorded.findings).toBe(dry.summary.findings);
  }, 60_000);

  it('prints the dry run as one JSON object recorded nowhere (checkRunId null)', async () => {
    const dry = await runCli(['check', '--db', db, '--dry-run', '--json'], simulatorEnv(sim));
    expect(dry.status, dry.stderr).toBe(1);
    expect(JSON.parse(dry.stdout)).toMatchObject({ checkRunId: null, dryRun: true });
  });
});
