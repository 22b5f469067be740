import { defaultLocations } from '../locations.js';
import { sealSettingsOf } from '../app/settings-files.js';
import { periodOf } from '../report/period.js';
import { closeAt } from '../app/close.js';
import { systemClock } from '../app/context.js';
import { closeTold } from '../app/close-lines.js';
import { onInterrupt } from './interrupt.js';
import { reporter } from './reporter.js';
import { liabilitySettingsOf } from '../app/settings-files.js';
import type { declareClose, FlagsOf } from './declarations.js';

/**
 * `ledger-recon close`: the period's roll-forward per currency and program from the mirrored
 * ledger, tied out; writes its workpapers into --out and prints one line per roll-forward and
 * the files. Exit 1 when a tie-out fails, 2 when it cannot run.
 */
export async function close(options: FlagsOf<typeof declareClose>): Promise<void> {
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
  try {
    const closed = await closeAt(dbPath, systemClock, {
      period,
      outDir: options.out ?? defaultLocations().reports,
      ...(options.preparer !== undefined ? { preparer: options.preparer } : {}),
      ...(liability ? { liability } : {}),
      ...seal,
    });
    const told = closeTold(period.label, closed);
    write(`${told.lines.join('\n')}\n`);
    for (const warning of told.warnings) process.stderr.write(`${warning}\n`);
    record(told.record);
    if (!closed.result.closes) process.exitCode = 1;
  } finally {
    interruption.dispose();
  }
}
