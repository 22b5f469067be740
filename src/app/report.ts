/** A check run's report as a job: its workbook, CSV and JSON written and sealed. */
import type { KeyObject } from 'node:crypto';
import { sealRun } from '../evidence/write.js';
import { findingsStore } from '../findings/store.js';
import type { ReportScope } from '../report/scope.js';
import { openExistingForWriting } from '../db/mirror.js';
import { writeReport, type ReportPaths } from '../report/write-report.js';
import type { Clock, JobContext } from './context.js';
import { withHeapPaced } from './heap.js';

export interface ReportSettings {
  outDir: string;
  /** The check run (default the newest completed one). */
  checkRunId?: number;
  /** Who prepared it and the materiality thresholds. */
  scope?: ReportScope;
  /** Signs the manifest (`--sign-key`). */
  signingKey?: KeyObject;
  /** Where the log's checkpoint is published after the seal (`--checkpoints`, evidence/log.ts). */
  checkpoints?: string;
  /** The night's own report: its run, pending until now, is marked written before the seal reads it. */
  pending?: boolean;
}

/**
 * Writes a check run's outputs from the mirror and seals them into its chain, at the context's
 * clock (the sign-off's date, the seal). The caller holds the mirror's lock.
 * @throws MirrorError when the mirror holds no such completed run.
 */
export async function reportRun(
  context: Pick<JobContext, 'mirror' | 'clock'>,
  settings: ReportSettings,
): Promise<ReportPaths & { checkRunId: number; evidence: string; checkpoint?: string }> {
  const { mirror, clock } = context;
  const paths = await withHeapPaced(() =>
    writeReport({
      mirror,
      outDir: settings.outDir,
      ...(settings.checkRunId !== undefined ? { checkRunId: settings.checkRunId } : {}),
      scope: { ...settings.scope, preparedAtMs: clock.now() },
    }),
  );
  if (settings.pending) await findingsStore(mirror).markReportWritten(paths.checkRunId);
  const sealed = await sealRun(mirror, paths.checkRunId, paths, {
    nowMs: clock.now(),
    ...(settings.signingKey ? { signingKey: settings.signingKey } : {}),
    ...(settings.checkpoints !== undefined ? { checkpoints: settings.checkpoints } : {}),
  });
  return { ...paths, ...sealed };
}

/** The sign-off name, merchant's name and materiality a command was given, for the workbook. */
export function scopeOf(options: {
  preparer?: string | undefined;
  materiality?: Map<string, number> | undefined;
  merchantName?: string | undefined;
}): ReportScope {
  return {
    ...(options.preparer !== undefined ? { preparer: options.preparer } : {}),
    ...(options.merchantName !== undefined && options.merchantName !== ''
      ? { merchantName: options.merchantName }
      : {}),
    ...(options.materiality !== undefined ? { materiality: options.materiality } : {}),
  };
}

/**
 * A run's outputs written (again) from the mirror at `db`, opened for writing under its lock
 * (`ledger-recon report`).
 * @throws MirrorError when there is no mirror or no such check run.
 */
export async function reportAt(db: string, clock: Clock, settings: ReportSettings) {
  const { mirror, release } = await openExistingForWriting(db, 'report', 'run');
  try {
    return await reportRun({ mirror, clock }, settings);
  } finally {
    await release();
  }
}
