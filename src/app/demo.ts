/**
 * The demo as a job: the simulator of both services in-process with every planted break and
 * legal look-alike, the merchant's books written from the same world, and the night run against
 * them over loopback HTTP into a fresh mirror the demo makes (never one it did not make).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { booksFilesIn } from '../books/import-books.js';
import { clearDemoSchema, isServerUrl, shownDb, shownMirror } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { defaultLocations } from '../locations.js';
import type { Manifest } from '../sim/planted-breaks.js';
import { startSimulator } from '../sim/simulator.js';
import { AGED_CARDS, SIZE_PRESETS } from '../sim/generator.js';
import { loadConfig } from '../config.js';
import type { JobContext } from './context.js';
import { nightAt, type NightResult } from './night.js';
import { SEVERITIES, type Severity } from '../checks/check.js';
import { CATALOGUE } from '../checks/index.js';
import type { CheckRunSummary } from '../findings/summary.js';

export interface DemoSettings {
  /** The simulated worlds' seed. */
  seed: number;
  /** Where the demo's mirror goes (default data/demo/ledger.db, or a PostgreSQL schema's URL). */
  db?: string;
  /** Where its reports go (default reports/demo, or reports/demo-postgres for a schema). */
  out?: string;
  /** The settings beside the simulator's (default the process's environment). */
  env?: NodeJS.ProcessEnv;
}

export interface DemoOutcome {
  result: NightResult;
  /** What the simulator planted, in the services and in the books. */
  manifest: Manifest;
}

/**
 * Makes the demo's mirror afresh, starts the simulator at the context's clock, writes the books
 * beside the mirror, and runs the night over them. Tells `context.sink.note` what it does, a
 * line at a time, before it does it.
 * @throws MirrorError when `db` names a mirror the demo did not make.
 */
export async function demoNight(context: Omit<JobContext, 'mirror'>, settings: DemoSettings): Promise<DemoOutcome> {
  const demoDb = defaultLocations().demoDb;
  const db = settings.db ?? demoDb;
  if (isServerUrl(db)) await clearDemoSchema(db);
  else clearDemoFile(db, demoDb);
  // The PostgreSQL demo's workbook goes beside the SQLite demo's, never over it (both are run 1).
  const out = settings.out ?? `${defaultLocations().demoReports}${isServerUrl(db) ? '-postgres' : ''}`;
  // The books the demo writes go beside its mirror; a PostgreSQL demo's beside its reports, so two
  // demos on one server (two schemas, two folders) never clear each other's.
  const books = isServerUrl(db) ? `${resolve(out)}-books` : join(dirname(db), 'books');
  const now = context.clock.now();
  // The small world with its aged cards: five and a half years of them, for the close's liability workpaper.
  const sim = await startSimulator({
    seed: settings.seed,
    plant: true,
    nowMs: now,
    clock: () => context.clock.now(),
    size: { ...SIZE_PRESETS.small, agedCards: AGED_CARDS.small },
  });
  const { note } = context.sink;
  try {
    note(
      `ledger-recon demo: simulators of both services on 127.0.0.1 (seed ${sim.seed}) with ${sim.manifest.breaks.length} breaks planted in the services and ${sim.manifest.lookAlikes.length} legal look-alikes\n`,
    );
    rmSync(books, { recursive: true, force: true });
    sim.writeBooks(books);
    note(
      `the merchant's books, written from the same world with ${sim.manifest.books.breaks.length} book breaks: ${books}\n`,
    );
    note(`running the nightly job: ledger-recon run --db ${shownDb(db)} --out ${out} --books ${books}\n\n`);
    const { giftcard, dp } = sim.credentials;
    // The simulator's six variables over the process's own settings (its timeout, its log level).
    const config = loadConfig(
      {},
      {
        ...(settings.env ?? process.env),
        GIFTCARD_API_URL: sim.giftcardUrl,
        GIFTCARD_CLIENT_ID: giftcard.clientId,
        GIFTCARD_CLIENT_SECRET: giftcard.clientSecret,
        DP_API_URL: sim.dpUrl,
        DP_CLIENT_ID: dp.clientId,
        DP_CLIENT_SECRET: dp.clientSecret,
      },
    );
    const result = await nightAt(config, context, {
      location: db,
      shownMirror: shownMirror(db),
      outDir: out,
      // The demo makes its own mirror, wherever it is told.
      init: true,
      books: booksFilesIn(books),
      secrets: [giftcard.clientSecret, dp.clientSecret],
    });
    return { result, manifest: sim.manifest };
  } finally {
    await sim.close();
  }
}

/** Removes the demo's earlier mirror file and marks the new one as the demo's; never a file the demo did not make. */
function clearDemoFile(db: string, demoDb: string): void {
  const marker = `${db}.demo`;
  // Earlier versions left no marker beside the default demo mirror: that one is the demo's too.
  const ours = existsSync(marker) || resolve(db) === resolve(demoDb);
  if (existsSync(db) && !ours) {
    throw new MirrorError(
      `${db} holds a mirror the demo did not make, and the demo never deletes one: give --db a new path (the demo makes its own mirror there)`,
    );
  }
  for (const suffix of ['', '-wal', '-shm', '.lock', '.lock.sqlite']) rmSync(`${db}${suffix}`, { force: true });
  mkdirSync(dirname(db), { recursive: true });
  writeFileSync(marker, 'made by `ledger-recon demo`, which makes this mirror afresh each time\n');
}

/** A planted break's severity, as the catalogue gives it to its code. */
function severityOf(code: string): Severity | undefined {
  return CATALOGUE.find((check) => check.code === code)?.severity;
}

/**
 * What the demo says after the night's summary: the breaks planted and those found, by severity
 * on both sides (so that an info break planted and found cannot read as a miss), and its exit code.
 */
export function plantedAndFound(manifest: DemoOutcome['manifest'], summary: CheckRunSummary): string {
  const planted = [...manifest.breaks, ...manifest.books.breaks];
  const bySeverity = (count: (severity: Severity) => number): string =>
    SEVERITIES.map((severity) => `${count(severity)} ${severity}`).join(', ');
  const found = summary.bySeverity;
  return (
    `\n${planted.length} breaks were planted, ${manifest.breaks.length} in the services and ${manifest.books.breaks.length} in the books (${bySeverity((severity) => planted.filter((b) => severityOf(b.code) === severity).length)}); ` +
    `the check found ${bySeverity((severity) => found[severity])}. Open the workbook above in Excel or LibreOffice.\n` +
    `A night like this one exits ${summary.exitCode} from \`ledger-recon run\`; the demo itself exits 0, as it showed what it was run to show.\n`
  );
}
