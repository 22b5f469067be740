/**
 * A link planted where the night writes never makes it replace another file: whoever can make a
 * file in a shared `--out` folder or a textfile collector's folder could otherwise point a name
 * the night will write at the mirror, and the night would overwrite the mirror with a CSV.
 * The night in-process (real HTTP against the simulator, a real mirror on both backends).
 */
import {
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeMetricsFile } from '../../src/app/metrics.js';
import { isServerUrl } from '../../src/db/mirror.js';
import { reportBaseName } from '../../src/report/names.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { nightOf } from '../support/app.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, mirrorAt } from '../support/test-db.js';

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 84, size: 'tiny', nowMs: testNow() });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-planted-links-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A file elsewhere that the night must never replace: the mirror itself on SQLite (which the
 * night goes on writing as a database, so it is held to its header), a stand-in on PostgreSQL.
 */
function victimOf(db: string, name: string): { path: string; untouched(): boolean } {
  if (!isServerUrl(db))
    return { path: db, untouched: () => readFileSync(db).subarray(0, 16).toString() === 'SQLite format 3\0' };
  const path = join(dir, `${name}-victim.db`);
  writeFileSync(path, 'precious\n');
  return { path, untouched: () => readFileSync(path, 'utf8') === 'precious\n' };
}

describe(`a link planted where the night writes (${BACKEND_NAME})`, () => {
  it("is never written through: the night writes a revision of its own beside the link, and the link's target is untouched", async () => {
    const db = mirrorAt(dir, 'night');
    const out = join(dir, 'night-reports');
    // A first night makes the mirror (the file a planted link would aim at).
    const first = await nightOf(sim, db, out);
    expect(first.result.ok).toBe(true);
    const victim = victimOf(db, 'night');
    // The next night's findings CSV, named before it is written: run 2, on the test clock's day.
    const planted = join(out, `${reportBaseName({ checkRunId: 2, startedAtMs: testNow() })}-findings.csv`);
    symlinkSync(victim.path, planted);
    const second = await nightOf(sim, db, out);
    expect(second.result.ok).toBe(true);
    if (!second.result.ok) return;
    expect(second.result.record.report.csv).toBe(planted.replace(/-findings\.csv$/, '-r2-findings.csv'));
    expect(victim.untouched()).toBe(true);
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    // The mirror was never damaged: the next night runs.
    expect((await nightOf(sim, db, out)).result.ok).toBe(true);
  });

  it("removes a link planted at the night's own temporary name and writes a new file there, never through it", async () => {
    const db = mirrorAt(dir, 'temporary');
    const out = join(dir, 'temporary-reports');
    mkdirSync(out, { recursive: true });
    const victim = join(dir, 'temporary-victim.txt');
    writeFileSync(victim, 'precious\n');
    // The night writes run 1's workbook under `<name>.<pid>.partial` first: a link waits there.
    const base = join(out, reportBaseName({ checkRunId: 1, startedAtMs: testNow() }));
    for (const name of [`${base}.xlsx`, `${base}-findings.csv`, `${base}-findings.json`])
      symlinkSync(victim, `${name}.${process.pid}.partial`);
    expect((await nightOf(sim, db, out)).result.ok).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });
});

/**
 * A textfile collector's folder `name` holding `ledger_recon.prom`, a link to `target` (made
 * here, beside the link, when `target` is a bare name), which holds `text`.
 */
function collectorLink(name: string, target: string, text: string): { link: string; target: string } {
  const collector = join(dir, name);
  mkdirSync(collector, { recursive: true });
  const targetPath = target.includes('/') ? target : join(collector, target);
  writeFileSync(targetPath, text);
  const link = join(collector, 'ledger_recon.prom');
  symlinkSync(target, link);
  return { link, target: targetPath };
}

describe('a link planted at --metrics-file', () => {
  it('is refused when it points out of its folder, and the file it points at is untouched', () => {
    const { link, target } = collectorLink('collector', join(dir, 'mirror-stand-in.db'), 'precious\n');
    expect(() => writeMetricsFile(link, 'ledger_recon_up 1\n')).toThrow(
      `--metrics-file ${link}: a symlink to ${target}, outside its own folder, not a file an output may replace: remove the link (rm ${link}) or give --metrics-file another path`,
    );
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
  });

  it('is refused when another user made it, even beside its target', () => {
    if (process.getuid?.() !== 0) return; // only root can make a link another user owns; CI runs as root
    const { link, target } = collectorLink('collector-shared', 'other.prom', 'precious\n');
    lchownSync(link, 65534, 65534);
    expect(() => writeMetricsFile(link, 'ledger_recon_up 1\n')).toThrow(/a symlink another user made, not a file/);
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
  });

  it('is written through when this user made it, to a file of its own beside it, the link kept', () => {
    const { link, target } = collectorLink('collector-own', 'ledger_recon-night.prom', 'old\n');
    writeMetricsFile(link, 'ledger_recon_up 1\n');
    expect(readFileSync(target, 'utf8')).toBe('ledger_recon_up 1\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});
