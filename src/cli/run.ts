import { slaRulesOf } from '../app/settings-files.js';
import { systemClock } from '../app/context.js';
import { failedNight, nightAt, type NightResult, type NightSettings, type RunSummary } from '../app/night.js';
import { booksFilesIn } from '../books/import-books.js';
import { loadConfig } from '../config.js';
import { ConfigError } from '../errors.js';
import { shownMirror } from '../db/mirror.js';
import { sealSettingsOf } from '../app/settings-files.js';
import type { CheckRunSummary } from '../findings/summary.js';
import { terminalWidth, wrapText } from '../fit-width.js';
import { defaultLocations } from '../locations.js';
import { outputTarget } from '../paths.js';
import { colourFor, nightLine, nightSummaryText } from '../app/check-lines.js';
import { onInterrupt } from './interrupt.js';
import { reportNightMetrics } from '../app/metrics.js';
import { createProgress } from './progress.js';
import { scopeOf } from '../app/report.js';
import { checkOptionsOf, type declareRun, type FlagsOf } from './declarations.js';

type RunFlags = FlagsOf<typeof declareRun>;

/**
 * `ledger-recon run`, the nightly job (src/app/night.ts) under the mirror's lock, with the
 * process's clock, Ctrl-C and SIGTERM as its stop, and stderr as its sink. Quiet on success
 * without a terminal; one line on stderr when it is not clean; `--json` prints one object on
 * every exit, a night that cannot finish included.
 * @throws ConfigError, LockHeldError, AuthError, ServiceUnavailableError (exit 2): no report
 * is written, earlier reports stay.
 */
export async function run(options: RunFlags): Promise<void> {
  const clock = systemClock;
  const started = clock.now();
  const location = options.db ?? defaultLocations().db;
  const stderr = process.stderr;
  const interruption = onInterrupt(
    'the night stopped; what the sync read whole is committed with its checkpoints, and the next run resumes from there',
  );
  try {
    const result = await runNight(options, location, interruption.signal).catch((error: unknown) => {
      // A night that failed before its work (its settings, its mirror, its lock) still has its record.
      const record = failedNight(
        { runId: null, mirror: shownMirror(location), error, started, clock },
        { secrets: secretsOf(options) },
      );
      return { ok: false, error, record } as const;
    });
    if (result.ok) printNight(options, result.summary, result.record, stderr);
    else if (options.json) process.stdout.write(`${JSON.stringify(result.record)}\n`);
    await reportNightMetrics(options, result.record, clock, (line) => stderr.write(line));
    if (!result.ok) throw result.error;
    process.exitCode = result.summary.exitCode;
  } finally {
    interruption.dispose();
  }
}

/** Checks the flags, opens the mirror and the clients, and runs the night under the mirror's lock. */
async function runNight(options: RunFlags, location: string, signal: AbortSignal): Promise<NightResult> {
  const config = loadConfig(options);
  if (options.metricsFile !== undefined) outputTarget('--metrics-file', options.metricsFile);
  // One JSON record a night on standard output: the metrics may not follow it there.
  if (options.metricsFile === '-' && options.json === true)
    throw new ConfigError(
      '--metrics-file',
      '--metrics-file - and --json both want standard output: give --metrics-file a file (the textfile collector reads one), or leave out --json',
    );
  const settings = nightSettingsOf(options, location);
  const stderr = process.stderr;
  const tty = stderr.isTTY === true;
  const progress = createProgress({
    stream: stderr,
    tty,
    quiet: !tty || options.json === true || options.quiet === true,
  });
  return nightAt(
    config,
    { clock: systemClock, signal, sink: { progress, note: (text) => stderr.write(text) } },
    settings,
  );
}

/** The night's settings of the flags: a key that cannot sign, SLA rules or a books folder that cannot be read fail it before its work. */
function nightSettingsOf(options: RunFlags, location: string): NightSettings {
  const seal = sealSettingsOf(options);
  const sla = slaRulesOf(options.sla);
  return {
    location,
    shownMirror: shownMirror(location),
    outDir: options.out ?? defaultLocations().reports,
    checkOptions: checkOptionsOf(options),
    books: options.books !== undefined ? booksFilesIn(options.books) : null,
    secrets: secretsOf(options),
    scope: scopeOf(options),
    ...(options.failOn ? { failOn: options.failOn } : {}),
    ...(options.merchantId ? { merchantId: options.merchantId } : {}),
    ...(sla ? { sla } : {}),
    ...(options.full ? { full: true } : {}),
    ...(options.rebind ? { rebind: true } : {}),
    ...(options.init ? { init: true } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...seal,
  };
}

/** The night's outcome for its reader: the JSON record, the summary on a terminal, or the one line when it is not clean. */
function printNight(
  options: RunFlags,
  summary: CheckRunSummary,
  record: RunSummary,
  stderr: NodeJS.WritableStream,
): void {
  const write = (text: string): void => void process.stdout.write(text);
  const onTerminal = (stderr as NodeJS.WriteStream).isTTY === true && !options.quiet;
  if (options.json) write(`${JSON.stringify(record)}\n`);
  else if (onTerminal) printSummary(summary, record, write);
  else if (summary.exitCode !== 0) stderr.write(nightLine(summary, record));
}

/**
 * The verdict, the findings by code and the outputs' paths, as a terminal (or the demo) shows
 * them on stdout: in colour where it takes it, wrapped at its width.
 */
export function printSummary(summary: CheckRunSummary, record: RunSummary, write: (text: string) => void): void {
  write(wrapText(nightSummaryText(summary, record, colourFor(process.stdout)), terminalWidth(process.stdout)));
}

/** Every secret this run may know, from the environment or flags, so no output can carry one. */
function secretsOf(options: RunFlags): string[] {
  const env = process.env;
  return [
    env['GIFTCARD_CLIENT_SECRET'],
    env['DP_CLIENT_SECRET'],
    options.giftcardClientSecret,
    options.dpClientSecret,
  ].filter((s): s is string => !!s);
}
