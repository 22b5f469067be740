import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SEVERITIES, type Severity } from '../checks/check.js';
import { CATALOGUE } from '../checks/index.js';
import { clearDemoSchema, isServerUrl, shownDb } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { defaultLocations } from '../locations.js';
import { startSimulator } from '../sim/simulator.js';
import { run } from './run.js';

/** The demo's mirror unless --db says otherwise (data/demo/ledger.db in a checkout). */
const DEMO_DB = defaultLocations().demoDb;

export interface DemoOptions {
  seed: number;
  /** Where the demo's mirror and reports go (default data/demo and reports/demo). */
  db?: string;
  out?: string;
  /** Errors only. */
  quiet?: boolean;
  write?: (text: string) => void;
}

/**
 * `npm start`: starts the simulator of both services in-process with every planted break and
 * legal look-alike, runs the nightly job against it over loopback HTTP (a fresh mirror each
 * time), and prints the verdict, a short summary and the workbook's path. No credentials, no
 * network beyond 127.0.0.1. Exits 0 when the job ran, whatever it found.
 * It makes its mirror afresh only where it made one before (a `.demo` file beside it says so):
 * a mirror it did not make, say the production one given by habit, is left untouched.
 * @throws MirrorError (exit 2) when --db names a mirror the demo did not make.
 */
/** A planted break's severity, as the catalogue gives it to its code. */
function severityOf(code: string): Severity | undefined {
  return CATALOGUE.find((check) => check.code === code)?.severity;
}

/** Removes the demo's earlier mirror file and marks the new one as the demo's; never a file the demo did not make. */
function clearDemoFile(db: string): void {
  const marker = `${db}.demo`;
  // Earlier versions left no marker beside the default demo mirror: that one is the demo's too.
  const ours = existsSync(marker) || resolve(db) === resolve(DEMO_DB);
  if (existsSync(db) && !ours) {
    throw new MirrorError(
      `${db} holds a mirror the demo did not make, and the demo never deletes one: give --db a new path (the demo makes its own mirror there)`,
    );
  }
  for (const suffix of ['', '-wal', '-shm', '.lock', '.lock.sqlite']) rmSync(`${db}${suffix}`, { force: true });
  mkdirSync(dirname(db), { recursive: true });
  writeFileSync(marker, 'made by `ledger-recon demo`, which makes this mirror afresh each time\n');
}

export async function demo(options: DemoOptions): Promise<void> {
  // --quiet: errors only; the exit code and the files say the rest.
  const write = options.quiet ? () => {} : (options.write ?? ((text: string) => process.stdout.write(text)));
  const db = options.db ?? DEMO_DB;
  if (isServerUrl(db)) await clearDemoSchema(db);
  else clearDemoFile(db);
  // The books the demo writes go beside its mirror, or where the default demo's go.
  const folder = isServerUrl(db) ? dirname(DEMO_DB) : dirname(db);
  // The PostgreSQL demo's workbook goes beside the SQLite demo's, never over it (both are run 1).
  const out = options.out ?? `${defaultLocations().demoReports}${isServerUrl(db) ? '-postgres' : ''}`;
  const sim = await startSimulator({ seed: options.seed, plant: true });
  try {
    write(
      `ledger-recon demo: simulators of both services on 127.0.0.1 (seed ${sim.seed}) with ${sim.manifest.breaks.length} breaks planted in the services and ${sim.manifest.lookAlikes.length} legal look-alikes\n`,
    );
    const books = join(folder, 'books');
    rmSync(books, { recursive: true, force: true });
    sim.writeBooks(books);
    write(
      `the merchant's books, written from the same world with ${sim.manifest.books.breaks.length} book breaks: ${books}\n`,
    );
    write(`running the nightly job: ledger-recon run --db ${shownDb(db)} --out ${out} --books ${books}\n\n`);
    const env = {
      ...process.env,
      GIFTCARD_API_URL: sim.giftcardUrl,
      GIFTCARD_CLIENT_ID: sim.credentials.giftcard.clientId,
      GIFTCARD_CLIENT_SECRET: sim.credentials.giftcard.clientSecret,
      DP_API_URL: sim.dpUrl,
      DP_CLIENT_ID: sim.credentials.dp.clientId,
      DP_CLIENT_SECRET: sim.credentials.dp.clientSecret,
    };
    // The demo made its mirror's folder (the books, its marker) and clears it each time: its own.
    const summary = await run({
      db,
      out,
      env,
      verbose: true,
      write,
      books,
      init: true,
    });
    // By severity on both sides, so that an info break planted and found cannot read as a miss.
    const planted = [...sim.manifest.breaks, ...sim.manifest.books.breaks];
    const bySeverity = (count: (severity: Severity) => number): string =>
      SEVERITIES.map((severity) => `${count(severity)} ${severity}`).join(', ');
    write(
      `\n${planted.length} breaks were planted, ${sim.manifest.breaks.length} in the services and ${sim.manifest.books.breaks.length} in the books (${bySeverity((severity) => planted.filter((b) => severityOf(b.code) === severity).length)}); ` +
        `the check found ${bySeverity((severity) => summary.bySeverity[severity])}. Open the workbook above in Excel or LibreOffice.\n` +
        `A night like this one exits ${summary.exitCode} from \`ledger-recon run\`; the demo itself exits 0, as it showed what it was run to show.\n`,
    );
    // The demo succeeded in showing the breaks: its own exit code is 0.
    process.exitCode = 0;
  } finally {
    await sim.close();
  }
}
