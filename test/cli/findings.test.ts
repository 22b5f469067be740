/**
 * `ledger-recon findings list`: the newest complete run's findings, each with the fingerprint a
 * person accepts it by, filtered by code, severity and age, as a table or JSON; it records no run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../support/cli.js';
import { mirrorAt } from '../support/test-db.js';

let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-findings-'));
  db = mirrorAt(dir, 'demo');
  const demo = await runCli(['demo', '--db', db, '--out', join(dir, 'reports')], cleanEnv());
  expect(demo.status, demo.stderr).toBe(0);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Listed {
  code: string;
  severity: string;
  fingerprint: string;
  ageDays: number;
  state: string;
}

const list = async (...args: string[]) => runCli(['findings', 'list', '--db', db, ...args], cleanEnv());

describe('findings list', () => {
  it('lists every finding of the newest run as JSON, worst first, and records no run', async () => {
    const history = async () =>
      JSON.parse((await runCli(['history', '--json', '--db', db], cleanEnv())).stdout) as {
        runId: number;
        findings: number;
      }[];
    const before = await history();
    const result = await list('--json');
    expect(result.status, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout) as Listed[];
    expect(listed).toHaveLength(before[0]!.findings);
    const ranks = listed.map((f) => ['error', 'warning', 'info'].indexOf(f.severity));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(await history()).toEqual(before);
  });

  it('filters by code, severity and age', async () => {
    const all = JSON.parse((await list('--json')).stdout) as Listed[];
    const code = all[0]!.code;
    const byCode = JSON.parse((await list('--json', '--code', code.toLowerCase())).stdout) as Listed[];
    expect(byCode.length).toBe(all.filter((f) => f.code === code).length);
    const warnings = JSON.parse((await list('--json', '--severity', 'warning')).stdout) as Listed[];
    expect(warnings.length).toBe(all.filter((f) => f.severity === 'warning').length);
    expect(JSON.parse((await list('--json', '--min-age', '1')).stdout)).toEqual([]);
  });

  it('prints a table with the fingerprint accept takes, and a closing count', async () => {
    const all = JSON.parse((await list('--json')).stdout) as Listed[];
    const table = await list();
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^fingerprint\s+code\s+severity\s+state\s+age\s+amount/);
    expect(lines[1]).toContain(all[0]!.fingerprint);
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^\\(${all.length} findings of run 1; accept one with: ledger-recon accept FINGERPRINT --note "…"\\)$`,
      ),
    );
  });

  it('refuses an unknown code or severity in one line', async () => {
    const code = await list('--code', 'NO_SUCH_CODE');
    expect(code.status).toBe(2);
    expect(code.stderr).toMatch(/^ledger-recon: --code NO_SUCH_CODE is no check's code/);
    const severity = await list('--severity', 'fatal');
    expect(severity.stderr).toBe('ledger-recon: --severity must be one of error, warning, info\n');
  });
});
