/**
 * The period close as a job: the period's roll-forward per currency and program from the mirrored
 * ledger, tied out, its workpapers written and sealed, every instant from the context's clock.
 */
import type { KeyObject } from 'node:crypto';
import { openExistingForWriting } from '../db/mirror.js';
import { sealClose } from '../evidence/write.js';
import { findingsStore } from '../findings/store.js';
import type { ClosedPeriodFigures } from '../report/close.js';
import type { Period } from '../report/period.js';
import { CLOSE_FILES, writeClose, type ClosePaths } from '../report/write-close.js';
import {
  breakageEntries,
  type LiabilitySettings,
  liabilityJson,
  liabilitySettingsFile,
} from '../report/liability-sheets.js';
import { ReportStore } from '../report/store.js';
import type { Clock, JobContext } from './context.js';

export interface CloseSettings {
  period: Period;
  /** Where the workpapers and their manifest go. */
  outDir: string;
  /** Fills "Prepared by" on the Summary. */
  preparer?: string;
  /** Signs the close's manifest (`--sign-key`). */
  signingKey?: KeyObject;
  /** Where the log's checkpoint is published after the seal (`--checkpoints`, evidence/log.ts). */
  checkpoints?: string;
  /** What shapes breakage and unclaimed property (`--liability FILE`); the documented defaults otherwise. */
  liability?: LiabilitySettings;
}

export interface ClosedPeriod {
  result: ClosedPeriodFigures;
  paths: ClosePaths;
  /** The workpapers in the order they are sealed (write-close.ts CLOSE_FILES). */
  outputs: string[];
  /** The evidence manifest's path. */
  evidence: string;
  /** The log's checkpoint published, when a place was given. */
  checkpoint?: string;
}

/**
 * Closes `settings.period` over the mirror at `location`, under its lock (the sync's, so no sync
 * writes under the close), released whatever happens.
 * @throws what opening the mirror throws (MirrorError, LockHeldError), and what closePeriodOf throws.
 */
export async function closeAt(location: string, clock: Clock, settings: CloseSettings): Promise<ClosedPeriod> {
  const { mirror, release } = await openExistingForWriting(location, 'close', 'sync');
  try {
    return await closePeriodOf({ mirror, clock }, settings);
  } finally {
    await release();
  }
}

/**
 * Closes `settings.period` over the mirror (the caller holds its lock): for our merchant as the
 * newest check run pinned it, the cards that run counted in flight shown apart.
 * @throws what writing the workpapers throws (StorageError naming --out).
 */
export async function closePeriodOf(
  context: Pick<JobContext, 'mirror' | 'clock'>,
  settings: CloseSettings,
): Promise<ClosedPeriod> {
  const { mirror, clock } = context;
  const { period } = settings;
  const findings = findingsStore(mirror);
  const { close: result, paths } = await writeClose({
    mirror,
    period,
    merchantId: await findings.pinnedMerchant(),
    inFlight: await findings.inFlightOf(),
    outDir: settings.outDir,
    preparedAtMs: clock.now(),
    ...(settings.preparer !== undefined ? { preparer: settings.preparer } : {}),
    ...(settings.liability ? { liability: settings.liability } : {}),
  });
  const outputs = CLOSE_FILES.map((key) => paths[key]);
  // The workpaper's vintages and bands, for the liability_by_vintage and liability_dormancy views.
  await new ReportStore(mirror).keepLiability(period.label, result.liability.closing);
  const { evidence, checkpoint } = await sealClose(
    mirror,
    {
      label: period.label,
      asOfMs: result.asOfMs,
      merchantId: result.merchantId,
      settings: {
        period: period.label,
        timeZone: period.timeZone,
        from: new Date(period.startMs).toISOString(),
        to: new Date(period.endMs).toISOString(),
        liability: liabilitySettingsFile(result.liability.settings),
      },
      figures: { rollForwards: result.rollForwards, unattributedEntries: result.unattributedEntries },
      liability: liabilityJson(result.liability, breakageEntries(result)),
    },
    outputs,
    {
      nowMs: clock.now(),
      ...(settings.signingKey ? { signingKey: settings.signingKey } : {}),
      ...(settings.checkpoints !== undefined ? { checkpoints: settings.checkpoints } : {}),
    },
  );
  return { result, paths, outputs, evidence, ...(checkpoint ? { checkpoint } : {}) };
}
