/**
 * The jobs besides the night, called in the test's own process through the application layer:
 * the sync alone, the check alone (and dry), the report of a run, accepting a break, the books
 * import, each on the test clock, over real HTTP against the simulator and a real mirror.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptFinding } from '../../src/app/accept.js';
import { importBooks } from '../../src/app/books.js';
import { checkMirror } from '../../src/app/check.js';
import { createClients } from '../../src/app/clients.js';
import { keepingSink } from '../../src/app/context.js';
import { reportRun } from '../../src/app/report.js';
import { syncMirror } from '../../src/app/sync.js';
import { kindOfName, mapBeside } from '../../src/books/import-books.js';
import { openForWriting } from '../../src/db/mirror.js';
import { MirrorError } from '../../src/errors.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { clockAt, testClock } from '../support/app.js';
import { dpConfig, giftcardConfig } from '../support/simulator.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, mirrorAt, rowsOfMirror } from '../support/test-db.js';

let sim: Simulator;
let dir: string;
let db: string;

/** Runs `work` on the mirror under its lock, as a command does. */
async function onMirror<T>(work: (mirror: Awaited<ReturnType<typeof openForWriting>>['mirror']) => Promise<T>) {
  const { mirror, release } = await openForWriting(db, 'test');
  try {
    return await work(mirror);
  } finally {
    await release();
  }
}

beforeAll(async () => {
  sim = await startSimulator({ seed: 91, size: 'tiny', plant: true, nowMs: testNow() });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-app-jobs-'));
  db = mirrorAt(dir);
  const clients = createClients({ giftcard: giftcardConfig(sim), dp: dpConfig(sim) });
  try {
    const summary = await onMirror((mirror) =>
      syncMirror({ clock: testClock, signal: new AbortController().signal, mirror, clients, sink: keepingSink() }),
    );
    expect(summary).toMatchObject({ syncRunId: 1, mode: 'full', completed: true });
  } finally {
    await clients.close();
  }
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe(`the jobs, in-process (${BACKEND_NAME})`, () => {
  it('checks dry and records nothing, then checks and records the run: BREAKS over planted breaks', async () => {
    const dry = await onMirror((mirror) => checkMirror({ mirror, clock: testClock }, { dryRun: true }));
    expect(dry.summary.verdict).toBe('BREAKS');
    expect(await rowsOfMirror(db, 'SELECT check_run_id FROM check_runs')).toEqual([]);
    const checked = await onMirror((mirror) => checkMirror({ mirror, clock: testClock }));
    expect(checked.summary).toMatchObject({ checkRunId: 1, verdict: 'BREAKS', exitCode: 1 });
    expect(checked.findings.length).toBe(dry.findings.length);
  });

  it('writes and seals a run’s report, its files named by the run’s date', async () => {
    const out = join(dir, 'reports');
    const written = await onMirror((mirror) => reportRun({ mirror, clock: testClock }, { outDir: out }));
    expect(written.checkRunId).toBe(1);
    for (const path of [written.workbook, written.csv, written.json, written.page, written.evidence])
      expect(existsSync(path), path).toBe(true);
    expect(basename(written.workbook)).toMatch(/^ledger-recon-\d{4}-\d{2}-\d{2}-run-1\.xlsx$/);
    expect(written.page).toBe(written.workbook.replace(/\.xlsx$/, '.html'));
    expect(readdirSync(out)).toHaveLength(5);
  });

  it('accepts a finding at the clock’s instant: the next check counts it accepted; a date past and an unknown fingerprint refused', async () => {
    const [finding] = await rowsOfMirror<{ fingerprint: string; code: string }>(
      db,
      "SELECT fingerprint, code FROM findings WHERE check_run_id = 1 AND severity = 'error' ORDER BY fingerprint LIMIT 1",
    );
    if (!finding) throw new Error('the planted world has an error');
    const at = testNow();
    const accepted = await onMirror((mirror) =>
      acceptFinding(
        { mirror, clock: clockAt(at) },
        { fingerprint: finding.fingerprint, note: 'explained', by: 'a test' },
      ),
    );
    expect(accepted.code).toBe(finding.code);
    expect(
      await rowsOfMirror(
        db,
        'SELECT accepted_by, accepted_at_ms FROM finding_acceptances WHERE fingerprint = ?',
        finding.fingerprint,
      ),
    ).toEqual([{ accepted_by: 'a test', accepted_at_ms: at }]);
    const next = await onMirror((mirror) => checkMirror({ mirror, clock: testClock }));
    expect(next.summary.accepted).toBe(1);

    const yesterday = new Date(at - 86_400_000).toISOString().slice(0, 10);
    const past = onMirror((mirror) =>
      acceptFinding(
        { mirror, clock: clockAt(at) },
        { fingerprint: finding.fingerprint, note: 'x', by: 'a test', until: yesterday },
      ),
    );
    await expect(past).rejects.toThrow(new MirrorError(`--until ${yesterday} has already passed`));
    const unknown = onMirror((mirror) =>
      acceptFinding({ mirror, clock: testClock }, { fingerprint: '0123456789abcdef', note: 'x', by: 'a test' }),
    );
    await expect(unknown).rejects.toThrow(/no finding has the fingerprint 0123456789abcdef/);
  });

  it("imports the merchant's books, each file whole, its problems as notes", async () => {
    const folder = join(dir, 'books');
    sim.writeBooks(folder);
    const files = readdirSync(folder)
      .filter((name) => kindOfName(name) !== undefined && !name.endsWith('.map.json'))
      .map((name) => {
        const path = join(folder, name);
        const kind = kindOfName(name)!;
        return { path, kind, map: mapBeside(path, kind) };
      });
    expect(files.length).toBeGreaterThan(0);
    const sink = keepingSink();
    const results = await onMirror((mirror) =>
      importBooks({ mirror, clock: testClock, signal: new AbortController().signal, sink }, files),
    );
    expect(results).toHaveLength(files.length);
    for (const result of results) expect(result.fileId, result.file).not.toBeNull();
    // The planted world's books carry rows the import rejects, each named in a note.
    const rejected = results.reduce((n, r) => n + r.problems.length, 0);
    expect(sink.notes).toHaveLength(rejected);
  });
});
