import type { CheckOptions } from '../checks/check.js';
import { reconcile } from '../findings/reconcile.js';
import type { CheckRunSummary } from '../findings/summary.js';
import type { FailOn } from '../findings/verdict.js';
import { loadConfig, type ConfigFlags } from '../config.js';
import { DEFAULT_DB_PATH, openMirrorLocked } from '../db/mirror.js';
import { writeReport, type ReportPaths } from '../report/write-report.js';
import { rereadGiftCards, type ConfirmStats } from '../sync/confirm.js';
import { runSync, type SyncSummary } from '../sync/run-sync.js';
import { formatCheckSummary } from './check-output.js';
import { createClients } from './clients.js';
import { createProgress } from './progress.js';

export interface RunCommandOptions extends ConfigFlags, Partial<CheckOptions> {
  db?: string;
  out?: string;
  full?: boolean;
  json?: boolean;
  failOn?: FailOn;
  merchantId?: string;
  concurrency?: number;
  env?: NodeJS.ProcessEnv;
  /** Print the verdict and summary as on a terminal, whatever stderr is (the demo). */
  verbose?: boolean;
  /** Where progress and the one failure line go (default stderr). */
  stderr?: NodeJS.WriteStream;
  write?: (text: string) => void;
}

/** The figures of the check run the nightly JSON repeats, in this order. */
const RUN_FIGURES = ['verdict', 'exitCode', 'failOn', 'asOf', 'findings', 'bySeverity', 'byCode', 'new', 'open', 'accepted', 'resolved', 'inFlight', 'held', 'moneyAtStake'] as const;

export interface RunSummary extends Pick<CheckRunSummary, (typeof RUN_FIGURES)[number]> {
  runId: number;
  /** What the confirmation pass re-read, and how many cards it found moved on. */
  confirmation: ConfirmStats & { moved: number };
  sync: Pick<SyncSummary, 'syncRunId' | 'mode' | 'completed' | 'durationMs' | 'retries' | 'quarantined'>;
  report: ReportPaths;
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
  const config = loadConfig(options, options.env);
  const dbPath = options.db ?? DEFAULT_DB_PATH;
  const { mirror, lock } = openMirrorLocked(dbPath, 'run');
  const clients = createClients(config, options.concurrency !== undefined ? { concurrency: options.concurrency } : {});
  try {
    const progress = createProgress({ stream: stderr, tty, quiet: !tty || options.json === true, retries: () => clients.giftcard.http.stats.retries + clients.dp.http.stats.retries });
    const sync = await runSync({ mirror, giftcard: clients.giftcard, dp: clients.dp, full: options.full === true, progress, ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}) });
    const reread: ConfirmStats = { cards: 0, entries: 0 };
    const { summary, confirmation } = await reconcile({
      mirror,
      ...(options.failOn ? { failOn: options.failOn } : {}),
      ...(options.merchantId ? { merchantId: options.merchantId } : {}),
      options: pickCheckOptions(options),
      confirm: (request) => rereadGiftCards(mirror.sqlite, clients.giftcard, request, options.concurrency ?? 8, reread),
    });
    const report = await writeReport({ sqlite: mirror.sqlite, outDir: options.out ?? 'reports', checkRunId: summary.checkRunId });
    const result: RunSummary = {
      runId: summary.checkRunId,
      ...(Object.fromEntries(RUN_FIGURES.map((key) => [key, summary[key]])) as Pick<CheckRunSummary, (typeof RUN_FIGURES)[number]>),
      confirmation: { ...reread, moved: [...(confirmation?.cards.values() ?? [])].filter((v) => v.verdict === 'moved').length },
      sync: { syncRunId: sync.syncRunId, mode: sync.mode, completed: sync.completed, durationMs: sync.durationMs, retries: sync.retries, quarantined: sync.quarantined },
      report,
      durationMs: Date.now() - started,
    };
    if (options.json) write(`${JSON.stringify(result)}\n`);
    else if (tty || options.verbose) write(`${formatCheckSummary(summary)}workbook: ${report.workbook}\nfindings: ${report.csv}, ${report.json}\n`);
    else if (summary.exitCode !== 0) {
      stderr.write(`ledger-recon: ${summary.verdict}: ${summary.findings} findings (${summary.bySeverity.error} error, ${summary.bySeverity.warning} warning; ${summary.new} new), see ${report.workbook}\n`);
    }
    process.exitCode = summary.exitCode;
    return result;
  } finally {
    await clients.close();
    mirror.close();
    lock.release();
  }
}

export function pickCheckOptions(options: Partial<CheckOptions>): Partial<CheckOptions> {
  return {
    ...(options.expiryGraceMinutes !== undefined ? { expiryGraceMinutes: options.expiryGraceMinutes } : {}),
    ...(options.stuckOrderSlaHours !== undefined ? { stuckOrderSlaHours: options.stuckOrderSlaHours } : {}),
    ...(options.doubleDebitWindowSeconds !== undefined ? { doubleDebitWindowSeconds: options.doubleDebitWindowSeconds } : {}),
  };
}
