import { defaultLocations } from '../locations.js';
import { mirrorHolder, openForReading } from '../db/mirror.js';
import { errorOf, findingsStore, summaryOf, type CheckRunRow } from '../findings/store.js';
import { tableLines } from '../fit-width.js';
import type { CheckRunSummary } from '../findings/summary.js';

/** Which runs history shows: those of the mirror at `db` (else the default), the newest `limit` (30). */
export interface HistorySettings {
  db?: string | undefined;
  limit?: number | undefined;
}

export interface HistoryRow {
  runId: number;
  syncRunId: number | null;
  startedAt: string;
  durationMs: number | null;
  /** RECONCILED, BREAKS or INCOMPLETE; FAILED, INTERRUPTED or RUNNING when the night did not finish. */
  verdict: string;
  /** What the night's checks found, when they finished (a night can fail after them, writing its report). */
  checksVerdict: string | null;
  findings: number;
  errors: number;
  warnings: number;
  info: number;
  new: number;
  resolved: number;
  cards: number;
  entries: number;
  /** Why a FAILED run failed ({code, message}); null otherwise. */
  error: { code: string; message: string } | null;
}

/**
 * The job of `ledger-recon history`: past runs, newest first, with verdicts and finding totals. A
 * night that could not finish is FAILED with its error; one that was killed is INTERRUPTED
 * (RUNNING while its process still holds the mirror).
 */
export async function historyOf(options: HistorySettings): Promise<HistoryRow[]> {
  const dbPath = options.db ?? defaultLocations().db;
  const mirror = await openForReading(dbPath);
  try {
    const running = (await mirrorHolder(dbPath)) !== undefined;
    return (await findingsStore(mirror).history.recentRuns(options.limit ?? 30)).map((r, i) =>
      historyRow(r, i === 0 && running),
    );
  } finally {
    await mirror.close();
  }
}

/**
 * A run as history shows it. The newest run, while its process still holds the mirror
 * (`newestRunning`), is RUNNING rather than INTERRUPTED.
 */
export function historyRow(r: CheckRunRow, newestRunning: boolean): HistoryRow {
  const s: Partial<CheckRunSummary> = r.summaryJson === null ? {} : summaryOf(r);
  return {
    runId: r.checkRunId,
    syncRunId: r.syncRunId,
    startedAt: r.startedAt,
    durationMs: r.finishedAtMs === null ? null : r.finishedAtMs - r.startedAtMs,
    // Stopped by the operator (its error says INTERRUPTED), killed (still 'running', no holder), or
    // killed while writing its report (the report still pending, no holder): INTERRUPTED.
    verdict: verdictOf(r, newestRunning),
    checksVerdict: r.verdict,
    findings: s.findings ?? 0,
    errors: s.bySeverity?.['error'] ?? 0,
    warnings: s.bySeverity?.['warning'] ?? 0,
    info: s.bySeverity?.['info'] ?? 0,
    new: s.new ?? 0,
    resolved: s.resolved ?? 0,
    cards: s.cards ?? 0,
    entries: s.entries ?? 0,
    error:
      errorOf(r) ??
      (r.reportState === 'pending' && r.status === 'completed' && !newestRunning
        ? {
            code: 'INTERRUPTED',
            message: `stopped while writing its report: ledger-recon report --run ${r.checkRunId} writes it`,
          }
        : null),
  };
}

/**
 * What became of a night: a night that failed is FAILED (INTERRUPTED when the operator stopped
 * it) whatever its checks had found before it failed; one killed, or killed while writing its
 * report, is INTERRUPTED (RUNNING while its process still holds the mirror); else its checks' verdict.
 */
function verdictOf(r: CheckRunRow, newestRunning: boolean): string {
  const killed = newestRunning ? 'RUNNING' : 'INTERRUPTED';
  if (r.reportState === 'pending' && r.status === 'completed') return killed;
  const error = errorOf(r);
  if (error !== null) return error.code === 'INTERRUPTED' ? 'INTERRUPTED' : 'FAILED';
  if (r.status === 'running') return killed;
  return r.verdict ?? 'FAILED';
}

/** The runs as a table's lines, fitted to `width` (a terminal's; full rows when none). */
export function historyTable(rows: HistoryRow[], width: number | undefined): string[] {
  const header = [
    'run',
    'sync',
    'started (UTC)',
    'seconds',
    'verdict',
    'findings',
    'error',
    'warning',
    'info',
    'new',
    'resolved',
    'cards',
    'entries',
    'why it failed',
  ];
  const why = (r: HistoryRow): string =>
    r.error
      ? `${r.error.code}: ${r.error.message.length > 80 ? `${r.error.message.slice(0, 79)}…` : r.error.message}`
      : '';
  const table = rows.map((r) =>
    [
      r.runId,
      r.syncRunId ?? '',
      r.startedAt.replace('T', ' ').slice(0, 19),
      r.durationMs === null ? '' : (r.durationMs / 1000).toFixed(1),
      r.verdict,
      r.findings,
      r.errors,
      r.warnings,
      r.info,
      r.new,
      r.resolved,
      r.cards,
      r.entries,
      why(r),
    ].map(String),
  );
  // On a terminal, the columns that matter least go first until a row fits; elsewhere, full rows.
  // What still does not fit is the reason a night failed: cut, with the whole of it in --json.
  const dropOrder = ['info', 'cards', 'entries', 'sync', 'resolved', 'new', 'warning', 'error', 'seconds'];
  return tableLines(header, table, width, dropOrder);
}
