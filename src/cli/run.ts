import type { CheckOptions } from '../checks/check.js';
import { runChecks, type CheckRunSummary } from '../checks/run-checks.js';
import type { FailOn } from '../checks/verdict.js';
import { loadConfig, type ConfigFlags } from '../config.js';
import { DEFAULT_DB_PATH, openMirrorLocked } from '../db/mirror.js';
import { writeReport, type ReportPaths } from '../report/write-report.js';
import { confirmGiftCardBreaks, type ConfirmStats } from '../sync/confirm.js';
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

export interface RunSummary {
  runId: number;
  verdict: CheckRunSummary['verdict'];
  exitCode: 0 | 1 | 2;
  failOn: FailOn;
  asOf: string;
  findings: number;
  bySeverity: CheckRunSummary['bySeverity'];
  byCode: CheckRunSummary['byCode'];
  new: number;
  open: number;
  accepted: number;
  resolved: number;
  moneyAtStake: Record<string, string>;
  confirmation: ConfirmStats;
  sync: Pick<SyncSummary, 'syncRunId' | 'mode' | 'completed' | 'durationMs' | 'retries' | 'quarantined'>;
  report: ReportPaths;
  durationMs: number;
}

/**
 * `ledger-recon run`, the nightly job: sync, check, a confirmation pass (the records behind
 * each gift card error re-read by ID; what does not reproduce becomes GC_IN_FLIGHT) and the
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
    const confirmation: ConfirmStats = { cards: 0, entries: 0, moved: 0 };
    const { summary } = await runChecks({
      mirror,
      ...(options.failOn ? { failOn: options.failOn } : {}),
      ...(options.merchantId ? { merchantId: options.merchantId } : {}),
      options: pickCheckOptions(options),
      confirm: (findings) => confirmGiftCardBreaks(mirror.sqlite, clients.giftcard, findings, options.concurrency ?? 8, confirmation),
    });
    const report = await writeReport({ sqlite: mirror.sqlite, outDir: options.out ?? 'reports', checkRunId: summary.checkRunId });
    const result: RunSummary = {
      runId: summary.checkRunId,
      verdict: summary.verdict,
      exitCode: summary.exitCode,
      failOn: summary.failOn,
      asOf: summary.asOf,
      findings: summary.findings,
      bySeverity: summary.bySeverity,
      byCode: summary.byCode,
      new: summary.new,
      open: summary.open,
      accepted: summary.accepted,
      resolved: summary.resolved,
      moneyAtStake: summary.moneyAtStake,
      confirmation,
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
