/**
 * test/bench/books: the merchant's books against the ledger at scale. A ledger of 1,000,000
 * entries (the check bench's mirror, copied) and a books export of the same size written from it
 * as CSV, one in a thousand rows left out, one in a thousand at another amount, every ten
 * thousandth doubled; then the import and the matching, each in a child process of its own so
 * that its peak RSS is its own. Targets: import under 30 s, matching under 30 s, RSS under 500 MB.
 * And equal rows, as a promo code used all day with date-only times writes them: 1,000,000 coupon
 * uses of 1,000 distinct meanings into an empty mirror, under 30 s (each equal row one insert).
 * Then a night over those books, and the night re-performed with them (`verify --run`: the books
 * rebuilt as its matching read them, matched again beside the ledger as of its sync), against
 * the night's check and report: under 2x.
 *
 * On PostgreSQL (LEDGER_RECON_BENCH_PG) the mirror is a fresh copy of the check bench's in a
 * schema, dropped after, as the equal rows' empty one is.
 *
 *   npm run bench -- books
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { importBooksFile } from '../../src/books/import-books.js';
import { matchBooks } from '../../src/books/matching.js';
import { withListsAsOf } from '../../src/app/verify.js';
import { reperformRun } from '../../src/evidence/reperform.js';
import { sealRun } from '../../src/evidence/write.js';
import { writeReport } from '../../src/report/write-report.js';
import { withHeapPaced } from '../../src/app/heap.js';
import { reconcile } from '../../src/findings/reconcile.js';
import { BACKEND, benchLocation, dropBenchMirror, openBenchMirror, PG_SERVER, postgresCopyOf } from './backend.js';
import { benchMirror } from './bench-mirror.js';
import { peakRssMb, timed } from './measure.js';
import { testNow } from '../support/test-clock.js';

const ENTRIES = 1_000_000;
const CARDS = 100_000;

/** Writes the books of every DEBIT and REFUND in the mirror, bent a little. @returns rows written. */
async function writeBooks(mirrorPath: string, csvPath: string): Promise<number> {
  const sqlite = new Database(mirrorPath, { readonly: true });
  const out = createWriteStream(csvPath);
  out.write('reference,type,amount,currency,time\n');
  let n = 0;
  const rows = sqlite.prepare(
    `SELECT t.reference_id AS reference, t.type, t.amount_cents AS cents, c.currency, t.created_at AS at FROM gift_card_transactions t JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
     WHERE t.type IN ('DEBIT', 'REFUND') AND t.amount_cents > 0 ORDER BY t.created_at_ms`,
  );
  for (const row of rows.iterate() as Iterable<{
    reference: string;
    type: string;
    cents: number;
    currency: string;
    at: string;
  }>) {
    n += 1;
    if (n % 1_000 === 17) continue;
    const cents = n % 1_000 === 503 ? row.cents + 1 : row.cents;
    const line = `${row.reference},${row.type === 'DEBIT' ? 'payment' : 'refund'},${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')},${row.currency},${row.at}\n`;
    if (!out.write(n % 10_000 === 9 ? line + line : line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  sqlite.close();
  return n;
}

/** 1,000,000 coupon uses of 1,000 distinct meanings (code and day). */
async function writeRepeated(csvPath: string): Promise<void> {
  const out = createWriteStream(csvPath);
  out.write('couponCode,time\n');
  for (let n = 0; n < REPEATED; n += 1)
    if (!out.write(`PROMO-${n % 100},2026-10-${String((n % 10) + 1).padStart(2, '0')}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

const REPEATED = 1_000_000;

async function child(step: string, location: string, csvPath: string): Promise<void> {
  const mirror = await openBenchMirror(location);
  if (step === 'repeated') {
    const result = await timed('  import of equal rows (1,000,000 rows, 1,000 meanings)', () =>
      importBooksFile(mirror, csvPath, { nowMs: testNow(), kind: 'coupon-uses' }),
    );
    process.stdout.write(
      `  ${result.rowsRead.toLocaleString('en')} rows read, ${result.rowsAdded.toLocaleString('en')} added, ${result.problems.length} rejected\n`,
    );
  } else if (step === 'import') {
    const result = await timed('  import (CSV → books_rows, one transaction)', () =>
      importBooksFile(mirror, csvPath, { nowMs: testNow(), kind: 'tenders' }),
    );
    process.stdout.write(
      `  ${result.rowsRead.toLocaleString('en')} rows read, ${result.rowsAdded.toLocaleString('en')} added, ${result.problems.length} rejected\n`,
    );
  } else if (step === 'night') {
    // A night over the books (their matching, the checks), then that night re-performed with its
    // books: rebuilt as the matching read them, beside the ledger's tenders as of its sync, matched again.
    const started = performance.now();
    const { summary } = await reconcile({ nowMs: testNow(), mirror });
    const night = (performance.now() - started) / 1000;
    // Its report written and sealed, as a night's is: re-performance compares with what it sealed.
    const reportStarted = performance.now();
    const paths = await withHeapPaced(() =>
      writeReport({ mirror, checkRunId: summary.checkRunId, outDir: join(dirname(csvPath), 'reports') }),
    );
    const report = (performance.now() - reportStarted) / 1000;
    await sealRun(mirror, summary.checkRunId, paths, { nowMs: testNow() });
    const again = performance.now();
    const reperformed = await withListsAsOf(mirror, (listsAt) => reperformRun(mirror, summary.checkRunId, listsAt));
    const seconds = (performance.now() - again) / 1000;
    process.stdout.write(
      `  night: check (matching and checks) ${night.toFixed(2)} s, ${summary.findings.toLocaleString('en')} findings; report ${report.toFixed(2)} s\n` +
        `  verify --run with its books (${reperformed.booksFindings?.toLocaleString('en') ?? 'not'} books findings re-performed: ${reperformed.differences.length === 0 ? 'identical' : `DIFFERS: ${reperformed.differences.slice(0, 3).join('; ')}`}) ${seconds.toFixed(2)} s: ${(seconds / (night + report)).toFixed(2)}x the night's check and report (${(seconds / night).toFixed(2)}x its check)   peak RSS ${peakRssMb()} MB\n`,
    );
  } else {
    const asOfMs = (await mirror.connection.pluck<number>('SELECT MAX(started_at_ms) FROM sync_runs').get()) ?? 0;
    const outcome = await timed('  matching (all rules, books_match_rows)', () =>
      matchBooks(mirror, { nowMs: testNow(), asOfMs, merchantId: null }),
    );
    process.stdout.write(
      `  ${outcome.groups.toLocaleString('en')} groups; records by status: ${Object.entries(outcome.byStatus)
        .map(([s, c]) => `${s} ${c.toLocaleString('en')}`)
        .join(', ')}\n`,
    );
  }
  await mirror.close();
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  await child(args[1] ?? '', args[2] ?? '', args[3] ?? '');
} else {
  const source = benchMirror('check-1m-v4', ENTRIES, CARDS);
  const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-books-bench-'));
  try {
    const mirrorPath = join(dir, 'ledger.db');
    copyFileSync(source, mirrorPath);
    // On PostgreSQL a copy of its own, which the import changes: dropped after, made afresh each run.
    const location = PG_SERVER === '' ? mirrorPath : await postgresCopyOf(mirrorPath, `bench_books_${process.pid}`);
    const repeated = benchLocation(`bench_books_repeated_${process.pid}`, dir);
    const csvPath = join(dir, 'tenders.csv');
    const entries = await writeBooks(mirrorPath, csvPath);
    process.stdout.write(`books into ${BACKEND}\n`);
    process.stdout.write(
      `books of ${entries.toLocaleString('en')} ledger debits and refunds: ${csvPath} (${(statSync(csvPath).size / 1e6).toFixed(0)} MB)\n`,
    );
    const repeatedPath = join(dir, 'coupon-uses.csv');
    await writeRepeated(repeatedPath);
    try {
      for (const [step, mirror, csv] of [
        ['import', location, csvPath],
        ['match', location, csvPath],
        ['night', location, csvPath],
        ['repeated', repeated, repeatedPath],
      ] as const) {
        const result = spawnSync(
          process.execPath,
          ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', step, mirror, csv],
          { stdio: 'inherit' },
        );
        if (result.status !== 0) process.exitCode = 1;
      }
    } finally {
      if (location !== mirrorPath) await dropBenchMirror(location);
      await dropBenchMirror(repeated);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
