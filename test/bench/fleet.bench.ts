/**
 * test/bench/fleet: `ledger-recon fleet` over 200 merchants' mirrors (schemas of one PostgreSQL
 * database under `npm run bench`, else SQLite files), each holding a night of a small planted
 * world: the time to read them all into its rows, write its page and JSON, and the page's size.
 * Target (#64): under 10 s for 200 schemas.
 */
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetOf, mirrorsOf } from '../../src/app/fleet.js';
import { writeFleet } from '../../src/app/fleet-page.js';
import { nightAt } from '../../src/app/night.js';
import { keepingSink, systemClock } from '../../src/app/context.js';
import { shownMirror } from '../../src/db/mirror.js';
import { startSimulator } from '../../src/sim/simulator.js';
import { dpConfig, giftcardConfig } from '../support/simulator.js';
import { BACKEND, benchLocation, dropBenchMirror, PG_SERVER } from './backend.js';
import { peakRssMb } from './measure.js';

const MERCHANTS = Number(process.env['FLEET_MERCHANTS'] ?? 200);

const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-bench-fleet-'));
const sim = await startSimulator({ seed: 64, size: 'tiny', plant: true });
const locations = Array.from({ length: MERCHANTS }, (_, i) =>
  benchLocation(`fleet_${String(i).padStart(3, '0')}`, dir),
);
try {
  const started = performance.now();
  // A night into the first mirror; the others are copies of its file, or nights of their own on the server.
  for (const [i, location] of locations.entries()) {
    if (PG_SERVER === '' && i > 0) {
      copyFileSync(locations[0]!, location);
      continue;
    }
    const result = await nightAt(
      { giftcard: giftcardConfig(sim), dp: dpConfig(sim) },
      { clock: systemClock, signal: new AbortController().signal, sink: keepingSink() },
      { location, shownMirror: shownMirror(location), outDir: join(dir, 'reports'), init: true },
    );
    if (!result.ok) throw new Error(`night ${i}: ${result.record.error.message}`);
  }
  const made = (performance.now() - started) / 1000;
  const read = performance.now();
  const mirrors = PG_SERVER === '' ? locations : (await mirrorsOf([], [PG_SERVER])).filter((u) => u.includes('fleet_'));
  const fleet = await fleetOf(systemClock, { mirrors, lateAfterHours: 26 });
  const written = writeFleet(fleet, join(dir, 'fleet'));
  const seconds = (performance.now() - read) / 1000;
  process.stdout.write(
    `fleet (${BACKEND}): ${fleet.merchants.length} mirrors read, page and JSON written in ${seconds.toFixed(2)} s ` +
      `(${((seconds / fleet.merchants.length) * 1000).toFixed(1)} ms a mirror); page ${(statSync(written.page).size / 1024).toFixed(0)} KB, ` +
      `JSON ${(statSync(written.json).size / 1024).toFixed(0)} KB; peak RSS ${peakRssMb()} MB (the ${MERCHANTS} nights made in ${made.toFixed(0)} s)\n`,
  );
} finally {
  await sim.close();
  for (const location of locations) await dropBenchMirror(location).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
