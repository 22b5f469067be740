/**
 * `npm run bench`: runs each benchmark in a process of its own, so each one's peak RSS is
 * its own, and prints their figures. Pass names to run a subset: npm run bench -- simulator
 *
 * Where PostgreSQL is installed, the benches that read or write a mirror (sync, check, close,
 * report, books) run a second time against a local server this script starts (its data kept under the
 * system's temporary folder, so copies of the bench mirrors are made once), right after the
 * SQLite run: the two backends' figures stand side by side, taken on the machine in the same
 * minutes. `--sqlite` skips the PostgreSQL runs.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { postgresMissing } from '../support/postgres.js';
import { startBenchServer } from './backend.js';

const BENCHES = ['cli', 'simulator', 'network', 'sync', 'check', 'close', 'report', 'books', 'fleet'] as const;
const ON_BOTH: ReadonlySet<string> = new Set(['sync', 'check', 'close', 'report', 'books', 'fleet']);

const args = process.argv.slice(2);
const wanted = args.filter((arg) => !arg.startsWith('--'));
const selected = wanted.length > 0 ? BENCHES.filter((name) => wanted.includes(name)) : BENCHES;
const postgres =
  !args.includes('--sqlite') && selected.some((name) => ON_BOTH.has(name)) && postgresMissing() === undefined
    ? startBenchServer()
    : undefined;
if (postgresMissing() !== undefined) process.stdout.write(`${postgresMissing()}\n`);
let failed = 0;
try {
  for (const name of selected) {
    const file = fileURLToPath(new URL(`./${name}.bench.ts`, import.meta.url));
    process.stdout.write(`\n== ${name}${postgres && ON_BOTH.has(name) ? ' (SQLite)' : ''}\n`);
    if (spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit' }).status !== 0) failed += 1;
    if (postgres && ON_BOTH.has(name)) {
      process.stdout.write(`\n== ${name} (PostgreSQL)\n`);
      const result = spawnSync(process.execPath, ['--import', 'tsx', file], {
        stdio: 'inherit',
        env: { ...process.env, LEDGER_RECON_BENCH_PG: postgres.url },
      });
      if (result.status !== 0) failed += 1;
    }
  }
} finally {
  postgres?.stop();
}
process.exitCode = failed > 0 ? 1 : 0;
