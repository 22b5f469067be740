import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/app/night.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { CLI, runCli, simulatorEnv } from '../support/cli.js';
import { mirrorAt, numberOfMirror, ON_POSTGRES } from '../support/test-db.js';
import { mirrorHolder } from '../../src/db/mirror.js';
import { hasProgram } from '../support/programs.js';
import { historyOf, historyTable } from '../../src/app/history.js';
import { failureOfJob, reportOf } from '../support/app.js';

let sim: Simulator;
let dir: string;
let db: string;
let out: string;
let first: RunSummary;

beforeAll(async () => {
  sim = await startSimulator({ seed: 81, size: 'tiny', plant: true });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-cli-run-'));
  db = mirrorAt(dir);
  out = join(dir, 'reports');
  const result = await runCli(['run', '--db', db, '--out', out, '--json'], simulatorEnv(sim));
  if (result.status !== 1) throw new Error(`run exited ${result.status}: ${result.stderr}`);
  first = JSON.parse(result.stdout) as RunSummary;
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ledger-recon run', () => {
  it('prints the night as one JSON object on stdout and exits 1 over planted breaks, its lock released', async () => {
    // What the night computes is tested in-process (test/app/night.test.ts); here, what the CLI shows.
    expect(first).toMatchObject({ runId: 1, verdict: 'BREAKS', exitCode: 1, failOn: 'error' });
    for (const path of Object.values(first.report)) expect(existsSync(path), path).toBe(true);
    if (!ON_POSTGRES) expect(existsSync(`${db}.lock`)).toBe(false);
    expect(await mirrorHolder(db)).toBeUndefined();
  });

  it('is quiet without a terminal but for one line on stderr when breaks are open', async () => {
    const { status, stdout, stderr } = await runCli(['run', '--db', db, '--out', out], simulatorEnv(sim));
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      /^ledger-recon: BREAKS: \d+ findings \(\d+ error, \d+ warning; 0 new\)(; the liability roll-forward does not close: [A-Z]{3} by -?[\d.]+(, [A-Z]{3} by -?[\d.]+)*)?, see .*run-2\.xlsx\n$/,
    );
  });

  it('exits 2 when credentials are refused, writing nothing and keeping the previous run’s outputs', async () => {
    const before = readdirSync(out).sort();
    const { status, stdout, stderr } = await runCli(['run', '--db', db, '--out', out, '--json'], {
      ...simulatorEnv(sim),
      GIFTCARD_CLIENT_SECRET: 'rotated-secret-value',
    });
    expect(status).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/GIFTCARD_CLIENT_SECRET/);
    expect(stderr).not.toContain('rotated-secret-value');
    // Still the night's record: one object on stdout, as on every exit.
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({
      runId: 3,
      verdict: 'FAILED',
      exitCode: 2,
      error: { code: 'AUTH', message: expect.stringMatching(/GIFTCARD_CLIENT_SECRET/) },
    });
    expect(stdout).not.toContain('rotated-secret-value');
    expect(readdirSync(out).sort()).toEqual(before);
  });

  it('lists past runs with `history`, newest first', async () => {
    const rows = await historyOf({ db });
    expect(rows.map((r) => [r.runId, r.verdict, r.error?.code ?? null])).toEqual([
      [3, 'FAILED', 'AUTH'],
      [2, 'BREAKS', null],
      [1, 'BREAKS', null],
    ]);
    expect(rows[2]?.findings).toBe(first.findings);
    const table = historyTable(rows, undefined);
    expect(table[0]).toMatch(/^run +sync +started \(UTC\) +seconds +verdict +findings.* why it failed$/);
    expect(table[1]).toMatch(/^3 .* FAILED .* AUTH: /);
  });

  it('rewrites a run’s files with `report`, and their evidence manifest, the same as the night wrote', async () => {
    const again = join(dir, 'again');
    const report = await reportOf(db, { checkRunId: 1, outDir: again });
    expect(report.workbook).toMatch(/-run-1\.xlsx$/);
    expect(report.evidence).toMatch(/-run-1-evidence\.json$/);
    expect(readdirSync(again).sort()).toEqual(
      readdirSync(out)
        .filter((f) => f.includes('-run-1'))
        .sort(),
    );
  });

  it('names a run `report --run` cannot find, and the newest there is', async () => {
    const failure = await failureOfJob(() => reportOf(db, { checkRunId: 97, outDir: join(dir, 'missing') }));
    expect(failure.exitCode).toBe(2);
    expect(failure.line).toMatch(
      /^ledger-recon: the mirror holds no completed check run 97: the newest is run \d+ \(`ledger-recon history` lists them all\)$/,
    );
  });
});

describe('a night that cannot finish', () => {
  it('still prints one JSON object when the service dies mid-run (exit 2), and history lists the night as FAILED; a killed night as INTERRUPTED', async () => {
    const nightDb = mirrorAt(dir, 'dying');
    const dying = await startSimulator({ seed: 82, size: 'small', latencyMs: 40 });
    const running = runCli(['run', '--db', nightDb, '--out', join(dir, 'dying'), '--json'], simulatorEnv(dying));
    // The service dies once the night is on record, mid-sync: not after a guessed time.
    while (
      (await numberOfMirror(nightDb, "SELECT COUNT(*) FROM check_runs WHERE status = 'running'").catch(() => 0)) !== 1
    )
      await new Promise((done) => setTimeout(done, 50));
    await dying.close();
    const { status, stdout, stderr } = await running;
    expect(status).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    const night = JSON.parse(stdout) as { runId: number; verdict: string; error: { code: string; message: string } };
    expect(night).toMatchObject({
      runId: 1,
      verdict: 'FAILED',
      exitCode: 2,
      error: { code: expect.stringMatching(/^[A-Z_]+$/) },
    });
    expect(stderr).toContain(night.error.message);

    const slow = await startSimulator({ seed: 82, size: 'small', latencyMs: 40 });
    try {
      // Killed once its night is on record, mid-sync.
      // The service came back at another address: the mirror is moved to it on purpose.
      const child = spawn(process.execPath, [CLI, 'run', '--rebind', '--db', nightDb, '--out', join(dir, 'dying')], {
        env: simulatorEnv(slow),
        stdio: 'ignore',
      });
      const exited = new Promise<NodeJS.Signals | null>((done) => child.on('close', (_code, signal) => done(signal)));
      for (let started = false; !started; await new Promise((done) => setTimeout(done, 50))) {
        started = (await numberOfMirror(nightDb, "SELECT COUNT(*) FROM check_runs WHERE status = 'running'")) === 1;
      }
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      await slow.close();
    }
    expect((await historyOf({ db: nightDb })).map((r) => [r.runId, r.verdict])).toEqual([
      [2, 'INTERRUPTED'],
      [1, 'FAILED'],
    ]);
  }, 60_000);
});

describe.runIf(hasProgram('soffice', 'libreoffice-calc-nogui'))('the workbook in LibreOffice', () => {
  it('opens headless, converts, and shows the same findings', () => {
    const converted = join(dir, 'lo');
    // Filter options: comma, quote, UTF-8, from row 1, …, sheet -1 = every sheet to its own file.
    const result = spawnSync(
      'soffice',
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=file://${join(dir, 'lo-profile')}`,
        '--convert-to',
        'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1',
        '--outdir',
        converted,
        first.report.workbook,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(result.status, result.stderr).toBe(0);
    const base = first.report.workbook
      .split('/')
      .pop()!
      .replace(/\.xlsx$/, '');
    const findingsCsv = readFileSync(join(converted, `${base}-Findings.csv`), 'utf8');
    const codes = findingsCsv
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[1])
      .sort();
    const expected = (JSON.parse(readFileSync(first.report.json, 'utf8')) as { code: string }[])
      .map((f) => f.code)
      .sort();
    expect(codes).toEqual(expected);
    expect(readFileSync(join(converted, `${base}-Summary.csv`), 'utf8')).toMatch(
      /^"?merchant [0-9a-f]{8}: reconciliation of \d{4}-\d{2}-\d{2}, data as of \d{2}:\d{2} UTC \(check run \d+\)/,
    );
  });
});
