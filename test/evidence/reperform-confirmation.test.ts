/**
 * Re-performing a night's confirmation pass (sealed nights, #43): every run keeps what its
 * confirmation re-read by ID, as it digested it, and `verify --run N` judges those answers again.
 * A card whose break the re-read found moved on has its time-sensitive break held (it was seen
 * before, or set aside when first seen that night) and its GC_IN_FLIGHT stated; the
 * re-performance weighs them as the night did and is identical, where it named the break set
 * aside "found again now, not among the night's findings" before. A GC_IN_FLIGHT
 * finding taken out by SQL and an answer changed since are each named.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/findings/reconcile.js';
import { rereadGiftCards } from '../../src/sync/confirm.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices, type TestServices } from '../support/simulator.js';
import { changeMirror, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { nightOf, reportOf, told } from '../support/app.js';
import { verifyNight } from '../../src/app/verified.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
let db: string;
let services: TestServices;
let card: string;
/** A card whose break is first found the night it is repaired during the confirmation: not held, set aside. */
let fresh: string;
/** The three nights: the break found, the card repaired while the night confirmed it, after. */
const nights: number[] = [];

interface Verified {
  identical: boolean;
  differences: string[];
  confirmationKept: boolean;
}

/** Check run `run` re-performed in this process (src/app/verified.ts), told as `verify --run N` tells it. */
const verify = async (run: number) => {
  const result = await told(() => verifyNight(run, { db }));
  return { ...result, verified: result.record as unknown as Verified };
};

/** The nightly job in this process (src/app/night.ts); its run's ID. */
const night = async (): Promise<number> => {
  const { result } = await nightOf(services.sim, db, join(dir, 'reports'));
  if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
  return result.record.runId;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-reperform-confirm-'));
  db = mirrorAt(dir);
  services = await startServices({ size: 'tiny', seed: 12 });
  const found = services.sim.truth().giftCards.filter((c) => c.status === 'ACTIVE' && c.remainingBalance >= 10);
  if (found.length < 2) throw new Error('the world has no two active cards with 10.00');
  card = found[0]!.giftCardId;
  fresh = found[1]!.giftCardId;
  // Night 1: the card's balance is 5.00 off its ledger: GC_BALANCE_MISMATCH, new.
  services.sim.mutate.breakBalance(card, { offByCents: 500 });
  nights.push(await night());
  // Night 2: still off when the sync reads it, repaired before the confirmation re-reads it; and
  // another card off for the first time, repaired as well.
  services.sim.mutate.breakBalance(fresh, { offByCents: 700 });
  const mirror = await openMirrorAt(db);
  try {
    await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
    services.sim.mutate.repairBalance(card);
    services.sim.mutate.repairBalance(fresh);
    const run = await reconcile({
      nowMs: testNow(),
      mirror,
      confirm: (request) => rereadGiftCards(mirror, services.giftcard, request, 4),
    });
    nights.push(run.summary.checkRunId);
  } finally {
    await mirror.close();
  }
  // Sealed as a night's report seals it.
  await reportOf(db, { checkRunId: nights[1]!, outDir: join(dir, 'reports') });
  // Night 3: the card reads as its ledger gives it.
  nights.push(await night());
}, 180_000);

afterAll(async () => {
  await services?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("verify --run, the night's confirmation", () => {
  it('held the break of the card the re-read found moved, set aside the one first seen that night, and stated their GC_IN_FLIGHT', async () => {
    for (const moved of [card, fresh]) {
      const stated = await rowsOfMirror<{ code: string; entity_id: string }>(
        db,
        'SELECT code, entity_id FROM findings WHERE check_run_id = ? AND gift_card_id = ? ORDER BY code',
        nights[1],
        moved,
      );
      expect(stated).toEqual([{ code: 'GC_IN_FLIGHT', entity_id: moved }]);
    }
    const held = async (of: string) =>
      (
        await rowsOfMirror<{ code: string }>(
          db,
          'SELECT code FROM held_findings WHERE check_run_id = ? AND gift_card_id = ?',
          nights[1],
          of,
        )
      ).map((f) => f.code);
    expect(await held(card)).toContain('GC_BALANCE_MISMATCH');
    expect(await held(fresh)).toEqual([]);
  });

  it('re-performs every night identically, the confirmation judged again from its kept answers', async () => {
    for (const run of nights) {
      const { status, stderr, verified } = await verify(run);
      expect(verified.differences, `check run ${run}`).toEqual([]);
      expect(verified.identical).toBe(true);
      expect(verified.confirmationKept).toBe(true);
      expect(status, stderr).toBe(0);
    }
    const line = await told(() => verifyNight(nights[1]!, { db }));
    expect(line.stdout).toContain("GC_IN_FLIGHT's");
    expect(line.stdout).toContain("the confirmation's answers judged again");
    expect(line.stdout).not.toContain('of GC_IN_FLIGHT (');
  });

  it('names a GC_IN_FLIGHT finding taken out by SQL, and an answer changed since', async () => {
    const [inFlight] = await rowsOfMirror<{ fingerprint: string }>(
      db,
      "SELECT fingerprint FROM findings WHERE check_run_id = ? AND code = 'GC_IN_FLIGHT' AND entity_id = ?",
      nights[1],
      card,
    );
    const [kept] = await rowsOfMirror<{ rereads_json: string }>(
      db,
      'SELECT rereads_json FROM check_run_rereads WHERE check_run_id = ?',
      nights[1],
    );
    // Taken out of the night by SQL (moved to no run), then put back.
    const move = (from: number, to: number) =>
      changeMirror(
        db,
        'UPDATE findings SET check_run_id = ? WHERE check_run_id = ? AND fingerprint = ?',
        to,
        from,
        inFlight!.fingerprint,
      );
    await move(nights[1]!, -nights[1]!);
    try {
      const deleted = await verify(nights[1]!);
      expect(deleted.status).toBe(1);
      expect(deleted.verified.differences).toContain(
        `finding GC_IN_FLIGHT ${inFlight!.fingerprint}: found again now, not among the night's findings`,
      );
    } finally {
      await move(-nights[1]!, nights[1]!);
    }
    // The answer as if the card had not moved: the night's GC_IN_FLIGHT is no longer borne out.
    const answers = JSON.parse(kept!.rereads_json) as {
      cards: { giftCardId: string; mirrored: unknown; read: unknown }[];
    };
    const changed = {
      ...answers,
      cards: answers.cards.map((c) =>
        c.giftCardId === card ? { ...c, read: { kind: 'found', record: c.mirrored } } : c,
      ),
    };
    try {
      await changeMirror(
        db,
        'UPDATE check_run_rereads SET rereads_json = ? WHERE check_run_id = ?',
        JSON.stringify(changed),
        nights[1],
      );
      const { status, verified } = await verify(nights[1]!);
      expect(status).toBe(1);
      expect(verified.differences.some((d) => d.startsWith("the confirmation's answers kept for check run"))).toBe(
        true,
      );
      expect(verified.differences).toContain(
        `finding GC_IN_FLIGHT ${inFlight!.fingerprint} (giftCard ${card}): among the night's findings, not found again now`,
      );
    } finally {
      await changeMirror(
        db,
        'UPDATE check_run_rereads SET rereads_json = ? WHERE check_run_id = ?',
        kept!.rereads_json,
        nights[1],
      );
    }
    expect((await verify(nights[1]!)).verified.identical).toBe(true);
  });
});
