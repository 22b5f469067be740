/** The check alone as a job: the catalogue over the mirror's newest sync, its standing recorded (or, dry, nothing). */
import type { CheckOptions } from '../checks/check.js';
import { reconcile, type ReconcileResult } from '../findings/reconcile.js';
import { type ExportedFinding, exportFinding } from '../findings/finding.js';
import { slaOfRun } from '../findings/sla.js';
import type { SlaRule } from '../findings/sla.js';
import type { FailOn } from '../findings/verdict.js';
import { mirrorExists, noMirrorAt, openForWriting, shownDb } from '../db/mirror.js';
import type { Clock, JobContext } from './context.js';

export interface CheckSettings {
  checkOptions?: Partial<CheckOptions>;
  failOn?: FailOn;
  merchantId?: string;
  /** The exception SLA rules (`--sla`). */
  sla?: readonly SlaRule[];
  /** Judge the newest sync and record nothing: no run in history, no standing changed (`--dry-run`). */
  dryRun?: boolean;
}

/**
 * `ledger-recon check`'s job: the catalogue over the newest sync at the context's clock (the
 * findings' ages, the acceptances' expiry); the caller holds the mirror's lock.
 */
export function checkMirror(context: Pick<JobContext, 'mirror' | 'clock'>, settings: CheckSettings = {}) {
  return reconcile({
    mirror: context.mirror,
    nowMs: context.clock.now(),
    options: settings.checkOptions ?? {},
    ...(settings.failOn ? { failOn: settings.failOn } : {}),
    ...(settings.merchantId ? { merchantId: settings.merchantId } : {}),
    ...(settings.dryRun ? { dryRun: true } : {}),
    ...(settings.sla ? { sla: settings.sla } : {}),
  }) satisfies Promise<ReconcileResult>;
}

/**
 * The check on the mirror at `location`, opened for writing under its lock (`ledger-recon check`).
 * @throws MirrorError when there is no mirror there; LockHeldError.
 */
export async function checkAt(location: string, clock: Clock, settings: CheckSettings = {}) {
  if (!(await mirrorExists(location))) throw noMirrorAt(location, shownDb(location));
  const { mirror, release } = await openForWriting(location, 'check');
  try {
    return await checkMirror({ mirror, clock }, settings);
  } finally {
    await release();
  }
}

/** A check's findings as `--findings-json` writes them (DESIGN.md's fields); a dry run's belong to no run. */
export function exportedFindings(
  result: ReconcileResult,
  dryRun = false,
): Array<Omit<ExportedFinding, 'runId'> & { runId: number | null }> {
  const sla = slaOfRun(result.summary);
  return result.findings.map((f) => exportFinding(f, sla)).map((f) => (dryRun ? { ...f, runId: null } : f));
}
