import { defaultLocations } from '../locations.js';
import { openExistingForWriting } from '../db/mirror.js';
import { sealSettingsOf } from './seal-options.js';
import { periodOf, type PeriodOptions } from '../report/period.js';
import type { ClosePaths } from '../report/write-close.js';
import { closePeriodOf } from '../app/close.js';
import { systemClock } from '../app/context.js';
import { closeTold } from '../app/close-lines.js';
import { onInterrupt } from './interrupt.js';
import { reporter } from './reporter.js';
import { liabilitySettingsOf } from '../app/settings-files.js';

export interface CloseCommandOptions extends PeriodOptions {
  db?: string;
  out?: string;
  preparer?: string;
  json?: boolean;
  quiet?: boolean;
  /** An Ed25519 private key (PEM) that signs the manifest. */
  signKey?: string;
  checkpoints?: string;
  /** The liability settings file (docs/liability.md). */
  liability?: string;
}

/**
 * `ledger-recon close`: the period's roll-forward per currency and program from the mirrored
 * ledger, tied out; writes its workpapers into --out and prints one line per roll-forward and
 * the files. Exit 1 when a tie-out fails, 2 when it cannot run.
 */
export async function close(options: CloseCommandOptions): Promise<ClosePaths> {
  const { say: write, record } = reporter(options);
  const period = periodOf(options);
  const seal = sealSettingsOf(options);
  const liability = liabilitySettingsOf(options.liability);
  const dbPath = options.db ?? defaultLocations().db;
  // Taken before the mirror is opened: a signal held while the process loaded ends it before the lock.
  const interruption = onInterrupt(
    'the close stopped before its workpapers were whole: none was written (their temporary files go at the next close); close the period again',
    process.stderr,
    { atOnce: true },
  );
  const { mirror, release } = await openExistingForWriting(dbPath, 'close', 'sync').catch((error: unknown) => {
    interruption.dispose();
    throw error;
  });
  try {
    const closed = await closePeriodOf(
      { mirror, clock: systemClock },
      {
        period,
        outDir: options.out ?? defaultLocations().reports,
        ...(options.preparer !== undefined ? { preparer: options.preparer } : {}),
        ...(liability ? { liability } : {}),
        ...seal,
      },
    );
    const told = closeTold(period.label, closed);
    write(`${told.lines.join('\n')}\n`);
    for (const warning of told.warnings) process.stderr.write(`${warning}\n`);
    record(told.record);
    if (!closed.result.closes) process.exitCode = 1;
    return closed.paths;
  } finally {
    await release();
    interruption.dispose();
  }
}
