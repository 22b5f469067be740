import { defaultLocations, isDefaultMirror } from '../locations.js';
import type { CheckOptions } from '../checks/check.js';
import { reconcile } from '../findings/reconcile.js';
import type { CheckRunSummary } from '../findings/summary.js';
import type { FailOn } from '../findings/verdict.js';
import { loadConfig, type ConfigFlags } from '../config.js';
import { resolve } from 'node:path';
import { openForWriting, refuseConjuredMirror, shownMirror, type Mirror } from '../db/mirror.js';
import { InterruptedError, LedgerReconError } from '../errors.js';
import { findingsStore, type RunError } from '../findings/store.js';
import { oneLine, redact } from '../log.js';
import { ensureFolder, outputTarget, storageFailure } from '../paths.js';
import { sealRun } from '../evidence/write.js';
import { readKey } from '../evidence/sign.js';
import type { KeyObject } from 'node:crypto';
import { writeReport, type ReportPaths } from '../report/write-report.js';
import { rereadGiftCards, type ConfirmStats } from '../sync/confirm.js';
import { runSync, type SyncSummary } from '../sync/run-sync.js';
import { booksFilesIn, type BooksFolder } from '../books/import-books.js';
import { importBooksForNight, type BooksFigures } from './books.js';
import { colourFor, formatCheckSummary } from './check-output.js';
import { createClients, type Clients } from './clients.js';
import { terminalWidth, wrapText } from '../fit-width.js';
import { withHeapPaced } from './heap.js';
import { onInterrupt } from './interrupt.js';
import { nightMetrics, pushMetrics, pushUrl, writeMetricsFile, type StageTimes } from './metrics.js';
import { createProgress } from './progress.js';
import { scopeOf } from './report.js';

export interface RunCommandOptions extends ConfigFlags, Partial<CheckOptions> {
  db?: string;
  /** Make a new mirror even where --db's folder and its parent do not exist yet. */
  init?: boolean;
  out?: string;
  full?: boolean;
  json?: boolean;
  failOn?: FailOn;
  merchantId?: string;
  concurrency?: number;
  env?: NodeJS.ProcessEnv;
  /** Print the verdict and summary as on a terminal, whatever stderr is (the demo). */
  verbose?: boolean;
  /** No progress and no summary on a terminal: the one line on failure only. */
  quiet?: boolean;
  /** Move a mirror bound to other services to these ones (`--rebind`). */
  rebind?: boolean;
  /** `--books-tolerance`: cents per currency. */
  booksTolerance?: Record<string, number>;
  /** `--books DIR`: the merchant's books to import before checking. */
  books?: string;
  /** Fills "Prepared by" in the workbook's sign-off block. */
  preparer?: string;
  /** Money at stake per currency (cents) at or above which a finding is material. */
  materiality?: Map<string, number>;
  /** `--sign-key FILE`: an Ed25519 private key (PEM) that signs the night's evidence manifest. */
  signKey?: string;
  /** `--push-metrics URL`: push the night's metrics to a Prometheus Pushgateway. */
  pushMetrics?: string;
  /** `--metrics-file FILE`: write them for node_exporter's textfile collector. */
  metricsFile?: string;
  /** Where progress and the one failure line go (default stderr). */
  stderr?: NodeJS.WriteStream;
  write?: (text: string) => void;
}

/** The figures of the check run the nightly JSON repeats, in this order. */
const RUN_FIGURES = [
  'verdict',
  'exitCode',
  'failOn',
  'asOf',
  'findings',
  'bySeverity',
  'byCode',
  'new',
  'open',
  'accepted',
  'resolved',
  'inFlight',
  'held',
  'moneyAtStake',
] as const;

export interface RunSummary extends Pick<CheckRunSummary, (typeof RUN_FIGURES)[number]> {
  runId: number;
  /** The mirror the night used: a file's path, or a server's URL without its password (the schema named). */
  mirror: string;
  /** The roll-forwards that do not close (what fails the night besides its findings); absent when every one closes. */
  rollforward?: CheckRunSummary['rollForwardBreaks'];
  /** What the confirmation pass re-read, and how many cards it found moved on. */
  confirmation: ConfirmStats & { moved: number };
  sync: Pick<SyncSummary, 'syncRunId' | 'mode' | 'completed' | 'durationMs' | 'retries' | 'quarantined'> & {
    /** Records read per resource (cards, ledger entries, coupons, …). */
    records: Record<string, number>;
  };
  /** What the cards hold at the cut-off per currency (the roll-forward's cards remaining), and the roll-forward's difference. */
  liability: Record<string, { cardsRemaining: string; difference: string }>;
  /** How long each stage took (ms): books (with --books), sync, check (with the confirmation), report (with the seal). */
  stagesMs: StageTimes;
  /** What `--books` imported. */
  books?: BooksFigures;
  /** The three outputs and their evidence manifest, as absolute paths. */
  report: ReportPaths & { evidence: string };
  durationMs: number;
  /** Why an INCOMPLETE run proves nothing. */
  error?: RunError;
}

/** What `run --json` prints when the night could not finish (exit 2): still one object. */
export interface FailedRunSummary {
  /** The check run recorded for the night, when the mirror could be opened. */
  runId: number | null;
  /** The mirror the night used (or meant to): a file's path, or a server's URL without its password. */
  mirror: string;
  /** INTERRUPTED: the operator stopped it (Ctrl-C, SIGTERM; exit 130 or 143); FAILED: it could not finish (exit 2). */
  verdict: 'FAILED' | 'INTERRUPTED';
  exitCode: number;
  error: RunError;
  startedAt: string;
  durationMs: number;
}

/**
 * `ledger-recon run`, the nightly job: sync, check, a confirmation pass (the records behind
 * each gift card error re-read by ID; a card that moved on puts its time-sensitive breaks in
 * flight, an entry that reads otherwise by ID is a break of its own) and the
 * report, all under one lock. Quiet on success without a terminal; `--json` prints one object.
 * @throws ConfigError, LockHeldError, AuthError, ServiceUnavailableError (exit 2): no report
 * is written, earlier reports stay.
 */
export async function run(options: RunCommandOptions): Promise<RunSummary> {
  const started = Date.now();
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const stderr = options.stderr ?? process.stderr;
  const tty = stderr.isTTY === true;
  const secrets = secretsOf(options);
  let checkRunId: number | null = null;
  let failure: RunError | undefined;
  const interruption = onInterrupt(
    'the night stopped; what the sync read whole is committed with its checkpoints, and the next run resumes from there',
  );
  try {
    const config = loadConfig(options, options.env);
    const dbPath = options.db ?? defaultLocations().db;
    refuseConjuredMirror(dbPath, options.init === true || isDefaultMirror(dbPath));
    // Before the night's work, not after it: a --out that cannot be written fails in a second.
    ensureFolder('--out', options.out ?? defaultLocations().reports);
    if (options.metricsFile !== undefined) outputTarget('--metrics-file', options.metricsFile);
    // A key that cannot sign fails the night before its work, not after it.
    const signingKey = options.signKey !== undefined ? readKey(options.signKey, '--sign-key', 'private') : undefined;
    const booksFiles = options.books !== undefined ? booksFilesIn(options.books) : null;
    const { mirror, release } = await openForWriting(dbPath, 'run');
    const clients = createClients(config, {
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      signal: interruption.signal,
    });
    try {
      checkRunId = await findingsStore(mirror).beginRun({
        startedAtMs: started,
        optionsJson: JSON.stringify({ ...pickCheckOptions(options), failOn: options.failOn ?? 'error' }),
      });
      const result = await nightly(options, {
        mirror,
        clients,
        checkRunId,
        started,
        tty,
        booksFiles,
        signal: interruption.signal,
        ...(signingKey ? { signingKey } : {}),
      });
      const { summary } = result;
      if (options.json) write(`${JSON.stringify(result.json)}\n`);
      else if ((tty && !options.quiet) || options.verbose) {
        const text = `${formatCheckSummary(summary, options.write === undefined && colourFor(process.stdout))}workbook: ${result.json.report.workbook}\nfindings: ${result.json.report.csv}, ${result.json.report.json}\n`;
        write(options.write === undefined ? wrapText(text, terminalWidth(process.stdout)) : text);
      } else if (summary.exitCode !== 0) {
        const incomplete = summary.verdict === 'INCOMPLETE' ? `; ${incompleteReason(summary)}` : '';
        stderr.write(
          `ledger-recon: ${oneLine(`${summary.verdict}: ${summary.findings} findings (${summary.bySeverity.error} error, ${summary.bySeverity.warning} warning; ${summary.new} new)${rollForwardCause(summary)}${incomplete}, see ${result.json.report.workbook}`)}\n`,
        );
      }
      process.exitCode = summary.exitCode;
      await reportMetrics(options, result.json, stderr);
      return result.json;
    } catch (caught) {
      const error = storageFailure(caught, { db: dbPath, out: options.out ?? defaultLocations().reports }) ?? caught;
      failure = runErrorOf(error, secrets);
      try {
        if (checkRunId !== null) await findingsStore(mirror).recordFailure(checkRunId, failure, Date.now());
      } catch {
        // A mirror that cannot take the record (its disk is full) keeps the run as interrupted.
      }
      throw error;
    } finally {
      await clients.close();
      await release();
    }
  } catch (error) {
    // The night's record, also when it failed: one object, then the one line on stderr.
    const interrupted = error instanceof InterruptedError;
    const failed: FailedRunSummary = {
      runId: checkRunId,
      mirror: shownMirror(options.db ?? defaultLocations().db),
      verdict: interrupted ? 'INTERRUPTED' : 'FAILED',
      exitCode: interrupted ? error.exitCode : 2,
      error: failure ?? runErrorOf(error, secrets),
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
    };
    if (options.json) write(`${JSON.stringify(failed)}\n`);
    await reportMetrics(options, failed, stderr);
    throw error;
  } finally {
    interruption.dispose();
  }
}

interface NightlyContext {
  mirror: Mirror;
  clients: Clients;
  checkRunId: number;
  started: number;
  tty: boolean;
  /** The merchant's books to import first (`--books`). */
  booksFiles: BooksFolder | null;
  /** The operator's stop: checked between the night's steps, and inside the sync. */
  signal: AbortSignal;
  /** Signs the night's manifest (`--sign-key`). */
  signingKey?: KeyObject;
}

/** Sync, check with its confirmation pass, report: the night's work once the mirror is ours, each stage a step on a terminal. */
async function nightly(
  options: RunCommandOptions,
  { mirror, clients, checkRunId, started, tty, booksFiles, signal, signingKey }: NightlyContext,
): Promise<{ summary: CheckRunSummary; json: RunSummary }> {
  const stderr = options.stderr ?? process.stderr;
  const progress = createProgress({
    stream: stderr,
    tty,
    quiet: !tty || options.json === true || options.quiet === true,
  });
  const stagesMs: StageTimes = {};
  let stageStart = Date.now();
  const stageEnds = (stage: keyof StageTimes): void => {
    const now = Date.now();
    stagesMs[stage] = now - stageStart;
    stageStart = now;
  };
  try {
    let books: BooksFigures | undefined;
    if (booksFiles) {
      progress.step('books');
      books = await importBooksForNight(mirror, booksFiles, (line) => stderr.write(line), signal);
      stageEnds('books');
    }
    signal.throwIfAborted();
    // Every card the previous night left in flight, held or broken is read again, moved or not.
    const recheckCards = await findingsStore(mirror).cardsToReread();
    const sync = await withHeapPaced(() =>
      runSync({
        mirror,
        giftcard: clients.giftcard,
        dp: clients.dp,
        full: options.full === true,
        rebind: options.rebind === true,
        recheckCards,
        progress,
        signal,
        ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      }),
    );
    stageEnds('sync');
    signal.throwIfAborted();
    progress.step('check');
    const reread: ConfirmStats = { cards: 0, entries: 0 };
    const { summary, confirmation } = await reconcile({
      mirror,
      checkRunId,
      ...(options.failOn ? { failOn: options.failOn } : {}),
      ...(options.merchantId ? { merchantId: options.merchantId } : {}),
      options: pickCheckOptions(options),
      reportPending: true,
      signal,
      booksNotImported: books?.failed ?? [],
      confirm: (request) => {
        progress.step(`confirmation (${request.cards.length} cards)`);
        return rereadGiftCards(mirror, clients.giftcard, request, options.concurrency ?? 8, reread);
      },
    });
    stageEnds('check');
    signal.throwIfAborted();
    progress.step('report');
    const written = await withHeapPaced(() =>
      writeReport({
        mirror,
        outDir: options.out ?? defaultLocations().reports,
        checkRunId: summary.checkRunId,
        scope: scopeOf(options),
      }),
    );
    await findingsStore(mirror).markReportWritten(summary.checkRunId);
    const evidence = await sealRun(mirror, summary.checkRunId, written, signingKey ? { signingKey } : {});
    stageEnds('report');
    const report: ReportPaths & { evidence: string } = {
      workbook: resolve(written.workbook),
      csv: resolve(written.csv),
      json: resolve(written.json),
      evidence: resolve(evidence),
    };
    const json = nightRecord(options, { summary, confirmation, reread, sync, stagesMs, books, report, started });
    return { summary, json };
  } finally {
    progress.finish();
  }
}

/** What the night computed and wrote, for its JSON record. */
interface NightResults {
  summary: CheckRunSummary;
  confirmation: Awaited<ReturnType<typeof reconcile>>['confirmation'];
  reread: ConfirmStats;
  sync: SyncSummary;
  stagesMs: StageTimes;
  books: BooksFigures | undefined;
  report: ReportPaths & { evidence: string };
  started: number;
}

/** The night's one JSON record: its figures, the sync's, the liability, each stage's time and the files. */
function nightRecord(
  options: RunCommandOptions,
  { summary, confirmation, reread, sync, stagesMs, books, report, started }: NightResults,
): RunSummary {
  return {
    runId: summary.checkRunId,
    mirror: shownMirror(options.db ?? defaultLocations().db),
    ...(Object.fromEntries(RUN_FIGURES.map((key) => [key, summary[key]])) as Pick<
      CheckRunSummary,
      (typeof RUN_FIGURES)[number]
    >),
    ...(summary.rollForwardBreaks.length > 0 ? { rollforward: summary.rollForwardBreaks } : {}),
    ...(summary.verdict === 'INCOMPLETE' ? { error: { code: 'INCOMPLETE', message: incompleteReason(summary) } } : {}),
    confirmation: {
      ...reread,
      moved: [...(confirmation?.cards.values() ?? [])].filter((v) => v.verdict === 'moved').length,
    },
    sync: {
      syncRunId: sync.syncRunId,
      mode: sync.mode,
      completed: sync.completed,
      durationMs: sync.durationMs,
      retries: sync.retries,
      quarantined: sync.quarantined,
      records: Object.fromEntries(Object.entries(sync.resources).map(([resource, stats]) => [resource, stats.records])),
    },
    liability: Object.fromEntries(
      summary.rollForward.map((r) => [r.currency, { cardsRemaining: r.cardsRemaining, difference: r.difference }]),
    ),
    stagesMs,
    ...(books ? { books } : {}),
    report,
    durationMs: Date.now() - started,
  };
}

/**
 * The night's metrics, pushed and/or written when asked. The monitor's trouble is never the
 * night's: a push or a write that fails is one line on stderr, and the exit code stays the night's.
 */
async function reportMetrics(
  options: RunCommandOptions,
  night: RunSummary | FailedRunSummary,
  stderr: NodeJS.WritableStream,
): Promise<void> {
  if (options.pushMetrics === undefined && options.metricsFile === undefined) return;
  const text = nightMetrics(night, Date.now());
  if (options.metricsFile !== undefined) {
    try {
      writeMetricsFile(options.metricsFile, text);
    } catch (error) {
      stderr.write(
        `ledger-recon: metrics not written to --metrics-file ${options.metricsFile}: ${oneLine((error as Error).message)}; the night's result stands\n`,
      );
    }
  }
  if (options.pushMetrics !== undefined) {
    try {
      await pushMetrics(pushUrl(options.pushMetrics, night.mirror), text);
    } catch (error) {
      stderr.write(
        `ledger-recon: metrics not pushed to ${oneLine((error as Error).message)}: check the Pushgateway and --push-metrics; the night's result stands\n`,
      );
    }
  }
}

function incompleteReason(summary: CheckRunSummary): string {
  const books = summary.booksNotImported ?? [];
  if (books.length > 0)
    return `the books could not all be imported, so the matching is not complete: ${books.map((b) => `${b.file} (${b.reason})`).join('; ')}`;
  if (summary.syncStatus !== 'completed')
    return `the sync did not complete (${summary.syncStatus}${summary.syncError ? `: ${summary.syncError}` : ''}): zero findings over missing data prove nothing; run again`;
  return `checks could not run: ${summary.failedChecks.map((f) => `${f.code} (${f.error})`).join('; ')}`;
}

/** Every secret this run may know, from the environment or flags, so no output can carry one. */
function secretsOf(options: RunCommandOptions): string[] {
  const env = options.env ?? process.env;
  return [
    env['GIFTCARD_CLIENT_SECRET'],
    env['DP_CLIENT_SECRET'],
    options.giftcardClientSecret,
    options.dpClientSecret,
  ].filter((s): s is string => !!s);
}

/** A failure as the night's record names it: a stable code and the message, secrets redacted. */
export function runErrorOf(error: unknown, secrets: readonly string[]): RunError {
  const code = error instanceof LedgerReconError ? error.code : 'UNEXPECTED';
  return { code, message: redact(error instanceof Error ? error.message : String(error), secrets) };
}

/** The roll-forwards that fail a night, for its one line: `; the USD roll-forward does not close by -12.00`. */
export function rollForwardCause(summary: Pick<CheckRunSummary, 'rollForwardBreaks'>): string {
  const breaks = summary.rollForwardBreaks ?? [];
  if (breaks.length === 0) return '';
  return `; the liability roll-forward does not close: ${breaks.map((r) => `${r.currency} by ${r.difference}`).join(', ')}`;
}

/** The check options of a command's flags (`--books-tolerance` gives the tolerance in cents per currency). */
export function pickCheckOptions(
  options: Partial<CheckOptions> & { booksTolerance?: Record<string, number> },
): Partial<CheckOptions> {
  return {
    ...(options.expiryGraceMinutes !== undefined ? { expiryGraceMinutes: options.expiryGraceMinutes } : {}),
    ...(options.stuckOrderSlaHours !== undefined ? { stuckOrderSlaHours: options.stuckOrderSlaHours } : {}),
    ...(options.doubleDebitWindowSeconds !== undefined
      ? { doubleDebitWindowSeconds: options.doubleDebitWindowSeconds }
      : {}),
    ...(options.booksTolerance !== undefined ? { booksToleranceCents: options.booksTolerance } : {}),
    ...(options.booksWindowHours !== undefined ? { booksWindowHours: options.booksWindowHours } : {}),
    ...(options.booksCutoffMinutes !== undefined ? { booksCutoffMinutes: options.booksCutoffMinutes } : {}),
  };
}
