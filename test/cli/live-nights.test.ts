import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { simulatorEnv } from '../support/cli.js';
import { BACKENDS } from '../support/backends.js';
import { closeOf, nightOf } from '../support/app.js';
import { closeTold } from '../../src/app/close-lines.js';
import { queryMirror } from '../../src/app/sql.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
let sim: Simulator | undefined;
let cleanup: (() => Promise<void>) | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-live-'));
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  await cleanup?.();
  cleanup = undefined;
  rmSync(dir, { recursive: true, force: true });
});

interface NightJson {
  verdict: string;
  exitCode: number;
  bySeverity: Record<string, number>;
  asOf: string;
  rollforward?: unknown;
}

describe.each(BACKENDS)('a healthy world with live activity, as the cron sees it ($name)', (backend) => {
  it.skipIf(!backend.available)(
    'reconciles two nights and ties out the month, showing what was in flight apart',
    async () => {
      sim = await startSimulator({ size: 'small', seed: 77, live: { intervalMs: 2 } });
      const _env = simulatorEnv(sim);
      const mirror = backend.location();
      cleanup = mirror.cleanup;
      const db = mirror.db;
      const out = join(dir, 'reports');
      const nights: NightJson[] = [];
      for (let night = 1; night <= 2; night += 1) {
        // The night in this process (src/app/night.ts), the world moving while it runs.
        const { result, notes } = await nightOf(sim, db, out);
        if (!result.ok) throw new Error(`night ${night}: ${result.record.error.message}`);
        const json: NightJson = result.record;
        expect(notes, `night ${night}`).toEqual([]);
        expect(json, `night ${night}`).toMatchObject({
          verdict: 'RECONCILED',
          exitCode: 0,
          bySeverity: { error: 0, warning: 0 },
        });
        expect(json.rollforward).toBeUndefined();
        nights.push(json);
      }
      const month = nights[1]!.asOf.slice(0, 7);
      const close = await closeOf(db, out, month, testNow());
      const told = closeTold(month, close);
      expect(told.warnings).toEqual([]);
      expect(told.lines).toContain(`period ${month}: ties out`);
      const json = JSON.parse(readFileSync(close.paths.json, 'utf8')) as {
        rollForwards: { inFlight: string; inFlightCards: number; closes: boolean }[];
      };
      for (const r of json.rollForwards) expect(r).toMatchObject({ closes: true });
      // Each night's roll-forward opens at the previous night's closing, in the mirror too.
      const rolls = await queryMirror(
        'SELECT check_run_id, currency, opening_cents, rebase_cents, closing_cents, difference_cents FROM liability_rollforward ORDER BY currency, check_run_id',
        { db, format: 'json' },
      );
      const rows = JSON.parse(rolls.text) as {
        check_run_id: number;
        currency: string;
        opening_cents: number;
        rebase_cents: number;
        closing_cents: number;
        difference_cents: number;
      }[];
      expect(rows.length).toBeGreaterThan(1);
      for (const row of rows) expect(row).toMatchObject({ rebase_cents: 0, difference_cents: 0 });
      for (const currency of new Set(rows.map((r) => r.currency))) {
        const [first, second] = rows.filter((r) => r.currency === currency);
        if (first && second) expect(second.opening_cents).toBe(first.closing_cents);
      }
    },
    120_000,
  );
});
