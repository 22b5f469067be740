/**
 * Outputs never clobber what the user did not name as one: a device, a FIFO, a folder or a
 * symlink to one given as an output is refused in one line and left as it was; `-` is standard
 * output; a symlink to a regular file is written through, the link kept. Run as root in CI, so
 * these would replace the machine's own devices if they went wrong: every path is the test's
 * own (a symlink to /dev/null, a FIFO made here), never the machine's /dev/stdout.
 */
import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, oneFailureLine, runCli } from '../support/cli.js';
import { mirrorAt } from '../support/test-db.js';
import { demoOf, reportOf } from '../support/app.js';
import { historyOf } from '../../src/app/history.js';

let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-outputs-'));
  db = mirrorAt(dir, 'demo');
  await demoOf(db, join(dir, 'reports'));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The test's own things that are not files: each made fresh, in the test's folder. */
function notFiles(): Array<[string, string, () => void]> {
  const base = mkdtempSync(join(dir, 'targets-'));
  const devNull = join(base, 'to-dev-null');
  symlinkSync('/dev/null', devNull);
  const fifo = join(base, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const folder = join(base, 'folder');
  mkdirSync(folder);
  const toFolder = join(base, 'to-folder');
  symlinkSync(folder, toFolder);
  const dangling = join(base, 'dangling');
  symlinkSync(join(base, 'nothing-here'), dangling);
  return [
    ['a symlink to /dev/null', devNull, () => expect(readlinkSync(devNull)).toBe('/dev/null')],
    ['a FIFO', fifo, () => expect(lstatSync(fifo).isFIFO()).toBe(true)],
    ['a folder', folder, () => expect(lstatSync(folder).isDirectory()).toBe(true)],
    [
      'a symlink to a folder',
      toFolder,
      () => expect(lstatSync(toFolder).isSymbolicLink() && statSync(toFolder).isDirectory()).toBe(true),
    ],
    ['a dangling symlink', dangling, () => expect(lstatSync(dangling).isSymbolicLink()).toBe(true)],
  ];
}

describe('an output path that is not a file', () => {
  it('is refused by export, in one line naming it, and left as it was', async () => {
    for (const [what, path, unchanged] of notFiles()) {
      const result = await runCli(['export', 'hledger', '--db', db, '--out', path], cleanEnv());
      expect(oneFailureLine(result, []), what).toMatch(
        new RegExp(
          `^ledger-recon: --out ${path}: .*not a file an output may replace: give --out a file's path, or - for standard output$`,
        ),
      );
      unchanged();
    }
  });

  it('is refused by check --findings-json before anything runs', async () => {
    for (const [what, path, unchanged] of notFiles()) {
      const result = await runCli(['check', '--db', db, '--findings-json', path], cleanEnv());
      expect(oneFailureLine(result, []), what).toMatch(/not a file an output may replace/);
      unchanged();
    }
  });

  it('is never written through where a report would go: the report takes a revision of its own, the FIFO left as it was', async () => {
    const out = join(dir, 'out-with-fifo');
    mkdirSync(out);
    const run = (await historyOf({ db }))[0]!;
    const fifo = join(out, `ledger-recon-${run.startedAt.slice(0, 10)}-run-${run.runId}.xlsx`);
    execFileSync('mkfifo', [fifo]);
    const report = await reportOf(db, { outDir: out, checkRunId: run.runId });
    expect(report.workbook).toBe(fifo.replace(/\.xlsx$/, '-r2.xlsx'));
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});

describe('outputs a user names', () => {
  it('writes the journal to standard output for -, and nothing else there', async () => {
    const result = await runCli(['export', 'hledger', '--db', db, '--out', '-'], cleanEnv());
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.startsWith('; ledger-recon export of the gift card ledger')).toBe(true);
    expect(result.stderr).toBe('');
  });

  it('writes check --findings-json - to standard output, the summary to stderr', async () => {
    const result = await runCli(['check', '--db', db, '--findings-json', '-', '--json'], cleanEnv());
    expect(Array.isArray(JSON.parse(result.stdout))).toBe(true);
    expect(JSON.parse(result.stderr)).toMatchObject({ verdict: 'BREAKS' });
  });

  it('writes through a symlink to a regular file, keeping the link', async () => {
    const target = join(dir, 'journal-target.journal');
    writeFileSync(target, 'old\n');
    const link = join(dir, 'journal-link.journal');
    symlinkSync(target, link);
    const result = await runCli(['export', 'hledger', '--db', db, '--out', link], cleanEnv());
    expect(result.status, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8').startsWith('; ledger-recon export')).toBe(true);
  });
});
