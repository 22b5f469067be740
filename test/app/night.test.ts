/**
 * The night as a function (src/app/night.ts), called in the test's own process: real HTTP
 * against the simulator on 127.0.0.1, a real mirror (SQLite here, PostgreSQL in the postgres
 * project), the test clock. What only the CLI shows (its lines, exit codes, signals) is tested
 * in test/cli/run.test.ts.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NightResult, RunSummary } from '../../src/app/night.js';
import { mirrorHolder } from '../../src/db/mirror.js';
import { InterruptedError } from '../../src/errors.js';
import { booksFilesIn } from '../../src/books/import-books.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { clockAt, nightOf } from '../support/app.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, mirrorAt, rowsOfMirror } from '../support/test-db.js';

let planted: Simulator;
let quiet: Simulator;
let dir: string;

beforeAll(async () => {
  [planted, quiet] = await Promise.all([
    startSimulator({ seed: 81, size: 'tiny', plant: true, nowMs: testNow() }),
    startSimulator({ seed: 82, size: 'tiny', nowMs: testNow() }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-app-night-'));
});
afterAll(async () => {
  await Promise.all([planted.close(), quiet.close()]);
  rmSync(dir, { recursive: true, force: true });
});

function finished(result: NightResult): RunSummary {
  if (!result.ok) throw new Error(`the night failed: ${result.record.error.code}: ${result.record.error.message}`);
  return result.record;
}

describe(`the night, in-process (${BACKEND_NAME})`, () => {
  it('syncs, checks, confirms, reports and seals: BREAKS over planted breaks, every output written, the lock free', async () => {
    const db = mirrorAt(dir, 'planted');
    const out = join(dir, 'planted-reports');
    const first = finished((await nightOf(planted, db, out)).result);
    expect(first).toMatchObject({
      runId: 1,
      verdict: 'BREAKS',
      exitCode: 1,
      failOn: 'error',
      sync: { syncRunId: 1, mode: 'full', completed: true },
    });
    expect(first.bySeverity.error).toBeGreaterThan(0);
    expect(first.new).toBe(first.findings);
    // Every gift card error's records were re-read from the service; none moved.
    expect(first.confirmation.cards).toBeGreaterThan(10);
    expect(first.confirmation.moved).toBe(0);
    for (const path of Object.values(first.report)) expect(existsSync(path), path).toBe(true);
    expect(JSON.parse(readFileSync(first.report.json, 'utf8'))).toHaveLength(first.findings);
    expect(await mirrorHolder(db)).toBeUndefined();

    // The next night finds the same breaks open, none new, and keeps the first night's files.
    const second = finished((await nightOf(planted, db, out)).result);
    expect(second).toMatchObject({ runId: 2, verdict: 'BREAKS', new: 0, findings: first.findings });
    expect(second.sync.mode).toBe('incremental');
    expect(readdirSync(out).filter((name) => name.includes('-run-1')).length).toBeGreaterThanOrEqual(4);
  });

  it('reconciles a healthy world: RECONCILED, exit 0, no finding, every roll-forward closing', async () => {
    const record = finished((await nightOf(quiet, mirrorAt(dir, 'quiet'), join(dir, 'quiet-reports'))).result);
    expect(record).toMatchObject({ verdict: 'RECONCILED', exitCode: 0, findings: 0 });
    expect(record.rollforward).toBeUndefined();
    for (const [currency, { difference }] of Object.entries(record.liability))
      expect(difference, currency).toBe('0.00');
  });

  it("reads every instant from its clock: the cut-off, the run's start, the books' import and matching, the seal and the outputs' names", async () => {
    // A clock that stands still: every instant the night records is this one.
    const at = testNow();
    const db = mirrorAt(dir, 'clocked');
    const folder = join(dir, 'clocked-books');
    quiet.writeBooks(folder);
    const record = finished(
      (await nightOf(quiet, db, join(dir, 'clocked-reports'), { clock: clockAt(at), books: booksFilesIn(folder) }))
        .result,
    );
    expect(record.asOf).toBe(new Date(at).toISOString());
    expect(record.durationMs).toBe(0);
    expect(basename(record.report.workbook)).toBe(`ledger-recon-${new Date(at).toISOString().slice(0, 10)}-run-1.xlsx`);
    expect(await rowsOfMirror(db, 'SELECT started_at_ms, finished_at_ms FROM sync_runs')).toEqual([
      { started_at_ms: at, finished_at_ms: at },
    ]);
    const instants = [
      'SELECT DISTINCT started_at_ms AS ms FROM check_runs',
      'SELECT DISTINCT imported_at_ms AS ms FROM books_files',
      'SELECT DISTINCT matched_at_ms AS ms FROM books_match_rows',
      'SELECT DISTINCT written_at_ms AS ms FROM evidence_manifests',
    ];
    for (const sql of instants) expect(await rowsOfMirror(db, sql), sql).toEqual([{ ms: at }]);
  });

  it('returns a night the services refuse as FAILED, with its record and no secret, and records it in the mirror', async () => {
    const db = mirrorAt(dir, 'refused');
    const rotated = 'rotated-secret-value-0042';
    const sim = planted;
    const saved = sim.credentials.giftcard.clientSecret;
    sim.credentials.giftcard.clientSecret = rotated;
    let result: NightResult;
    try {
      result = (await nightOf(sim, db, join(dir, 'refused-reports'), { secrets: [rotated] })).result;
    } finally {
      sim.credentials.giftcard.clientSecret = saved;
    }
    expect(result.ok).toBe(false);
    expect(result.record).toMatchObject({
      runId: 1,
      verdict: 'FAILED',
      exitCode: 2,
      error: { code: 'AUTH', message: expect.stringMatching(/GIFTCARD_CLIENT_SECRET/) },
    });
    expect(JSON.stringify(result.record)).not.toContain(rotated);
    // The reports folder is made before the night's work (a --out that cannot be written fails first); nothing is in it.
    expect(readdirSync(join(dir, 'refused-reports'))).toEqual([]);
    expect(await rowsOfMirror(db, 'SELECT check_run_id, status FROM check_runs')).toEqual([
      { check_run_id: 1, status: 'failed' },
    ]);
  });

  it('stops where its signal says: INTERRUPTED with the exit code of the signal, nothing reported', async () => {
    const stop = new AbortController();
    stop.abort(new InterruptedError('SIGTERM', 'interrupted (SIGTERM): the night stopped'));
    const { result } = await nightOf(quiet, mirrorAt(dir, 'stopped'), join(dir, 'stopped-reports'), {
      signal: stop.signal,
    });
    expect(result.ok).toBe(false);
    expect(result.record).toMatchObject({ verdict: 'INTERRUPTED', exitCode: 143, error: { code: 'INTERRUPTED' } });
    expect(readdirSync(join(dir, 'stopped-reports'))).toEqual([]);
  });
});
