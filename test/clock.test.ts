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

/**
 * What the clock says in a new Node process that preloads the clock with `env`: `<offset> <instant>`,
 * the offset being how far its clock stands from the wall clock, in ms (read there, not here).
 */
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
      // Its clock, and how far it stands from the process's own wall clock (its origin plus its monotonic
      // time, which drifts from the system's clock by milliseconds: compared to within a second).
      'const t = Date.now.call(Date); const off = Math.round(t - performance.timeOrigin - performance.now()); process.stdout.write(off + " " + new Date(t).toISOString())',
    ],
    { env: { ...rest, ...env }, encoding: 'utf8' },
  );
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe('the test clock', () => {
  it("gives every process of the run the run's instant anchored at the run's start", () => {
    const now = process.env['LEDGER_RECON_TEST_NOW'] ?? DEFAULT_TEST_NOW;
    const anchor = process.env['LEDGER_RECON_TEST_ANCHOR'] ?? '';
    const child = nowIn({ LEDGER_RECON_TEST_NOW: now, LEDGER_RECON_TEST_ANCHOR: anchor });
    const offset = Number(child.stdout.split(' ')[0]);
    expect(Math.abs(offset - (Date.parse(now) - Number(anchor))), child.stdout + child.stderr).toBeLessThan(1_000);
    // This worker too: its clock stands after the run's instant by the run's time so far, well under a day.
    const since = testNow() - Date.parse(now);
    expect(since).toBeGreaterThanOrEqual(0);
    expect(since).toBeLessThan(86_400_000);
  });

  it('starts a process at an RFC 3339 instant, a leap day included, and at epoch milliseconds', () => {
    const leap = nowIn({ LEDGER_RECON_TEST_NOW: '2028-02-29T23:30:00Z' });
    expect(leap.stderr).toBe('');
    expect(leap.stdout).toMatch(/ 2028-02-29T23:30:0\d\.\d{3}Z$/);
    const ms = nowIn({ LEDGER_RECON_TEST_NOW: String(Date.parse('2026-12-31T23:59:30Z')) });
    expect(ms.stdout).toMatch(/ 2026-12-31T23:59:3\d\.\d{3}Z$/);
  });

  it('sets the clock by the anchor: the instant stands as far from the anchor as the wall clock does', () => {
    // A run that began at 2026-01-01T00:00:00Z (its anchor) at the instant 2027-06-01T00:00:00Z.
    const anchor = Date.parse('2026-01-01T00:00:00Z');
    const child = nowIn({ LEDGER_RECON_TEST_NOW: '2027-06-01T00:00:00Z', LEDGER_RECON_TEST_ANCHOR: String(anchor) });
    const offset = Number(child.stdout.split(' ')[0]);
    expect(Math.abs(offset - (Date.parse('2027-06-01T00:00:00Z') - anchor))).toBeLessThan(1_000);
  });

  it('refuses an instant it cannot read, naming the forms it takes', () => {
    const refused = nowIn({ LEDGER_RECON_TEST_NOW: 'tomorrow' });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(
      'LEDGER_RECON_TEST_NOW=tomorrow is not an RFC 3339 instant (2028-02-29T23:30:00Z) or epoch milliseconds',
    );
  });
});
