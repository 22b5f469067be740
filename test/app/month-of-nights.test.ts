/**
 * A month of nights as the cron runs them, in this process through the application layer: the
 * night (src/app/night.ts) every night at 02:30 UTC for a month of simulated days against one
 * mirror, its clock the test's, the closes (src/app/close.ts) and their re-performance
 * (src/app/verify.ts), with ordinary
 * activity between the nights, a weekly --full, a month boundary and its close, and balance
 * breaks planted on some days and repaired on later ones. Nothing moves while a night runs: a
 * break must be an error the first night it can be seen, a repaired one resolved the next night,
 * and nothing is ever in flight; at the end, every night and both closes re-perform from the
 * mirror's history (verify --run, --close). Where the card list gives only {giftCardId, status},
 * a card is read by ID only when the sync asks for it: a break that arrives with a ledger entry is
 * seen that night; one without is seen on the first night after the day's activity gives its
 * card an entry, or by the next --full, which reads every card.
 */
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { canonicalJson } from '../../src/evidence/canonical.js';
import { manifestDigest, type SealedManifest } from '../../src/evidence/manifest.js';
import { verifyFolder } from '../../src/evidence/verify.js';
import { readCheckpoints } from '../../src/evidence/verify-log.js';
import { witness } from '../../src/evidence/witness.js';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExportedFinding } from '../../src/findings/finding.js';
import { toCents } from '../../src/money.js';
import { startSimulator, type GroundTruth, type Simulator } from '../../src/sim/simulator.js';
import { BACKEND_NAME, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { reperformRun } from '../../src/evidence/reperform.js';
import { reperformPeriod, withListsAsOf } from '../../src/app/verify.js';
import { clockAt, closeOf, nightOf } from '../support/app.js';
import { expectPageOfRecord } from '../support/pages.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The first night: 17 October, so that 1 November (night 16) is a month boundary. */
const FIRST_NIGHT_MS = Date.parse('2026-10-17T02:30:00.000Z');
const NIGHTS = 31;
/** The weekly --full. */
const FULL_NIGHTS = new Set([8, 15, 22, 29]);

/** A balance break: planted during the day before night `from`, repaired during the day before night `until`. */
interface Plant {
  /** With a 10.00 DEBIT committed on the day it is planted (the break arrives with a new entry), or without. */
  withDebit: boolean;
  offByCents: number;
  from: number;
  until: number;
}

interface NightJson {
  runId: number;
  verdict: string;
  exitCode: number;
  asOf: string;
  inFlight: number;
  held: number;
  resolved: number;
  rollforward?: { currency: string; difference: string }[];
  report: { json: string };
}

interface RollRow {
  check_run_id: number;
  currency: string;
  opening_cents: number;
  rebase_cents: number;
  closing_cents: number;
  cards_remaining_cents: number;
  difference_cents: number;
  in_flight_cents: number;
}

const cents = (value: number): number => {
  const converted = toCents(value);
  if (!converted.ok) throw new Error(`${value} is off the cent`);
  return converted.cents;
};

/**
 * The world's truth per currency: what the merchant's cards owe by their ledgers (the last
 * entry's balanceAfter, nothing once a VOID or EXPIRE closed the card, the initial balance with
 * no entry) and what their service records say they hold.
 */
function liabilityOf(truth: GroundTruth): Map<string, { ledger: number; service: number }> {
  const last = new Map<string, GroundTruth['transactions'][number]>();
  // The truth lists entries oldest first: a later one with the same instant is the newer.
  for (const entry of truth.transactions) {
    const known = last.get(entry.giftCardId);
    if (!known || Date.parse(entry.createdAt) >= Date.parse(known.createdAt)) last.set(entry.giftCardId, entry);
  }
  const totals = new Map<string, { ledger: number; service: number }>();
  for (const card of truth.giftCards) {
    const tail = last.get(card.giftCardId);
    const closed = tail !== undefined && (tail.type === 'VOID' || tail.type === 'EXPIRE');
    const total = totals.get(card.currency) ?? { ledger: 0, service: 0 };
    if (!closed) {
      total.ledger += cents(tail ? tail.balanceAfter : card.initialBalance);
      total.service += cents(card.remainingBalance);
    }
    totals.set(card.currency, total);
  }
  return totals;
}

/**
 * Runs the month with `plants` against a new mirror and checks every night against the world's
 * truth. `seed` makes the world and its activity.
 */
async function monthOfNights(
  plants: readonly Plant[],
  seed: number,
  cardListShape: 'full' | 'minimal',
  sealed = false,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-month-'));
  // Named in every failure, so that a month seen failing once can be run again.
  const month = `seed ${seed}, ${cardListShape} card list, breaks ${JSON.stringify(plants)}`;
  process.stderr.write(`month of nights on ${BACKEND_NAME}: ${month}\n`);
  let now = FIRST_NIGHT_MS - 2 * HOUR;
  const sim: Simulator = await startSimulator({ size: 'small', seed, cardListShape, clock: () => now });
  // The night each break is first seen: its own where it arrives with an entry or the card list
  // carries balances; else the first night its card is read by ID: a --full, or one after a day
  // of activity on the card (before the plant or after), which the settle pass reads again.
  const seenOn = new Map<Plant, number>();
  const seenFrom = (plant: Plant): number => seenOn.get(plant) ?? Infinity;
  try {
    const db = mirrorAt(dir);
    const out = join(dir, 'reports');
    const nightMs = (night: number): number => FIRST_NIGHT_MS + (night - 1) * DAY;
    const planted = new Map<Plant, string>();
    const chosen = new Set<string>();
    const expected = new Map<number, Map<string, { ledger: number; service: number }>>();
    const resolvedOn = new Map<string, number>();
    const lastNightMs = nightMs(NIGHTS);
    const runIds: number[] = [];
    // With `sealed`, every seal publishes the log's checkpoint and a witness cosigns each.
    const log = sealed ? new MonthLog(dir) : undefined;
    const evidence: string[] = [];

    for (let night = 1; night <= NIGHTS; night += 1) {
      // ---- the day before the night: ordinary activity, the services' own jobs, breaks and repairs
      if (night > 1) {
        const dayStart = nightMs(night - 1) + HOUR;
        for (let hour = 0; hour < 22; hour += 3) {
          // One operation an instant, so that the ledger's order is its time's.
          for (let op = 0; op < 4; op += 1) {
            now = dayStart + hour * HOUR + op * 60_000;
            sim.applyActivity(1);
          }
          now += 60_000;
          sim.runServiceJobs();
          now += 60_000;
          if (hour === 9) {
            for (const plant of plants.filter((p) => p.from === night)) {
              const truth = sim.truth();
              const card = truth.giftCards.find(
                (c) =>
                  c.status === 'ACTIVE' &&
                  !chosen.has(c.giftCardId) &&
                  cents(c.remainingBalance) >= 3_000 &&
                  Date.parse(c.expiresAt) > lastNightMs + DAY,
              );
              if (!card) throw new Error('no card left to plant a break on');
              chosen.add(card.giftCardId);
              sim.mutate.breakBalance(card.giftCardId, {
                offByCents: plant.offByCents,
                ...(plant.withDebit ? { debitCents: 1_000 } : {}),
              });
              planted.set(plant, card.giftCardId);
            }
          }
          if (hour === 12) {
            for (const plant of plants.filter((p) => p.until === night)) sim.mutate.repairBalance(planted.get(plant)!);
          }
        }
      }
      now = nightMs(night) - 60_000;
      sim.runServiceJobs();
      // Nothing moves while the night runs: the world's clock stands at 02:29.
      const entries = sim.truth().transactions;
      for (const plant of plants.filter((p) => p.from <= night && p.until > night && !seenOn.has(p))) {
        // An entry since the last night, before the plant or after it: the night reads the card again.
        const touched = entries.some(
          (e) => e.giftCardId === planted.get(plant) && Date.parse(e.createdAt) > nightMs(night - 1),
        );
        if (plant.withDebit || cardListShape === 'full' || FULL_NIGHTS.has(night) || touched) seenOn.set(plant, night);
      }

      // ---- the night -------------------------------------------------------------------------------
      // The night in this process (src/app/night.ts), its clock standing at 02:30 as the world's does.
      const label = `night ${night} (${new Date(nightMs(night)).toISOString().slice(0, 10)})`;
      const { result } = await nightOf(sim, db, out, {
        clock: clockAt(nightMs(night)),
        ...(FULL_NIGHTS.has(night) ? { full: true } : {}),
        ...log?.seal,
      });
      if (!result.ok)
        throw new Error(`${label} (${month}): ${result.record.error.code}: ${result.record.error.message}`);
      evidence.push(result.record.report.evidence);
      log?.cosign(nightMs(night));
      const json: NightJson = result.record;
      runIds.push(json.runId);
      // The night's page states the figures of its JSON record, with every night so far in its trends.
      expectPageOfRecord(result.record.report.page, result.record, night);
      const findings = JSON.parse(readFileSync(json.report.json, 'utf8')) as ExportedFinding[];
      const open = plants.filter((p) => seenFrom(p) <= night && p.until > night);
      // What the mirror can know: a break no read has seen yet leaves its card's snapshot at its ledger.
      const liability = liabilityOf(sim.truth());
      for (const plant of plants.filter((p) => p.from <= night && p.until > night && seenFrom(p) > night)) {
        const currency = sim.truth().giftCards.find((c) => c.giftCardId === planted.get(plant))!.currency;
        liability.get(currency)!.service -= plant.offByCents;
      }
      expected.set(json.runId, liability);

      // Nothing moved during the sync: nothing is in flight or held, on any surface.
      expect(json.inFlight, label).toBe(0);
      expect(json.held, label).toBe(0);
      expect(
        findings.filter((f) => f.code === 'GC_IN_FLIGHT' || f.code === 'GC_STUCK_IN_FLIGHT'),
        label,
      ).toEqual([]);
      // Every open break is an error from its first night, and nothing else fails the night.
      const breaks = findings.filter((f) => f.severity !== 'info');
      const brokenCards = new Set(open.map((p) => planted.get(p)!));
      for (const f of breaks)
        expect(brokenCards.has(f.giftCardId ?? ''), `${label}: ${f.code} ${f.message}`).toBe(true);
      for (const f of breaks) expect(['GC_BALANCE_MISMATCH', 'GC_LEDGER_TAIL_MISMATCH'], label).toContain(f.code);
      for (const plant of open) {
        const card = planted.get(plant)!;
        const mismatch = findings.find((f) => f.code === 'GC_BALANCE_MISMATCH' && f.giftCardId === card);
        expect(mismatch, `${label}: the break planted before night ${plant.from} on ${card}`).toBeDefined();
        expect(mismatch).toMatchObject({
          severity: 'error',
          state: seenFrom(plant) === night ? 'new' : 'open',
          ageDays: night - seenFrom(plant),
        });
      }
      expect(json.verdict, label).toBe(open.length > 0 ? 'BREAKS' : 'RECONCILED');
      expect(json.exitCode, label).toBe(open.length > 0 ? 1 : 0);
      for (const plant of plants.filter((p) => p.until === night && seenFrom(p) < night))
        resolvedOn.set(planted.get(plant)!, json.runId);

      // ---- the month boundary: October is closed on the morning of 1 November -------------------------
      if (new Date(nightMs(night)).toISOString().slice(0, 10) === '2026-11-01') {
        const october = await closeOf(db, out, '2026-10', nightMs(night) + HOUR, log?.seal);
        log?.cosign(nightMs(night) + HOUR);
        expect(october.result.closes, `October: ${JSON.stringify(october.result.rollForwards)}`).toBe(true);
      }
    }

    // ---- every night's roll-forward is the world's truth and opens at the previous closing ---------------
    const rolls = await rowsOfMirror<RollRow>(
      db,
      'SELECT check_run_id, currency, opening_cents, rebase_cents, closing_cents, cards_remaining_cents, difference_cents, in_flight_cents FROM liability_rollforward ORDER BY currency, check_run_id',
    );
    const runs = [...expected.keys()];
    expect(new Set(rolls.map((r) => r.check_run_id))).toEqual(new Set(runs));
    for (const row of rolls) {
      const truth = expected.get(row.check_run_id)!.get(row.currency) ?? { ledger: 0, service: 0 };
      expect(row, `run ${row.check_run_id} ${row.currency}`).toMatchObject({
        closing_cents: truth.ledger,
        cards_remaining_cents: truth.service,
        difference_cents: truth.service - truth.ledger,
        rebase_cents: 0,
        in_flight_cents: 0,
      });
    }
    for (const currency of new Set(rolls.map((r) => r.currency))) {
      const ofCurrency = rolls.filter((r) => r.currency === currency);
      for (let i = 1; i < ofCurrency.length; i += 1)
        expect(ofCurrency[i]!.opening_cents, `${currency} run ${ofCurrency[i]!.check_run_id}`).toBe(
          ofCurrency[i - 1]!.closing_cents,
        );
    }
    // ---- each repaired break was resolved on the night after its repair, once -------------------------------
    const resolved = await rowsOfMirror<{ check_run_id: number; code: string; entity_id: string }>(
      db,
      'SELECT check_run_id, code, entity_id FROM resolved_findings ORDER BY check_run_id',
    );
    for (const [card, runId] of resolvedOn) {
      const mismatches = resolved.filter((r) => r.entity_id === card && r.code === 'GC_BALANCE_MISMATCH');
      expect(
        mismatches.map((r) => r.check_run_id),
        `the break on ${card}`,
      ).toEqual([runId]);
    }
    // ---- November so far ends now and ties out against the service; the months chain -------------------------
    const november = await closeOf(db, out, '2026-11', lastNightMs + HOUR, log?.seal);
    log?.cosign(lastNightMs + HOUR);
    if (log) await log.heldAgainstAttacks(out, evidence, seed);
    expect(november.result.closes, `November: ${JSON.stringify(november.result.rollForwards)}`).toBe(true);
    const closeJson = (period: string) =>
      JSON.parse(readFileSync(join(out, `ledger-recon-close-${period}.json`), 'utf8')) as {
        endsNow: boolean;
        rollForwards: {
          currency: string;
          programId: string | null;
          opening: string;
          closingFromFlows: string;
          closes: boolean;
        }[];
      };
    // ---- every past night and both closes re-perform from the mirror's history, as sealed ---------------------
    const mirror = await openMirrorAt(db);
    try {
      for (const [i, runId] of runIds.entries())
        expect(
          (await withListsAsOf(mirror, (listsAt) => reperformRun(mirror, runId, listsAt))).differences,
          `night ${i + 1} (run ${runId})`,
        ).toEqual([]);
    } finally {
      await mirror.close();
    }
    const reopened = await openMirrorAt(db);
    try {
      for (const period of ['2026-10', '2026-11'])
        expect((await reperformPeriod(reopened, period)).identical, `the close of ${period}`).toBe(true);
    } finally {
      await reopened.close();
    }
    const [october, sinceNovember] = [closeJson('2026-10'), closeJson('2026-11')];
    expect(sinceNovember.endsNow).toBe(true);
    for (const r of sinceNovember.rollForwards) {
      expect(r.closes).toBe(true);
      const before = october.rollForwards.find((o) => o.currency === r.currency && o.programId === r.programId);
      expect(r.opening, `${r.currency} ${r.programId}`).toBe(before?.closingFromFlows ?? '0.00');
    }
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The month's log of seals: its checkpoints published into `checkpoints/`, a witness cosigning
 * each, and at the end the folder held to the last cosigned checkpoint, whole and then with one
 * night removed, one edited and one re-sealed (nights drawn from the month's seed).
 */
class MonthLog {
  readonly #key = generateKeyPairSync('ed25519');
  readonly #witness = generateKeyPairSync('ed25519');
  readonly #place: string;
  readonly #state: string;
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
    this.#place = join(dir, 'checkpoints');
    this.#state = join(dir, 'witness.json');
  }

  get seal() {
    return { signingKey: this.#key.privateKey, checkpoints: this.#place };
  }

  get #logFolder(): string {
    return join(this.#place, readdirSync(this.#place)[0]!);
  }

  cosign(atMs: number): void {
    witness({
      logFolder: this.#logFolder,
      key: this.#witness.privateKey,
      name: 'auditor.example/witness',
      statePath: this.#state,
      logKey: this.#key.publicKey,
      nowSeconds: Math.floor(atMs / 1000),
    });
  }

  async #heldTo(folder: string) {
    const newest = readdirSync(this.#logFolder)
      .filter((n) => n.endsWith('.cosigned'))
      .sort()
      .at(-1)!;
    const checkpoints = readCheckpoints(join(this.#logFolder, newest));
    if ('problem' in checkpoints) throw new Error(checkpoints.problem);
    return verifyFolder(folder, this.#key.publicKey, { checkpoints, witnessKey: this.#witness.publicKey });
  }

  #copy(out: string, name: string): string {
    const target = join(this.#dir, name);
    cpSync(out, target, { recursive: true });
    return target;
  }

  async heldAgainstAttacks(out: string, evidence: readonly string[], seed: number): Promise<void> {
    const whole = await this.#heldTo(out);
    expect(whole.problems).toEqual([]);
    // The month's nights and its two closes, each a seal of the log, all proven in the last checkpoint.
    expect(whole.log).toMatchObject({ size: NIGHTS + 2, proven: NIGHTS + 2 });
    const placeOf = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as { sequence: number }).sequence;
    const night = (offset: number) => evidence[(seed + offset) % NIGHTS]!;

    const removed = night(0);
    const dropped = this.#copy(out, 'dropped');
    for (const file of (JSON.parse(readFileSync(removed, 'utf8')) as { outputs: { file: string }[] }).outputs)
      rmSync(join(dropped, file.file));
    rmSync(join(dropped, basename(removed)));
    rmSync(join(dropped, basename(removed).replace(/-evidence\.json$/, '-evidence.dsse.json')));
    expect((await this.#heldTo(dropped)).problems, `night ${basename(removed)} removed`).toContainEqual(
      expect.stringMatching(new RegExp(`^place ${placeOf(removed)} of the log .* is not in the folder`)),
    );

    const edited = night(11);
    const changed = this.#copy(out, 'edited');
    const csv = basename(edited).replace(/-evidence\.json$/, '-findings.csv');
    writeFileSync(join(changed, csv), `${readFileSync(join(changed, csv), 'utf8')}x`);
    expect((await this.#heldTo(changed)).problems, `night ${csv} edited`).toContainEqual(
      expect.stringMatching(new RegExp(`^${csv}: changed since it was sealed by ${basename(edited)}`)),
    );

    const resealed = night(23);
    const again = this.#copy(out, 'resealed');
    const manifest = JSON.parse(readFileSync(join(again, basename(resealed)), 'utf8')) as SealedManifest;
    const rewritten = { ...manifest, settings: { ...manifest.settings, failOn: 'never' } };
    const sealedAgain = { ...rewritten, digest: manifestDigest(rewritten) };
    writeFileSync(
      join(again, basename(resealed)),
      `${JSON.stringify(JSON.parse(canonicalJson(sealedAgain)), null, 2)}\n`,
    );
    rmSync(join(again, basename(resealed).replace(/-evidence\.json$/, '-evidence.dsse.json')));
    expect((await this.#heldTo(again)).problems, `night ${basename(resealed)} re-sealed`).toContainEqual(
      expect.stringContaining(`${basename(resealed)} (place ${placeOf(resealed)}) was sealed again or replaced`),
    );
  }
}

/** Breaks of both shapes, across a --full, the month boundary, and repaired the next day. */
const MONTH: readonly Plant[] = [
  { withDebit: true, offByCents: 500, from: 3, until: 5 },
  { withDebit: false, offByCents: -250, from: 6, until: 9 },
  { withDebit: true, offByCents: 1_234, from: 14, until: 18 },
  { withDebit: false, offByCents: 500, from: 20, until: 21 },
  { withDebit: true, offByCents: -100, from: 26, until: 28 },
];

const plantArb: fc.Arbitrary<Plant> = fc
  .record({
    withDebit: fc.boolean(),
    offByCents: fc.integer({ min: -1_500, max: 1_500 }).filter((n) => n !== 0),
    from: fc.integer({ min: 2, max: NIGHTS - 1 }),
    nights: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ nights, ...plant }) => ({ ...plant, until: Math.min(plant.from + nights, NIGHTS) }));

let started: number;
beforeEach(() => {
  started = performance.now();
});
afterEach(() => {
  // The month takes about a minute a backend; a figure to watch, not an assertion.
  process.stderr.write(`month of nights on ${BACKEND_NAME}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
});

describe(`a month of nights as the cron runs them (${BACKEND_NAME})`, () => {
  it('reports every break on its first night, resolves a repaired one the next night, never shows anything in flight, and closes the month', async () => {
    // Every night and both closes re-performed at the end, as in the random months below; every
    // seal published to the log, each checkpoint cosigned, the folder held to the last one.
    await monthOfNights(MONTH, 41, 'minimal', true);
  }, 600_000);

  it('holds for random breaks and repairs on random nights (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(plantArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.constantFrom('full' as const, 'minimal' as const),
        async (plants, seed, shape) => monthOfNights(plants, seed, shape),
      ),
      // A month takes a minute: a failing one is reported as it is (its parameters are printed
      // at its start), not shrunk, which would take longer than the test has.
      { numRuns: Number(process.env['MONTH_OF_NIGHTS_RUNS'] ?? 1), endOnFailure: true },
    );
  }, 1_200_000);
});
