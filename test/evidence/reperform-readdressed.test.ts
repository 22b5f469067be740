/**
 * A mirror whose services moved address, not identity (`--rebind` to `localhost` for
 * `127.0.0.1`, and back): the same client IDs reach the same services, so nothing is retired
 * and every earlier night is still re-performed, identical, however many times the address
 * moves (two such rebinds made every earlier night "cannot be rebuilt"). In-process, both backends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NightResult, RunSummary } from '../../src/app/night.js';
import { reperformNight } from '../../src/app/verify.js';
import { openForReading } from '../../src/db/mirror.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { nightOf } from '../support/app.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, mirrorAt } from '../support/test-db.js';

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 195, size: 'tiny', plant: true, nowMs: testNow() });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-readdressed-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The same simulator, reached by `host`. */
const at = (host: string): Simulator => ({
  ...sim,
  giftcardUrl: sim.giftcardUrl.replace('127.0.0.1', host),
  dpUrl: sim.dpUrl.replace('127.0.0.1', host),
});

function finished(result: NightResult): RunSummary {
  if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
  return result.record;
}

describe(`a mirror rebound to another address of the same services (${BACKEND_NAME})`, () => {
  it('re-performs every earlier night identically after any number of such rebinds', async () => {
    const db = mirrorAt(dir, 'readdressed');
    const out = join(dir, 'reports');
    const first = finished((await nightOf(sim, db, out)).result);
    const moved = finished((await nightOf(at('localhost'), db, out, { rebind: true })).result);
    const back = finished((await nightOf(sim, db, out, { rebind: true })).result);
    // The same services: the same findings, none new, none resolved by the moves.
    expect([moved.findings, back.findings]).toEqual([first.findings, first.findings]);
    expect([moved.new, back.new]).toEqual([0, 0]);
    const mirror = await openForReading(db);
    try {
      for (const night of [first, moved, back])
        expect((await reperformNight(mirror, night.runId)).differences, `run ${night.runId}`).toEqual([]);
    } finally {
      await mirror.close();
    }
  });
});
