/**
 * Every merchant at once (src/app/fleet.ts), in the test's own process: two merchants' mirrors
 * (SQLite files here, schemas of one PostgreSQL database in the postgres project), a file that is
 * no mirror and a path with none; their rows, sorted by risk, equal to each night's JSON record;
 * late past the age set, overdue past the SLA; the page and the JSON written.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetOf, type MerchantRow, mirrorsOf } from '../../src/app/fleet.js';
import { writeFleet } from '../../src/app/fleet-page.js';
import type { RunSummary } from '../../src/app/night.js';
import { shownMirror } from '../../src/db/mirror.js';
import { AGE_BUCKETS } from '../../src/findings/age.js';
import { groupThousands } from '../../src/money.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { clockAt, nightOf } from '../support/app.js';
import { expectPageOfRecord } from '../support/pages.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, mirrorAt, ON_POSTGRES } from '../support/test-db.js';

const HOUR = 3_600_000;
let planted: Simulator;
let quiet: Simulator;
let dir: string;
const nights: { planted: RunSummary; quiet: RunSummary } = {} as never;
const dbs = { planted: '', quiet: '' };

beforeAll(async () => {
  [planted, quiet] = await Promise.all([
    startSimulator({ seed: 81, size: 'tiny', plant: true, nowMs: testNow() }),
    startSimulator({ seed: 82, size: 'tiny', nowMs: testNow() }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-fleet-'));
  for (const [name, sim] of [
    ['planted', planted],
    ['quiet', quiet],
  ] as const) {
    dbs[name] = mirrorAt(dir, name);
    const { result } = await nightOf(sim, dbs[name], join(dir, `${name}-reports`));
    if (!result.ok) throw new Error(`the ${name} night failed: ${result.record.error.message}`);
    nights[name] = result.record;
  }
}, 120_000);
afterAll(async () => {
  await Promise.all([planted.close(), quiet.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const rowOf = (rows: MerchantRow[], db: string) => rows.find((m) => m.mirror === shownMirror(db));

describe(`every merchant at once (${BACKEND_NAME})`, () => {
  it("writes each merchant's night its page, whose figures are the night's JSON record", () => {
    for (const record of [nights.planted, nights.quiet]) expectPageOfRecord(record.report.page, record, 1);
  });

  it("states each merchant's last night as its JSON record does, worst first; a mirror it cannot read is a row saying why", async () => {
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'not a database');
    const unreadable = ON_POSTGRES ? [] : [garbage, join(dir, 'nowhere', 'none.db')];
    const fleet = await fleetOf(clockAt(testNow()), {
      mirrors: [dbs.quiet, dbs.planted, ...unreadable],
      lateAfterHours: 26,
    });
    expect(fleet.merchants.map((m) => m.standing)).toEqual([
      ...unreadable.map(() => 'unreadable'),
      'breaks',
      'reconciled',
    ]);
    for (const row of fleet.merchants.slice(0, unreadable.length)) {
      expect(row.problem).toMatch(/\S/);
      // The mirrors are fleet's arguments: no --db in why one cannot be read, nor the mirror named twice.
      expect(row.problem).not.toContain('--db');
      expect(row.problem?.startsWith(row.mirror)).toBe(false);
    }
    for (const name of ['planted', 'quiet'] as const) {
      const row = rowOf(fleet.merchants, dbs[name])!;
      const night = nights[name];
      expect(row.lastNight).toMatchObject({ runId: night.runId, verdict: night.verdict, hoursAgo: 0 });
      expect(row.moneyAtStake).toEqual(night.moneyAtStake);
      expect(row.liability).toEqual(
        Object.fromEntries(Object.entries(night.liability).map(([currency, r]) => [currency, r.cardsRemaining])),
      );
      // Every open break was first seen tonight: all in the first bucket, its money the night's at stake.
      const open = night.bySeverity.error + night.bySeverity.warning;
      expect(row.openBreaks.map((b) => b.bucket)).toEqual(AGE_BUCKETS.map((b) => b.label));
      expect(row.openBreaks[0]).toEqual({ bucket: '0–24 h', breaks: open, atStake: night.moneyAtStake });
      expect(row.oldestBreak === null).toBe(open === 0);
    }
    // Unreadable mirrors need a person: exit 1; the two nights alone do not.
    expect(fleet.exitCode).toBe(unreadable.length > 0 ? 1 : 0);
    expect(
      (await fleetOf(clockAt(testNow()), { mirrors: [dbs.planted, dbs.quiet], lateAfterHours: 26 })).exitCode,
    ).toBe(0);
  });

  it('calls a merchant late past the age set, and a break overdue past its SLA, each failing the fleet', async () => {
    const later = await fleetOf(clockAt(testNow() + 27 * HOUR), {
      mirrors: [dbs.planted, dbs.quiet],
      lateAfterHours: 26,
    });
    expect(later.merchants.map((m) => [m.standing, m.late])).toEqual([
      ['late', true],
      ['late', true],
    ]);
    expect(later.exitCode).toBe(1);
    // A month on, with a generous age: the planted merchant's errors are past their due time.
    const month = await fleetOf(clockAt(testNow() + 30 * 24 * HOUR), {
      mirrors: [dbs.planted, dbs.quiet],
      lateAfterHours: 10_000,
    });
    const row = rowOf(month.merchants, dbs.planted)!;
    expect(row.standing).toBe('overdue');
    expect(row.overdue).toBeGreaterThan(0);
    expect(row.openBreaks.find((b) => b.bucket === '30 d+')?.breaks).toBe(
      row.openBreaks.reduce((n, b) => n + b.breaks, 0),
    );
    expect(row.oldestBreak?.ageHours).toBeGreaterThanOrEqual(30 * 24);
    expect(month.merchants[0]?.mirror).toBe(row.mirror);
    expect(month.exitCode).toBe(1);
  });

  it('writes its page and its JSON: the same figures, every text as text', async () => {
    const fleet = await fleetOf(clockAt(testNow()), { mirrors: [dbs.planted, dbs.quiet], lateAfterHours: 26 });
    const written = writeFleet(fleet, join(dir, 'fleet'));
    expect(JSON.parse(readFileSync(written.json, 'utf8'))).toEqual(JSON.parse(JSON.stringify(fleet)));
    const page = readFileSync(written.page, 'utf8');
    expect(page).toMatch(/^<!DOCTYPE html>/);
    expect(page).not.toMatch(/<script|https?:\/\//);
    expect(page).toContain('2 merchants; none needs attention');
    for (const row of fleet.merchants) {
      expect(page).toContain(row.mirror.replace(/&/g, '&amp;'));
      for (const [currency, amount] of Object.entries(row.moneyAtStake))
        expect(page).toContain(`${currency} ${groupThousands(amount)}`);
    }
  });

  it.runIf(ON_POSTGRES)('reads every schema of a database that holds a mirror, and only those', async () => {
    const server = new URL(dbs.planted);
    server.searchParams.delete('schema');
    const found = await mirrorsOf([], [server.toString()]);
    const schemaOf = (url: string) => new URL(url).searchParams.get('schema');
    expect(found.map(schemaOf)).toEqual(expect.arrayContaining([schemaOf(dbs.planted), schemaOf(dbs.quiet)]));
    const fleet = await fleetOf(clockAt(testNow()), {
      mirrors: found.filter((url) => [schemaOf(dbs.planted), schemaOf(dbs.quiet)].includes(schemaOf(url))),
      lateAfterHours: 26,
    });
    expect(fleet.merchants.map((m) => m.standing)).toEqual(['breaks', 'reconciled']);
  });
});
