import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { DEFAULT_TEST_NOW } from './test/support/test-clock.js';

/**
 * One clock for the whole run (test/support/clock.mjs): the instant of LEDGER_RECON_TEST_NOW (an
 * RFC 3339 instant) or DEFAULT_TEST_NOW, anchored at the run's real start, preloaded into every
 * Node process the run starts (vitest's workers, the CLI's children, a CLI in a tmux pane) so
 * that none of them reads the wall clock's day, month or hour.
 */
process.env['LEDGER_RECON_TEST_NOW'] ||= DEFAULT_TEST_NOW;
process.env['LEDGER_RECON_TEST_ANCHOR'] ||= String(Date.now());
const CLOCK = fileURLToPath(new URL('./test/support/clock.mjs', import.meta.url));
if (!(process.env['NODE_OPTIONS'] ?? '').includes(CLOCK))
  process.env['NODE_OPTIONS'] = `${process.env['NODE_OPTIONS'] ?? ''} --import ${CLOCK}`.trim();

/** Each check's own test file that opens a mirror (test/support/check-kit.ts's `useFixtureMirror()`). */
const CHECKS_ON_A_MIRROR = readdirSync('test/checks')
  .filter((f) => f.endsWith('.test.ts') && readFileSync(`test/checks/${f}`, 'utf8').includes('useFixtureMirror()'))
  .map((f) => `test/checks/${f}`);

/**
 * The files that read or write a mirror through the product and run again with the mirror in
 * PostgreSQL (LEDGER_RECON_TEST_DB=postgres, test/support/test-db.ts). The files not listed
 * test no mirror (the API client, the simulator, the money and the pure checks), already run
 * on both backends themselves (test/support/backends.ts), or test what only a SQLite file has:
 * its lock file, WAL checkpointer, file permissions, full disk, and its tables read directly.
 */
const ON_BOTH = [
  'test/app/fleet.test.ts',
  'test/app/jobs.test.ts',
  'test/app/liability.test.ts',
  'test/app/night.test.ts',
  'test/app/planted-links.test.ts',
  'test/checks/listed-not-found.test.ts',
  'test/evidence/reperform-readdressed.test.ts',
  'test/evidence/log.test.ts',
  'test/ledger/leaves.test.ts',
  'test/books/books-e2e.test.ts',
  'test/books/hostile.test.ts',
  'test/books/import.test.ts',
  'test/books/versions-property.test.ts',
  'test/cli/check.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/doctor.test.ts',
  'test/cli/findings.test.ts',
  'test/cli/failures.test.ts',
  'test/cli/interrupt.test.ts',
  'test/app/month-of-nights.test.ts',
  'test/cli/pipe.test.ts',
  'test/ledger/walk.test.ts',
  'test/checks/runs.test.ts',
  'test/db/views.test.ts',
  'test/cli/run.test.ts',
  'test/cli/sync.test.ts',
  'test/cli/sql.test.ts',
  'test/cli/terminal.test.ts',
  'test/evidence/evidence.test.ts',
  'test/findings/interrupted-check.test.ts',
  'test/findings/nights.test.ts',
  'test/findings/nights-property.test.ts',
  'test/report/card-sums.test.ts',
  'test/report/close.test.ts',
  'test/report/hledger.test.ts',
  'test/report/in-flight.test.ts',
  'test/report/month-to-date.test.ts',
  'test/report/killed.test.ts',
  'test/report/printed.test.ts',
  'test/report/recalculated.test.ts',
  'test/report/report.test.ts',
  'test/sync/hostile.test.ts',
  'test/sync/sync.test.ts',
  'test/cli/demo.test.ts',
  'test/evidence/reperform.test.ts',
  'test/evidence/reperform-books.test.ts',
  'test/evidence/reperform-confirmation.test.ts',
  ...CHECKS_ON_A_MIRROR,
];

/**
 * The quick tier (`npm run test:quick`), for the edit loop: every file that starts no child
 * process (no CLI, no LibreOffice, hledger, tmux or Pushgateway) and needs no PostgreSQL (files
 * on both backends run their SQLite half; PostgreSQL's half is skipped, as where it is not installed).
 */
const NEEDS_MORE = /runCli\(|child_process|hasProgram|support\/cli\.js|support\/mounts/;
/** In-process, but a simulated month long: the whole suite's, not the edit loop's. */
const LONG = new Set(['test/app/month-of-nights.test.ts']);
const QUICK = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts') && !f.startsWith('bench/'))
  .map((f) => `test/${f}`)
  .filter((f) => !LONG.has(f) && !NEEDS_MORE.test(readFileSync(f, 'utf8')))
  .sort();

/** The whole suite's bound on a test or hook (see testTimeout below). */
const WHOLE_SUITE_TIMEOUT = 120_000;

/** Every file's duration, kept for `npm run test:slowest` (vitest's JSON reporter). */
const DURATIONS = 'test-results/durations.json';

export default defineConfig({
  test: {
    exclude: ['test/bench/**'],
    // A guard against a hang, not a measure of speed (test/bench/ measures): 30 s for the quick tier's
    // in-process tests; the whole suite's projects, whose tests start the CLI, servers and
    // LibreOffice, allow 120 s, since beside another suite on two cores a test running the CLI three
    // times took 30.0 s and failed at 30 s (2026-12-08).
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: one on this 2-core machine, a suite run end to end. Most
    // files wait on HTTP, a child process or a server, so two run beside each other on two cores.
    maxWorkers: 2,
    // One PostgreSQL server for the run: the tests' second backend (test/support/postgres.ts); none for the quick tier.
    globalSetup: ['test/support/postgres-setup.ts'],
    // Every property test's seed and run count (FC_SEED, FC_NUM_RUNS).
    setupFiles: ['test/support/property.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: DURATIONS },
    // `npm run test:coverage`: line coverage of src/ by the in-process tests (the quick tier), kept in docs/performance.md.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'test-results/coverage',
    },
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          testTimeout: WHOLE_SUITE_TIMEOUT,
          hookTimeout: WHOLE_SUITE_TIMEOUT,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ON_BOTH,
          testTimeout: WHOLE_SUITE_TIMEOUT,
          hookTimeout: WHOLE_SUITE_TIMEOUT,
          env: { LEDGER_RECON_TEST_DB: 'postgres' },
          setupFiles: ['test/support/postgres-schemas.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'quick',
          include: QUICK,
          provide: { postgresUrl: '' },
          // Each worker loads the product's modules once for all the files it runs, not once per file: the files were
          // spending more time importing (67 s summed over 116 files) than half of their tests' own. Every file cleans up
          // after itself and keeps no state in a module between tests, so they run so in any order (--sequence.shuffle.files).
          isolate: false,
        },
      },
    ],
  },
});
