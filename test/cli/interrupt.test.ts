/**
 * Ctrl-C and a service manager's stop, as an operator meets them: the real CLI in a child
 * process against a slow simulator, signalled part-way through its work.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorHolder, openForReading } from '../../src/db/mirror.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { CLI, runCli, simulatorEnv, type CliResult } from '../support/cli.js';
import { changeMirror, mirrorAt, numberOfMirror, ON_POSTGRES, rowsOfMirror } from '../support/test-db.js';
import { quietMonthOfPlanted } from '../support/simulator.js';
import { Random } from '../../src/sim/random.js';

let sim: Simulator;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // Every answer 150 ms late: a sync takes several seconds, so a signal lands mid-walk.
  sim = await startSimulator({ seed: 51, size: 'small', latencyMs: 150 });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-interrupt-'));
  env = simulatorEnv(sim);
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A command that has not ended this long after the signal did not hear it. The exit code says
 * the signal was heard (130 or 143, never a night's 0 or 1); this bound only ends a hung one,
 * and is wide because a loaded machine (two suites on two cores) opens a PostgreSQL mirror slowly.
 */
const STOP_WITHIN_MS = 10_000;

/** The moments the signals are sent at: seeded, so a failure names its moment and repeats. */
const random = new Random(20261206);

/**
 * Runs the CLI and sends `signal` after `afterMs` (and again after `againMs`, if given);
 * `stoppedInTime` is false when it had not ended STOP_WITHIN_MS after the first signal (then it was killed).
 */
function signalled(
  args: string[],
  signal: NodeJS.Signals,
  afterMs: number,
  againMs?: number,
): Promise<CliResult & { stoppedInTime: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env });
    let stdout = '';
    let stderr = '';
    let watchdog: NodeJS.Timeout | undefined;
    let overran = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    setTimeout(() => {
      child.kill(signal);
      if (againMs !== undefined) setTimeout(() => child.kill(signal), againMs);
      // A command that has not ended STOP_WITHIN_MS after the signal is killed: it did not hear it.
      watchdog = setTimeout(() => {
        overran = true;
        child.kill('SIGKILL');
      }, STOP_WITHIN_MS);
    }, afterMs);
    child.on('close', (status, killedBy) => {
      clearTimeout(watchdog);
      resolve({ status, signal: killedBy, stdout, stderr, stoppedInTime: !overran });
    });
  });
}

/** No process holds the mirror's lock, and on SQLite its lock file is gone. */
async function expectLockFree(db: string): Promise<void> {
  expect(await mirrorHolder(db)).toBeUndefined();
  if (!ON_POSTGRES) expect(existsSync(`${db}.lock`)).toBe(false);
}

/** The mirror's integrity check passes (SQLite's integrity_check; on PostgreSQL, what the server checks itself). */
async function expectIntact(db: string): Promise<void> {
  const mirror = await openForReading(db);
  try {
    expect(await mirror.integrity()).toBe('ok');
  } finally {
    await mirror.close();
  }
}

describe('a command stopped by the operator', () => {
  it('stops a sync on Ctrl-C: exit 130, one line, the lock free, and the next sync resumes to a whole mirror', async () => {
    const db = mirrorAt(dir, 'sigint');
    // At a random moment of the walks (the sync takes several seconds against this simulator).
    const at = 800 + random.int(0, 1_500);
    const stopped = await signalled(['sync', '--db', db, '--quiet'], 'SIGINT', at);
    expect(stopped.status, `SIGINT at ${at} ms`).toBe(130);
    expect(stopped.stoppedInTime).toBe(true);
    expect(stopped.stderr.trimEnd().split('\n')).toEqual([
      'ledger-recon: interrupted (SIGINT): the sync stopped; what it read whole is committed with its checkpoints, and the next sync resumes from there',
    ]);
    await expectLockFree(db);
    const resumed = await runCli(['sync', '--db', db, '--json'], env);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ completed: true });
    await expectIntact(db);
    expect(await rowsOfMirror(db, 'SELECT status, error FROM sync_runs ORDER BY sync_run_id')).toEqual([
      { status: 'failed', error: expect.stringMatching(/^interrupted \(SIGINT\)/) },
      { status: 'completed', error: null },
    ]);
  }, 60_000);

  it('stops a nightly run on SIGTERM: exit 143, its one JSON object says INTERRUPTED, and history lists the night so', async () => {
    const db = mirrorAt(dir, 'sigterm');
    const at = 800 + random.int(0, 1_500);
    const stopped = await signalled(['run', '--json', '--db', db, '--out', join(dir, 'reports')], 'SIGTERM', at);
    expect(stopped.status, `SIGTERM at ${at} ms: ${stopped.stdout}${stopped.stderr}`).toBe(143);
    expect(stopped.stoppedInTime).toBe(true);
    expect(JSON.parse(stopped.stdout)).toMatchObject({
      verdict: 'INTERRUPTED',
      exitCode: 143,
      error: { code: 'INTERRUPTED' },
    });
    expect(stopped.stderr.trimEnd().split('\n')).toHaveLength(1);
    // The next night resumes the sync; history lists the stopped one as INTERRUPTED.
    const next = await runCli(['run', '--json', '--db', db, '--out', join(dir, 'reports')], env);
    expect(JSON.parse(next.stdout)).toMatchObject({ runId: 2, verdict: 'RECONCILED' });
    const history = await runCli(['history', '--db', db, '--json'], env);
    expect(JSON.parse(history.stdout)).toMatchObject([
      { runId: 2, verdict: 'RECONCILED' },
      { runId: 1, verdict: 'INTERRUPTED' },
    ]);
  }, 60_000);

  it('lists a night killed while writing its report as INTERRUPTED, saying how to write it', async () => {
    const db = mirrorAt(dir, 'report-killed');
    const night = await runCli(['run', '--json', '--db', db, '--out', join(dir, 'reports')], env);
    expect(JSON.parse(night.stdout)).toMatchObject({ runId: 1, verdict: 'RECONCILED' });
    expect(await rowsOfMirror(db, 'SELECT report_state FROM check_runs')).toEqual([{ report_state: 'written' }]);
    // What a SIGKILL between the check's commit and the report's files leaves.
    await changeMirror(db, "UPDATE check_runs SET report_state = 'pending'");
    const history = await runCli(['history', '--db', db, '--json'], env);
    expect(JSON.parse(history.stdout)).toMatchObject([
      {
        runId: 1,
        verdict: 'INTERRUPTED',
        error: {
          code: 'INTERRUPTED',
          message: 'stopped while writing its report: ledger-recon report --run 1 writes it',
        },
      },
    ]);
  }, 60_000);

  it('stops a books import on Ctrl-C: exit 130, one line, the file not half in, the lock free', async () => {
    const db = mirrorAt(dir, 'books');
    const file = join(dir, 'tenders-big.csv');
    const lines = ['reference,type,amount,currency,time'];
    for (let i = 0; i < 400_000; i += 1)
      lines.push(`ORD-${i},payment,${(i % 90) + 10}.25,USD,2026-10-0${(i % 9) + 1}T12:00:00Z`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const stopped = await signalled(['books', 'import', file, '--db', db], 'SIGINT', 1_500);
    expect(stopped.status, stopped.stderr).toBe(130);
    expect(stopped.stderr.trimEnd().split('\n')).toEqual([
      'ledger-recon: interrupted (SIGINT): the import stopped; each file lands whole or not at all: run the same import again (the files already in are recognised as unchanged)',
    ]);
    await expectLockFree(db);
    expect(await numberOfMirror(db, 'SELECT COUNT(*) FROM books_rows')).toBe(0);
    await expectIntact(db);
  }, 60_000);

  it('stops a close at random moments on Ctrl-C or SIGTERM: its exit code and one line, no file half-written, the lock free, the next close whole', async () => {
    const db = mirrorAt(dir, 'close');
    const out = join(dir, 'close-out');
    expect((await runCli(['demo', '--db', db, '--out', join(dir, 'close-demo')], env)).status).toBe(0);
    // A month the demo's world ties out in (before its planted breaks).
    const month = quietMonthOfPlanted();
    for (const [signal, afterMs] of [
      ['SIGINT', 250 + random.int(0, 200)],
      ['SIGTERM', 250 + random.int(0, 200)],
      ['SIGINT', 320],
    ] as const) {
      const stopped = await signalled(['close', '--db', db, '--out', out, '--period', month], signal, afterMs);
      const lines = stopped.stderr.trimEnd().split('\n').filter(Boolean);
      if (stopped.status === 0) expect(lines, `finished before the ${signal} at ${afterMs} ms`).toEqual([]);
      // Still starting (Node loading the program): the signal's default ends it, as a shell sees it 128 + n.
      else if (stopped.status === null) expect(stopped.signal).toBe(signal);
      else {
        expect(stopped.status, `${signal} at ${afterMs} ms: ${stopped.stderr}`).toBe(signal === 'SIGINT' ? 130 : 143);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(new RegExp(`^ledger-recon: interrupted \\(${signal}\\): `));
      }
      await expectLockFree(db);
      // The next close runs, and leaves no temporary file of the stopped one.
      const again = await runCli(['close', '--db', db, '--out', out, '--period', month], env);
      expect(again.status, again.stderr).toBe(0);
      expect(readdirSync(out).filter((name) => name.includes('.partial'))).toEqual([]);
      // Each close that finished is a revision of its own, every one of its workbooks sealed.
      const workbooks = readdirSync(out).filter((name) => name.endsWith('.xlsx'));
      for (const workbook of workbooks)
        expect(readdirSync(out), workbook).toContain(workbook.replace(/\.xlsx$/, '-evidence.json'));
    }
    await expectIntact(db);
  }, 120_000);

  it('stops a verify --run on Ctrl-C at once, and the next verify removes the scratch copy of the night it left', async () => {
    const db = mirrorAt(dir, 'verify');
    const night = await runCli(['run', '--json', '--db', db, '--out', join(dir, 'verify-reports')], env);
    expect([0, 1], night.stderr).toContain(night.status);
    const scratch = mkdtempSync(join(dir, 'tmp-'));
    const inScratch = { ...env, TMPDIR: scratch };
    const child = spawn(process.execPath, [CLI, 'verify', '--run', '1', '--db', db], { env: inScratch });
    const closed = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_status, by) => resolve(by)));
    // Signalled as soon as its scratch copy of the night exists.
    let sent = false;
    while (!sent && child.exitCode === null) {
      if (readdirSync(scratch).some((name) => name.startsWith('ledger-recon-lists-'))) sent = child.kill('SIGINT');
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(sent, 'verify ended before its scratch copy was seen').toBe(true);
    expect(await closed).toBe('SIGINT');
    expect(readdirSync(scratch)).toHaveLength(1);
    // The next verify, its process gone, removes the copy it left, and removes its own after.
    const again = await runCli(['verify', '--run', '1', '--db', db], inScratch);
    expect(again.status, again.stderr).toBe(0);
    expect(readdirSync(scratch)).toEqual([]);
  }, 60_000);

  it('ends at once on a second Ctrl-C', async () => {
    const db = mirrorAt(dir, 'twice');
    const stopped = await signalled(['sync', '--db', db, '--quiet'], 'SIGINT', 1_500, 20);
    // Either the second signal found the command still stopping, or both came while the process still loaded (a
    // loaded machine): it exits 130 at once, saying so; or the process was already on its way out (the signal's
    // default ends it): as a shell sees it, 130.
    if (stopped.status === 130) expect(stopped.stderr).toMatch(/interrupted \(SIGINT\)|SIGINT again: stopped at once/);
    else expect(stopped.signal).toBe('SIGINT');
    expect(stopped.stoppedInTime).toBe(true);
  }, 60_000);
});
