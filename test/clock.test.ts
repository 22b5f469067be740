/**
 * The tests' one clock (test/support/clock.mjs, pinned by vitest.config.ts): every process of a
 * run reads LEDGER_RECON_TEST_NOW's instant plus the real time since the run began, never the
 * wall clock's day.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEST_NOW, testNow } from './support/test-clock.js';

const CLOCK = fileURLToPath(new URL('./support/clock.mjs', import.meta.url));

/** What the clock says in a new Node process that preloads the clock with `env`. */
function nowIn(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const {
    LEDGER_RECON_TEST_NOW: _now,
    LEDGER_RECON_TEST_ANCHOR: _anchor,
    NODE_OPTIONS: _options,
    ...rest
  } = process.env;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      CLOCK,
      '-e',
      'const t = Date.now.call(Date); process.stdout.write(t + " " + new Date(t).toISOString())',
    ],
    { env: { ...rest, ...env }, encoding: 'utf8' },
  );
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe('the test clock', () => {
  it("reads the run's instant, anchored at the run's start, in this process", () => {
    const pinned = Date.parse(process.env['LEDGER_RECON_TEST_NOW'] ?? DEFAULT_TEST_NOW);
    const anchor = Number(process.env['LEDGER_RECON_TEST_ANCHOR']);
    // The wall clock, read past the shifted Date: the process's origin plus its monotonic time.
    const wall = performance.timeOrigin + performance.now();
    expect(Math.abs(testNow() - (pinned + (wall - anchor)))).toBeLessThan(1_000);
  });

  it('starts a process at an RFC 3339 instant, a leap day included, and at epoch milliseconds', () => {
    const leap = nowIn({ LEDGER_RECON_TEST_NOW: '2028-02-29T23:30:00Z' });
    expect(leap.stderr).toBe('');
    expect(leap.stdout).toMatch(/ 2028-02-29T23:30:0\d\.\d{3}Z$/);
    const ms = nowIn({ LEDGER_RECON_TEST_NOW: String(Date.parse('2026-12-31T23:59:30Z')) });
    expect(ms.stdout).toMatch(/ 2026-12-31T23:59:3\d\.\d{3}Z$/);
  });

  it('gives every process of a run the same clock through the anchor', () => {
    const anchor = performance.timeOrigin + performance.now() - 3_600_000;
    const child = nowIn({ LEDGER_RECON_TEST_NOW: '2027-06-01T00:00:00Z', LEDGER_RECON_TEST_ANCHOR: String(anchor) });
    // The run began an hour ago at midnight: its clock reads one o'clock.
    expect(child.stdout).toMatch(/ 2027-06-01T01:00:0\d\.\d{3}Z$/);
  });

  it('refuses an instant it cannot read, naming the forms it takes', () => {
    const refused = nowIn({ LEDGER_RECON_TEST_NOW: 'tomorrow' });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(
      'LEDGER_RECON_TEST_NOW=tomorrow is not an RFC 3339 instant (2028-02-29T23:30:00Z) or epoch milliseconds',
    );
  });
});
