/**
 * test/bench/check: the checker over mirrors written directly (not over HTTP): 1,000,000 and
 * 10,000,000 ledger entries over 100,000 and 1,000,000 cards, entries interleaved in time
 * across cards as a real ledger is. Each check runs in a child process of its own so its peak
 * RSS is its own. Built mirrors are kept under data/bench/ and reused by later runs.
 * Targets (10M): total under 60 s on a 2-core machine, peak RSS under 500 MB.
 *
 *   npm run bench -- check                 both sizes
 *   node --import tsx test/bench/check.bench.ts --sizes 1   the small one only
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealRun } from '../../src/evidence/write.js';
import { reperformRun } from '../../src/evidence/reperform.js';
import { withListsAsOf } from '../../src/app/verify.js';
import { fileURLToPath } from 'node:url';
import { reconcile } from '../../src/findings/reconcile.js';
import { type Mirror, openMirror } from '../../src/db/mirror.js';
import { leafKeeperOf } from '../../src/ledger/leaves.js';
import { PopulationTally } from '../../src/ledger/population.js';
import { walkCardLedgers } from '../../src/ledger/walk.js';
import { BACKEND, openBenchMirror, PG_SERVER, postgresCopyOf } from './backend.js';
import { benchMirror } from './bench-mirror.js';
import { peakRssMb } from './measure.js';
import { testNow } from '../support/test-clock.js';

const SIZES = [
  { millions: 1, entries: 1_000_000, cards: 100_000 },
  { millions: 10, entries: 10_000_000, cards: 1_000_000 },
] as const;

/** Child mode: one check run over `path`, its figures on stdout. */
async function check(path: string): Promise<void> {
  const mirror = await openBenchMirror(path);
  const started = performance.now();
  const { summary } = await reconcile({ nowMs: testNow(), mirror });
  const seconds = (performance.now() - started) / 1000;
  // The seal of the night (sealed nights issue): its manifest over the mirror (coupons, orders and
  // wallets read in ID order with their roots, the findings' digest) and the chain, apart from the
  // check's walk (which builds the ledger's Merkle root) and from hashing the outputs (their size).
  const outputs = mkdtempSync(join(tmpdir(), 'ledger-recon-bench-seal-'));
  const files = { workbook: join(outputs, 'w.xlsx'), csv: join(outputs, 'f.csv'), json: join(outputs, 'f.json') };
  for (const file of Object.values(files)) writeFileSync(file, '');
  const sealStarted = performance.now();
  await sealRun(mirror, summary.checkRunId, files, { nowMs: testNow() });
  const sealSeconds = (performance.now() - sealStarted) / 1000;
  rmSync(outputs, { recursive: true, force: true });
  // Re-performing the night's ledger population from the mirror's history (verify --run).
  const reperformStarted = performance.now();
  const reperformed = await withListsAsOf(mirror, (listsAt) => reperformRun(mirror, summary.checkRunId, listsAt));
  const reperformSeconds = (performance.now() - reperformStarted) / 1000;
  // A night after, nothing moved: the population's leaves are kept, none hashed again (#62, point 6).
  const againStarted = performance.now();
  const { summary: again } = await reconcile({ nowMs: testNow(), mirror });
  const againSeconds = (performance.now() - againStarted) / 1000;
  const kept = await mirror.connection.pluck<number>('SELECT COUNT(*) FROM population_leaves').get();
  const population = await populationCost(mirror, again.syncRunId);
  await mirror.close();
  process.stdout.write(
    `  card walk (${summary.cards.toLocaleString('en')} cards, ${summary.entries.toLocaleString('en')} entries) ${(summary.walkMs / 1000).toFixed(2)} s, including the card checks:\n`,
  );
  for (const [code, ms] of Object.entries(summary.checkTimesMs))
    process.stdout.write(`    ${code.padEnd(34)} ${(ms / 1000).toFixed(2).padStart(7)} s\n`);
  process.stdout.write(`  verdict ${summary.verdict}, ${summary.findings} findings\n`);
  process.stdout.write(
    `  TOTAL ${seconds.toFixed(2)} s   peak RSS ${peakRssMb()} MB (every card's leaf hashed and kept)\n`,
  );
  process.stdout.write(
    `  a night after, nothing moved: ${againSeconds.toFixed(2)} s, ${(againSeconds / seconds).toFixed(2)}x (the ${Number(kept).toLocaleString('en')} leaves kept, none hashed again; same root: ${again.population?.merkleRoot === summary.population?.merkleRoot})\n`,
  );
  const share = population.kept / 1000 / (againSeconds - population.kept / 1000);
  process.stdout.write(
    `  the population in the walk (best of 5, the walk alone ${(population.walk / 1000).toFixed(2)} s): every card hashed ${(population.full / 1000).toFixed(2)} s, the leaves kept ${(population.kept / 1000).toFixed(2)} s = ${(100 * share).toFixed(1)} % of the night after without it (target: under 10 %)\n`,
  );
  process.stdout.write(
    `  verify --run (the population, card and list checks, standing and figures re-performed: ${reperformed.differences.length === 0 ? 'identical' : 'DIFFERS'}) ${reperformSeconds.toFixed(2)} s: ${(reperformSeconds / seconds).toFixed(2)}x the check\n`,
  );
  process.stdout.write(
    `  seal (manifest and chain, outputs aside) ${sealSeconds.toFixed(2)} s: ${((100 * sealSeconds) / seconds).toFixed(1)} % of the check\n`,
  );
}

/**
 * What the population costs the walk, in this process: the walk alone, the walk with every card
 * hashed, the walk with the kept leaves (none moved), each the best of five (ms).
 */
async function populationCost(
  mirror: Mirror,
  syncRunId: number,
): Promise<{ walk: number; full: number; kept: number }> {
  const best = { walk: Infinity, full: Infinity, kept: Infinity };
  for (let round = 0; round < 5; round += 1) {
    let t = performance.now();
    for await (const batch of walkCardLedgers(mirror)) void batch;
    best.walk = Math.min(best.walk, performance.now() - t);
    t = performance.now();
    const whole = new PopulationTally();
    for await (const batch of walkCardLedgers(mirror)) for (const card of batch) whole.add(card);
    best.full = Math.min(best.full, performance.now() - t);
    t = performance.now();
    const keeper = await leafKeeperOf(mirror, syncRunId);
    const kept = new PopulationTally();
    for await (const batch of walkCardLedgers(mirror)) {
      if (batch.length > 0) await keeper.readTo(batch.at(-1)!.card.giftCardId);
      for (const card of batch) kept.add(card, keeper.leafOf(card));
    }
    await keeper.finish();
    best.kept = Math.min(best.kept, performance.now() - t);
  }
  // Each the best of its own three: the walk's noise is not subtracted round by round.
  return { walk: best.walk, full: Math.max(0, best.full - best.walk), kept: Math.max(0, best.kept - best.walk) };
}

const args = process.argv.slice(2);
if (args[0] === '--check') {
  await check(args[1] ?? '');
} else {
  const wanted = args[0] === '--sizes' ? (args[1] ?? '').split(',').map(Number) : SIZES.map((s) => s.millions);
  for (const size of SIZES.filter((s) => wanted.includes(s.millions))) {
    const file = benchMirror(`check-${size.millions}m-v4`, size.entries, size.cards);
    const path = PG_SERVER === '' ? file : await postgresCopyOf(file, `bench_check_${size.millions}m`);
    process.stdout.write(
      `check in ${BACKEND} over ${size.entries.toLocaleString('en')} entries, ${size.cards.toLocaleString('en')} cards (${path})\n`,
    );
    // Each run starts from the built mirror's own findings history: drop earlier bench runs.
    const reset = PG_SERVER === '' ? openMirror(path) : await openBenchMirror(path);
    await reset.connection.exec(
      'DELETE FROM findings; DELETE FROM held_findings; DELETE FROM resolved_findings; DELETE FROM liability_rollforward; DELETE FROM check_runs; DELETE FROM population_leaves;',
    );
    await reset.close();
    const result = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--check', path], {
      stdio: 'inherit',
    });
    if (result.status !== 0 && result.status !== 1) process.exitCode = 1;
  }
}
