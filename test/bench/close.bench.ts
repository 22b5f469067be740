/**
 * test/bench/close: a period close over the check bench's mirrors (10,000,000 ledger entries
 * over 1,000,000 cards, and 10x smaller), written directly and reused from data/bench/: one
 * month in the middle of their 400 days, workpapers included (the cards CSV lists every card;
 * the workbook's detail sheets stop at 50,000 rows). Each close runs in a child process of its
 * own, so its peak RSS is its own. Target (10M): under 30 s, peak RSS under 500 MB.
 *
 *   npm run bench -- close                 both sizes
 *   node --import tsx test/bench/close.bench.ts --sizes 1   the small one only
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { openForReading } from '../../src/db/mirror.js';
import { BACKEND, PG_SERVER, postgresCopyOf } from './backend.js';
import { createCardIndexes } from '../../src/db/sqlite/indexes.js';
import { dataAsOf } from '../../src/report/close.js';
import { periodOf } from '../../src/report/period.js';
import { writeClose } from '../../src/report/write-close.js';
import { DEFAULT_LIABILITY_SETTINGS, LiabilityBook } from '../../src/ledger/liability.js';
import { LiabilityTally } from '../../src/ledger/state.js';
import { walkCardFigures } from '../../src/ledger/walk.js';
import { benchMirror } from './bench-mirror.js';
import { peakRssMb } from './measure.js';
import { testNow } from '../support/test-clock.js';

const SIZES = [
  { millions: 1, entries: 1_000_000, cards: 100_000 },
  { millions: 10, entries: 10_000_000, cards: 1_000_000 },
] as const;

/** Child mode: one close over `path`, its figures on stdout. */
async function close(path: string): Promise<void> {
  const mirror = await openForReading(path);
  const asOf = new Date((await dataAsOf(mirror)) ?? testNow());
  // The month that began some 200 days before the data's edge.
  const middle = new Date(asOf.getTime() - 200 * 86_400_000);
  const period = periodOf({ period: middle.toISOString().slice(0, 7) });
  const out = mkdtempSync(join(tmpdir(), 'ledger-recon-close-bench-'));
  const started = performance.now();
  const { close: result, paths } = await writeClose({ mirror, period, outDir: out });
  const seconds = (performance.now() - started) / 1000;
  await mirror.close();
  const cards = result.rollForwards.reduce((n, r) => n + r.cards, 0);
  const entries = result.rollForwards.reduce((n, r) => n + r.entriesInPeriod, 0);
  process.stdout.write(
    `  period ${period.label}: ${result.rollForwards.length} roll-forwards, ${cards.toLocaleString('en')} cards, ${entries.toLocaleString('en')} entries in the period, ${result.closes ? 'ties out' : 'DOES NOT TIE OUT'}\n`,
  );
  process.stdout.write(
    `  workbook ${(statSync(paths.workbook).size / 1e6).toFixed(1)} MB, cards CSV ${(statSync(paths.cardsCsv).size / 1e6).toFixed(1)} MB\n`,
  );
  process.stdout.write(`  TOTAL ${seconds.toFixed(2)} s   peak RSS ${peakRssMb()} MB\n`);
  rmSync(out, { recursive: true, force: true });
}

/**
 * Child mode: the liability workpaper's share of the close, in the same process: the close's walk
 * and roll-forward tally alone, then with the liability at its two cut-offs (ledger/liability.ts),
 * twice each, interleaved; the ratio is what the workpaper adds to the walk (#63: at most 1.25x).
 */
async function liabilityShare(path: string): Promise<void> {
  const mirror = await openForReading(path);
  const asOf = (await dataAsOf(mirror)) ?? testNow();
  const period = periodOf({ period: new Date(asOf - 200 * 86_400_000).toISOString().slice(0, 7) });
  const between = { fromMs: period.startMs, toMs: Math.min(period.endMs, asOf) };
  const pass = async (withLiability: boolean): Promise<number> => {
    const started = performance.now();
    const tally = new LiabilityTally(between, null, true);
    const closing = new LiabilityBook(between.toMs, null, DEFAULT_LIABILITY_SETTINGS);
    const opening = new LiabilityBook(between.fromMs, null, DEFAULT_LIABILITY_SETTINGS);
    for await (const batch of walkCardFigures(mirror))
      for (const walked of batch) {
        const figures = tally.add(walked, false);
        if (withLiability && figures) {
          closing.add(walked.card, walked.entries, figures.unknown);
          opening.add(walked.card, walked.entries);
        }
      }
    if (withLiability) {
      closing.result();
      opening.result();
    }
    return (performance.now() - started) / 1000;
  };
  const without: number[] = [];
  const withIt: number[] = [];
  for (let round = 0; round < 2; round += 1) {
    without.push(await pass(false));
    withIt.push(await pass(true));
  }
  await mirror.close();
  const best = (times: number[]) => Math.min(...times);
  process.stdout.write(
    `  the walk alone ${without.map((t) => t.toFixed(2)).join(' / ')} s, with the liability ${withIt.map((t) => t.toFixed(2)).join(' / ')} s: ${(best(withIt) / best(without)).toFixed(2)}x   peak RSS ${peakRssMb()} MB\n`,
  );
}

const args = process.argv.slice(2);
if (args[0] === '--close') {
  await close(args[1] ?? '');
} else if (args[0] === '--liability') {
  await liabilityShare(args[1] ?? '');
} else {
  const wanted = args[0] === '--sizes' ? (args[1] ?? '').split(',').map(Number) : SIZES.map((s) => s.millions);
  for (const size of SIZES.filter((s) => wanted.includes(s.millions))) {
    const path = benchMirror(`check-${size.millions}m-v4`, size.entries, size.cards);
    process.stdout.write(
      `close over ${size.entries.toLocaleString('en')} entries, ${size.cards.toLocaleString('en')} cards (${path})\n`,
    );
    // A mirror built by an earlier version gets this version's card indexes (the close's covering one among them).
    const writable = new Database(path);
    createCardIndexes(writable);
    writable.close();
    const location = PG_SERVER === '' ? path : await postgresCopyOf(path, `bench_check_${size.millions}m`);
    process.stdout.write(`  in ${BACKEND}\n`);
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--close', location],
      { stdio: 'inherit' },
    );
    if (result.status !== 0) process.exitCode = 1;
    const share = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--liability', location],
      { stdio: 'inherit' },
    );
    if (share.status !== 0) process.exitCode = 1;
  }
}
