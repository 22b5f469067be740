/**
 * Cards the service lists but answers 404 for by ID (the service disagrees with itself): one
 * GC_LISTED_NOT_FOUND finding a night names them, open night after night while they stay so,
 * resolved when the service finds them again, and re-performed as the night met them. A card
 * with ledger entries is not among them: its entries are GC_ORPHAN_ENTRY errors. The night
 * in-process against the project's hostile front over the simulator, on both backends.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NightResult, RunSummary } from '../../src/app/night.js';
import { reperformNight } from '../../src/app/verify.js';
import { gcListedNotFound } from '../../src/checks/gc-listed-not-found.js';
import { openForReading } from '../../src/db/mirror.js';
import type { ExportedFinding } from '../../src/findings/finding.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { nightOf } from '../support/app.js';
import { startHostile, type Hostile } from '../support/hostile.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, changeMirror, mirrorAt } from '../support/test-db.js';

let sim: Simulator;
let front: Hostile;
let dir: string;
/** A card without ledger entries, and one with. */
let entryless: string;
let withEntries: string;

beforeAll(async () => {
  // Cards listed by ID only (a minimal list), so each new card is read by ID.
  sim = await startSimulator({ seed: 194, size: 'tiny', cardListShape: 'minimal', nowMs: testNow() });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-listed-not-found-'));
  const truth = sim.truth();
  const used = new Set(truth.transactions.map((entry) => entry.giftCardId));
  entryless = truth.giftCards.find((card) => !used.has(card.giftCardId))!.giftCardId;
  withEntries = truth.giftCards.find((card) => used.has(card.giftCardId))!.giftCardId;
  front = await startHostile(sim);
});
afterAll(async () => {
  await front.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The simulator as the night meets it through `front`. */
const through = (front: Hostile): Simulator => ({ ...sim, giftcardUrl: front.giftcardUrl, dpUrl: front.dpUrl });

/** A night through a front that answers 404 by ID for `lost`; its summary and its findings file. */
async function night(
  db: string,
  lost: readonly string[],
): Promise<{ summary: RunSummary; findings: ExportedFinding[] }> {
  // One front for every night (the mirror is bound to its address), its switch set per night.
  front.switches.cardNotFoundById = lost;
  const { result } = await nightOf(through(front), db, join(dir, 'reports'));
  const summary = finished(result);
  return { summary, findings: JSON.parse(readFileSync(summary.report.json, 'utf8')) as ExportedFinding[] };
}

function finished(result: NightResult): RunSummary {
  if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
  return result.record;
}

describe(`cards the service lists but cannot find (${BACKEND_NAME})`, () => {
  it('are one finding a night naming them, open while they stay so, resolved when found, and re-performed as met', async () => {
    const db = mirrorAt(dir, 'listed');
    const first = await night(db, [entryless, withEntries]);
    const listed = first.findings.filter((f) => f.code === 'GC_LISTED_NOT_FOUND');
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ severity: 'warning', state: 'new' });
    expect(listed[0]?.message).toBe(
      `the card list answered with 1 card that a read by ID answers "not found" for: ${entryless} — ask the service why it lists cards it cannot find`,
    );
    // The card with entries is the orphans' own: an error for each of its entries, not named here.
    expect(first.findings.some((f) => f.code === 'GC_ORPHAN_ENTRY' && f.giftCardId === withEntries)).toBe(true);

    const second = await night(db, [entryless]);
    expect(second.findings.filter((f) => f.code === 'GC_LISTED_NOT_FOUND')).toMatchObject([
      { fingerprint: listed[0]?.fingerprint, state: 'open' },
    ]);

    const third = await night(db, []);
    expect(third.findings.filter((f) => f.code === 'GC_LISTED_NOT_FOUND')).toEqual([]);
    expect(third.summary.resolved).toBeGreaterThan(0);

    // The first night re-performed from the mirror finds what it found: its own sightings, not tonight's.
    const mirror = await openForReading(db);
    try {
      expect((await reperformNight(mirror, first.summary.runId)).differences).toEqual([]);
    } finally {
      await mirror.close();
    }
    // It is re-performed, not passed over: without the night's sighting, the night's finding is a difference.
    await changeMirror(db, 'DELETE FROM listed_not_found WHERE sync_run_id = ?', first.summary.sync.syncRunId);
    const changed = await openForReading(db);
    try {
      expect((await reperformNight(changed, first.summary.runId)).differences.join('\n')).toContain(
        'GC_LISTED_NOT_FOUND',
      );
    } finally {
      await changed.close();
    }
  });
});

describe('GC_LISTED_NOT_FOUND decides', () => {
  it('one finding naming the first ten cards, every card among its records', () => {
    const rows = Array.from({ length: 25 }, (_, i) => ({ gift_card_id: `card-${String(i).padStart(2, '0')}` }));
    const [finding, ...more] = gcListedNotFound.decide(rows, { asOfMs: 0, merchantId: 'm', options: {} as never });
    expect(more).toEqual([]);
    expect(finding?.message).toBe(
      `the card list answered with 25 cards that a read by ID answers "not found" for: ${rows
        .slice(0, 10)
        .map((r) => r.gift_card_id)
        .join(
          ', ',
        )} and 15 more (the finding's records name them all) — ask the service why it lists cards it cannot find`,
    );
    expect(finding?.records).toHaveLength(25);
    expect(gcListedNotFound.decide([], { asOfMs: 0, merchantId: 'm', options: {} as never })).toEqual([]);
  });
});
