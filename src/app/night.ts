/**
 * The night as a function: books (with `--books`), sync, check with its confirmation pass,
 * report and seal, on the mirror and clients its context gives, every instant read from its
 * clock. `ledger-recon run` builds the context from the process and prints what this returns;
 * a test calls it in its own process.
 */
import type { SlaRule } from '../findings/sla.js';
import type { KeyObject } from 'node:crypto';
import { resolve } from 'node:path';
import type { BooksFolder } from '../books/import-books.js';
import type { CheckOptions } from '../checks/check.js';
import { InterruptedError, LedgerReconError } from '../errors.js';
import { reconcile } from '../findings/reconcile.js';
import { findingsStore, type RunError } from '../findings/store.js';
import type { CheckRunSummary } from '../findings/summary.js';
import type { FailOn } from '../findings/verdict.js';
import { redact } from '../log.js';
import { storageFailure } from '../paths.js';
import type { ReportScope } from '../report/scope.js';
import type { ReportPaths } from '../report/write-report.js';
import { rereadGiftCards, type ConfirmStats } from '../sync/confirm.js';
import type { SyncSummary } from '../sync/run-sync.js';
import { importBooksForNight, type BooksFigures } from './books.js';
import type { Config } from '../config.js';
import type { Clock, JobContext, ServiceJobContext } from './context.js';
import { reportRun } from './report.js';
import { syncMirror, type SyncSettings, withMirrorAndClients } from './sync.js';

/** What the night is told besides its context: the flags of `run`, resolved. */
export interface NightSettings extends SyncSettings {
  /** Where the mirror is (a file's path or a server's URL): named in a storage failure. */
  location: string;
  /** The mirror as the night's record names it (a server's URL without its password). */
  shownMirror: string;
  /** Where the workbook, CSV, JSON and manifest go. */
  outDir: string;
  checkOptions?: Partial<CheckOptions>;
  failOn?: FailOn;
  merchantId?: string;
  /** The exception SLA rules (`--sla`). */
  sla?: readonly SlaRule[];
  /** Who prepared it and the materiality thresholds (the workbook's Summary). */
  scope?: ReportScope;
  /** The merchant's books to import first (`--books`). */
  books?: BooksFolder | null;
  /** Signs the night's manifest (`--sign-key`). */
  signingKey?: KeyObject;
  /** Where the log's checkpoint is published after the seal (`--checkpoints`, evidence/log.ts). */
  checkpoints?: string;
  /** Every secret the night may know: no record or message carries one. */
  secrets?: readonly string[];
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
  'overdue',
] as const;

/** How long each stage took (ms): books (with --books), sync, check (with the confirmation), report (with the seal). */
export interface StageTimes {
  books?: number;
  sync?: number;
  check?: number;
  report?: number;
}

/** The night's one JSON record (`run --json`). */
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
  stagesMs: StageTimes;
  /** What `--books` imported. */
  books?: BooksFigures;
  /** The three outputs and their evidence manifest, as absolute paths. */
  report: ReportPaths & { evidence: string; checkpoint?: string };
  durationMs: number;
  /** Why an INCOMPLETE run proves nothing. */
  error?: RunError;
}

/** The night's record when it could not finish (exit 2, or 130 / 143 when stopped): still one object. */
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

/** A night that ran to its verdict, or one that could not (its error, to be thrown by the caller, and its record). */
export type NightResult =
  | { ok: true; summary: CheckRunSummary; record: RunSummary }
  | { ok: false; error: unknown; record: FailedRunSummary };

/**
 * The nightly job: sync, check, a confirmation pass (the records behind each gift card error
 * re-read by ID; a card that moved on puts its time-sensitive breaks in flight, an entry that
 * reads otherwise by ID is a break of its own), the report and its seal. The caller holds the
 * mirror's lock. A night that cannot finish is recorded in the mirror as failed (when the mirror
 * can take it) and returned with its error, which the caller throws.
 */
export async function night(context: ServiceJobContext, settings: NightSettings): Promise<NightResult> {
  const { mirror, clock } = context;
  const started = clock.now();
  let checkRunId: number | null = null;
  try {
    checkRunId = await findingsStore(mirror).beginRun({
      startedAtMs: started,
      optionsJson: JSON.stringify({ ...(settings.checkOptions ?? {}), failOn: settings.failOn ?? 'error' }),
    });
    return await nightly(context, settings, checkRunId, started);
  } catch (caught) {
    const error = storageFailure(caught, { db: settings.location, out: settings.outDir }) ?? caught;
    const record = failedNight({ runId: checkRunId, mirror: settings.shownMirror, error, started, clock }, settings);
    try {
      if (checkRunId !== null) await findingsStore(mirror).recordFailure(checkRunId, record.error, clock.now());
    } catch {
      // A mirror that cannot take the record (its disk is full) keeps the run as interrupted.
    }
    return { ok: false, error, record };
  }
}

/**
 * The night on the mirror at `settings.location` (opened for writing under its lock) with clients
 * of the services `config` names: what `run` and the demo call. The mirror and the clients are
 * closed when it ends.
 * @throws what opening the mirror throws (LockHeldError, MirrorError): the night had not begun.
 */
export async function nightAt(
  config: Config,
  context: Omit<JobContext, 'mirror'>,
  settings: NightSettings,
): Promise<NightResult> {
  return withMirrorAndClients(config, context, 'run', settings, (job) => night(job, settings));
}

/** The record of a night that could not finish, also one that failed before it had a mirror (its settings, its lock). */
export function failedNight(
  {
    runId,
    mirror,
    error,
    started,
    clock,
  }: { runId: number | null; mirror: string; error: unknown; started: number; clock: Clock },
  { secrets = [] }: { secrets?: readonly string[] } = {},
): FailedRunSummary {
  return {
    runId,
    mirror,
    verdict: error instanceof InterruptedError ? 'INTERRUPTED' : 'FAILED',
    exitCode: error instanceof InterruptedError ? error.exitCode : 2,
    error: runErrorOf(error, secrets),
    startedAt: new Date(started).toISOString(),
    durationMs: clock.now() - started,
  };
}

/** Sync, check with its confirmation pass, report: the night's work once its run is begun, each stage a step. */
async function nightly(
  context: ServiceJobContext,
  settings: NightSettings,
  checkRunId: number,
  started: number,
): Promise<NightResult> {
  const { mirror, clients, clock, signal, sink } = context;
  const { progress } = sink;
  const stagesMs: StageTimes = {};
  let stageStart = clock.now();
  const stageEnds = (stage: keyof StageTimes): void => {
    const now = clock.now();
    stagesMs[stage] = now - stageStart;
    stageStart = now;
  };
  try {
    let books: BooksFigures | undefined;
    if (settings.books) {
      progress.step('books');
      books = await importBooksForNight(context, settings.books);
      stageEnds('books');
    }
    signal.throwIfAborted();
    const sync = await syncMirror(context, settings);
    stageEnds('sync');
    signal.throwIfAborted();
    progress.step('check');
    const reread: ConfirmStats = { cards: 0, entries: 0 };
    const { summary, confirmation } = await reconcile({
      mirror,
      checkRunId,
      nowMs: clock.now(),
      ...(settings.failOn ? { failOn: settings.failOn } : {}),
      ...(settings.merchantId ? { merchantId: settings.merchantId } : {}),
      ...(settings.sla ? { sla: settings.sla } : {}),
      options: settings.checkOptions ?? {},
      reportPending: true,
      signal,
      booksNotImported: books?.failed ?? [],
      confirm: (request) => {
        progress.step(`confirmation (${request.cards.length} cards)`);
        return rereadGiftCards(mirror, clients.giftcard, request, settings.concurrency ?? 8, reread);
      },
    });
    stageEnds('check');
    signal.throwIfAborted();
    progress.step('report');
    const written = await reportRun(context, {
      outDir: settings.outDir,
      checkRunId: summary.checkRunId,
      pending: true,
      ...(settings.scope ? { scope: settings.scope } : {}),
      ...(settings.signingKey ? { signingKey: settings.signingKey } : {}),
      ...(settings.checkpoints !== undefined ? { checkpoints: settings.checkpoints } : {}),
    });
    stageEnds('report');
    const report: ReportPaths & { evidence: string; checkpoint?: string } = {
      workbook: resolve(written.workbook),
      csv: resolve(written.csv),
      json: resolve(written.json),
      page: resolve(written.page),
      evidence: resolve(written.evidence),
      ...(written.checkpoint ? { checkpoint: written.checkpoint } : {}),
    };
    const moved = [...(confirmation?.cards.values() ?? [])].filter((v) => v.verdict === 'moved').length;
    const record = nightRecord(settings, { summary, moved, reread, sync, stagesMs, books, report });
    return { ok: true, summary, record: { ...record, durationMs: clock.now() - started } };
  } finally {
    progress.finish();
  }
}

/** What the night computed and wrote, for its JSON record. */
interface NightResults {
  summary: CheckRunSummary;
  /** Cards the confirmation pass found moved on. */
  moved: number;
  reread: ConfirmStats;
  sync: SyncSummary;
  stagesMs: StageTimes;
  books: BooksFigures | undefined;
  report: ReportPaths & { evidence: string; checkpoint?: string };
}

/** The night's one JSON record: its figures, the sync's, the liability, each stage's time and the files. */
function nightRecord(
  settings: NightSettings,
  { summary, moved, reread, sync, stagesMs, books, report }: NightResults,
): Omit<RunSummary, 'durationMs'> {
  return {
    runId: summary.checkRunId,
    mirror: settings.shownMirror,
    ...(Object.fromEntries(RUN_FIGURES.map((key) => [key, summary[key]])) as Pick<
      CheckRunSummary,
      (typeof RUN_FIGURES)[number]
    >),
    ...(summary.rollForwardBreaks.length > 0 ? { rollforward: summary.rollForwardBreaks } : {}),
    ...(summary.verdict === 'INCOMPLETE' ? { error: { code: 'INCOMPLETE', message: incompleteReason(summary) } } : {}),
    confirmation: { ...reread, moved },
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
  };
}

/** Why an INCOMPLETE night proves nothing, in one sentence. */
export function incompleteReason(summary: CheckRunSummary): string {
  const books = summary.booksNotImported ?? [];
  if (books.length > 0)
    return `the books could not all be imported, so the matching is not complete: ${books.map((b) => `${b.file} (${b.reason})`).join('; ')}`;
  if (summary.syncStatus !== 'completed')
    return `the sync did not complete (${summary.syncStatus}${summary.syncError ? `: ${summary.syncError}` : ''}): zero findings over missing data prove nothing; run again`;
  return `checks could not run: ${summary.failedChecks.map((f) => `${f.code} (${f.error})`).join('; ')}`;
}

/** A failure as the night's record names it: a stable code and the message, secrets redacted. */
export function runErrorOf(error: unknown, secrets: readonly string[]): RunError {
  const code = error instanceof LedgerReconError ? error.code : 'UNEXPECTED';
  return { code, message: redact(error instanceof Error ? error.message : String(error), secrets) };
}
