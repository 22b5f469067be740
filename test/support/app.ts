/**
 * The application layer's jobs called in the test's own process: the test clock, a signal the
 * test may abort, a real mirror (a SQLite file, or a PostgreSQL schema in the postgres project),
 * clients of a simulator over real HTTP on 127.0.0.1, and a sink that keeps its notes.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { keepingSink, type Clock } from '../../src/app/context.js';
import type { Config } from '../../src/config.js';
import { nightAt, type NightResult, type NightSettings } from '../../src/app/night.js';
import { type CloseSettings, closeAt, type ClosedPeriod } from '../../src/app/close.js';
import { demoNight, type DemoOutcome } from '../../src/app/demo.js';
import { type AcceptSettings, acceptAt as acceptIn } from '../../src/app/accept.js';
import { type BooksImportSettings, describeImport, importBooksAt } from '../../src/app/books.js';
import type { BooksKind } from '../../src/books/books-map.js';
import { checkAt, type CheckSettings } from '../../src/app/check.js';
import { reportAt, type ReportSettings } from '../../src/app/report.js';
import { syncAt, type SyncOutcome, type SyncSettings } from '../../src/app/sync.js';
import type { Verified } from '../../src/app/verified.js';
import { type Failure, failureOf } from '../../src/app/failure.js';
import { isServerUrl, shownMirror } from '../../src/db/mirror.js';
import { periodOf } from '../../src/report/period.js';
import type { Simulator } from '../../src/sim/simulator.js';
import { dpConfig, giftcardConfig } from './simulator.js';
import { testNow } from './test-clock.js';

/** The run's test clock as a job's clock. */
export const testClock: Clock = { now: testNow };

/** A clock that stands at `nowMs` and moves only when told (a night of a simulated month). */
export function clockAt(nowMs: number): Clock & { set(ms: number): void } {
  let at = nowMs;
  return { now: () => at, set: (ms) => void (at = ms) };
}

export interface InProcessNight {
  result: NightResult;
  /** The notes the night's sink was given (a books file's problems). */
  notes: string[];
}

/**
 * One night of `sim` into the mirror at `db` (made if new, as `--init` makes it), its outputs in
 * `outDir`, as `ledger-recon run` would run it but in this process. `abort` stops it at once or when the
 * caller says so (an AbortController the test holds).
 */
export async function nightOf(
  sim: Simulator,
  db: string,
  outDir: string,
  settings: Partial<NightSettings> & {
    clock?: Clock;
    signal?: AbortSignal;
    secrets?: readonly string[];
    /** The services as configured, when not as `sim` serves them (a rotated secret, another URL). */
    config?: Config;
  } = {},
): Promise<InProcessNight> {
  const { clock = testClock, signal = new AbortController().signal, config, ...nightSettings } = settings;
  const sink = keepingSink();
  const result = await nightAt(
    config ?? { giftcard: giftcardConfig(sim), dp: dpConfig(sim) },
    { clock, signal, sink },
    {
      location: db,
      shownMirror: shownMirror(db),
      outDir,
      secrets: [sim.credentials.giftcard.clientSecret, sim.credentials.dp.clientSecret],
      // A test makes its mirror where it means to (`--init`); a refusal of a mistyped --db is asked for with init: false.
      init: true,
      ...nightSettings,
    },
  );
  return { result, notes: sink.notes };
}

/** A sync of `sim` into the mirror at `db` (made if new), as `ledger-recon sync` runs it but in this process. */
export async function syncOf(
  sim: Simulator,
  db: string,
  settings: SyncSettings & { clock?: Clock; signal?: AbortSignal; config?: Config } = {},
): Promise<SyncOutcome> {
  const { clock = testClock, signal = new AbortController().signal, config, ...syncSettings } = settings;
  return syncAt(
    config ?? { giftcard: giftcardConfig(sim), dp: dpConfig(sim) },
    { clock, signal, sink: keepingSink() },
    { location: db, init: true, ...syncSettings },
  );
}

/** Period `label` (`2026-10`, UTC) of the mirror at `db` closed in this process at `nowMs`, its workpapers in `outDir`. */
export async function closeOf(
  db: string,
  outDir: string,
  label: string,
  nowMs: number,
  seal: Pick<CloseSettings, 'signingKey' | 'checkpoints' | 'liability' | 'preparer'> = {},
): Promise<ClosedPeriod> {
  return closeAt(db, clockAt(nowMs), { period: periodOf({ period: label }), outDir, ...seal });
}

/**
 * `ledger-recon demo` in this process: the planted world (seed 42, the CLI's default) at the
 * test clock, its books, and the night into a new mirror at `db`, its outputs in `outDir`.
 * @throws Error when the night did not finish (a demo always does).
 */
export async function demoOf(db: string, outDir: string, seed = 42): Promise<DemoOutcome> {
  if (!isServerUrl(db)) mkdirSync(dirname(db), { recursive: true });
  const outcome = await demoNight(
    { clock: testClock, signal: new AbortController().signal, sink: keepingSink() },
    { seed, db, out: outDir },
  );
  if (!outcome.result.ok) throw new Error(`the demo's night failed: ${outcome.result.record.error.message}`);
  return outcome;
}

/** What a verify job tells, as `ledger-recon verify` prints it: its exit code, its lines, its problems' lines, its record. */
export interface Told {
  status: number;
  stdout: string;
  stderr: string;
  record: Record<string, unknown> | undefined;
}

/**
 * A job of `ledger-recon verify` (src/app/verified.ts) run in this process, told as the CLI tells
 * it: exit 0 when identical, 1 when not, and a failure's one line with its exit code (app/failure.ts).
 */
export async function told(job: () => Promise<Verified> | Verified): Promise<Told> {
  try {
    const verified = await job();
    return {
      status: verified.identical ? 0 : 1,
      stdout: verified.lines.map((line) => `${line}\n`).join(''),
      stderr: verified.problems.map((line) => `${line}\n`).join(''),
      record: verified.record,
    };
  } catch (error) {
    const failure = failureOf(error, []);
    return { status: failure.exitCode, stdout: '', stderr: `${failure.line}\n`, record: undefined };
  }
}

/** `ledger-recon accept` in this process: the finding accepted at the test clock in the mirror at `db`. */
export function acceptAt(db: string, settings: AcceptSettings, clock: Clock = testClock) {
  return acceptIn(db, clock, settings);
}

/** `ledger-recon books import PATH…` in this process, at the test clock: the results, and the problems' notes. */
export async function importAt(db: string, paths: readonly string[], settings: BooksImportSettings = {}) {
  const sink = keepingSink();
  const results = await importBooksAt(
    db,
    { clock: testClock, signal: new AbortController().signal, sink },
    paths,
    settings,
  );
  return { results, notes: sink.notes };
}

/** `ledger-recon check` in this process, at the test clock: its summary and findings. */
export function checkOf(db: string, settings: CheckSettings = {}, clock: Clock = testClock) {
  return checkAt(db, clock, settings);
}

/** `ledger-recon report` in this process, at the test clock: a run's outputs written (again) and sealed. */
export function reportOf(db: string, settings: ReportSettings, clock: Clock = testClock) {
  return reportAt(db, clock, settings);
}

/** What a job of the application layer ends with: a night, a sync, or anything else it returns. */
type Ended = InProcessNight | SyncOutcome | object | undefined;

/** The error a night or a sync could not finish with, if any. */
function failedWith(ended: Ended): unknown {
  if (ended && 'result' in ended) return ended.result.ok ? undefined : ended.result.error;
  if (ended && 'ok' in ended && 'error' in ended) return ended.ok === false ? ended.error : undefined;
  return undefined;
}

/**
 * The line and exit code `ledger-recon` prints for what a job threw, or for the night or sync it
 * could not finish (app/failure.ts), never naming one of `secrets`.
 */
export async function failureOfJob(job: () => Promise<Ended>, secrets: readonly string[] = []): Promise<Failure> {
  let ended: Ended;
  try {
    ended = await job();
  } catch (error) {
    return failureOf(error, secrets);
  }
  const error = failedWith(ended);
  if (error === undefined) throw new Error('the job did not fail');
  return failureOf(error, secrets);
}

/**
 * `ledger-recon books import [--kind K] [--map FILE] [--source NAME] [--replace] FILE…` into the mirror at `db`, in this
 * process (src/app/books.ts), told as the CLI tells it: a line per file on stdout, a line per
 * problem and a failure's one line (app/failure.ts) on stderr, exit 0 or 2.
 */
export async function importTold(
  db: string,
  ...args: string[]
): Promise<{ status: number; stdout: string; stderr: string }> {
  const settings: BooksImportSettings = {};
  const paths: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    if (arg === '--map') settings.map = args[++i];
    else if (arg === '--source') settings.source = args[++i];
    else if (arg === '--replace') settings.replace = true;
    else if (arg === '--kind') settings.kind = args[++i] as BooksKind;
    else paths.push(arg);
  }
  const sink = keepingSink();
  const context = { clock: testClock, signal: new AbortController().signal, sink };
  try {
    const results = await importBooksAt(db, context, paths, settings);
    return { status: 0, stdout: results.map((r) => `${describeImport(r)}\n`).join(''), stderr: sink.notes.join('') };
  } catch (error) {
    const failure = failureOf(error, []);
    return { status: failure.exitCode, stdout: '', stderr: `${sink.notes.join('')}${failure.line}\n` };
  }
}
