/**
 * The population's leaves kept from night to night (#62, point 6): a night hashes again only the
 * cards that moved, and its population root is still the one hashing every card gives. Nights in
 * this process against the simulator over real HTTP, on both backends, with every kind of move a
 * sync makes between them: new activity, a card's snapshot changed, an entry rewritten, one gone
 * (found vanished by a --full) and back, a new card.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leafKeeperOf } from '../../src/ledger/leaves.js';
import { PopulationTally } from '../../src/ledger/population.js';
import { walkCardLedgers } from '../../src/ledger/walk.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { clockAt, nightOf } from '../support/app.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';

const HOUR = 3_600_000;
let sim: Simulator;
let dir: string;
let db: string;
let now = testNow();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-leaves-'));
  sim = await startSimulator({ seed: 66, size: 'tiny', clock: () => now });
  db = mirrorAt(dir);
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The mirror's population as it stands: the root of every card hashed, and how many leaves a keeper would keep. */
async function population(): Promise<{ root: string; cards: number; kept: number }> {
  const mirror = await openMirrorAt(db);
  try {
    const [sync] = await rowsOfMirror<{ id: number }>(db, 'SELECT MAX(sync_run_id) AS id FROM sync_runs');
    const whole = new PopulationTally();
    const keeper = await leafKeeperOf(mirror, Number(sync!.id));
    for await (const batch of walkCardLedgers(mirror)) {
      await keeper.readTo(batch.at(-1)!.card.giftCardId);
      for (const card of batch) {
        whole.add(card);
        keeper.leafOf(card);
      }
    }
    await keeper.finish();
    const result = whole.result();
    return { root: result.merkleRoot, cards: result.cards, kept: keeper.reused };
  } finally {
    await mirror.close();
  }
}

/** A night at `now`; its sealed root must be the one hashing every card gives. */
async function night(full = false): Promise<{ root: string; cards: number }> {
  const { result } = await nightOf(sim, db, join(dir, 'reports'), {
    clock: clockAt(now),
    ...(full ? { full: true } : {}),
  });
  if (!result.ok) throw new Error(result.record.error.message);
  const [run] = await rowsOfMirror<{ summary_json: string }>(
    db,
    'SELECT summary_json FROM check_runs ORDER BY check_run_id DESC LIMIT 1',
  );
  const sealed = (JSON.parse(run!.summary_json) as { population: { merkleRoot: string; cards: number } }).population;
  const mirror = await population();
  expect(sealed.merkleRoot, 'the night root against every card hashed').toBe(mirror.root);
  return { root: sealed.merkleRoot, cards: sealed.cards };
}

describe(`the population's leaves kept (${BACKEND_NAME})`, () => {
  it('hashes again only the cards that moved, and every night states the root of every card hashed', async () => {
    const first = await night();
    // Nothing moved: every leaf stands.
    expect(await population()).toMatchObject({ root: first.root, kept: first.cards });

    // A day of activity, a card's snapshot changed, an entry rewritten, one removed (a --full finds it vanished).
    const truth = sim.truth();
    const [rewritten, removed] = truth.transactions.filter((t) => t.type === 'DEBIT');
    const changed = truth.giftCards.find((c) => c.giftCardId !== rewritten!.giftCardId && c.status === 'ACTIVE')!;
    now += HOUR;
    sim.applyActivity(5);
    sim.mutate.setCard(changed.giftCardId, { status: 'FROZEN' as never });
    sim.mutate.rewriteEntry(rewritten!.transactionId, { referenceId: 'rewritten-ref' });
    sim.mutate.removeEntry(removed!.transactionId);
    now += HOUR;
    const second = await night(true);
    expect(second.root).not.toBe(first.root);
    const after = await population();
    expect(after.kept).toBe(after.cards);

    // The removed entry back, another day.
    sim.mutate.restoreEntry(removed!.transactionId);
    now += HOUR;
    sim.applyActivity(3);
    now += HOUR;
    await night(true);
  }, 120_000);
});
