import { defaultLocations } from '../locations.js';
import { NothingMirroredError } from '../errors.js';
import { loadConfig } from '../config.js';
import { shownMirror } from '../db/mirror.js';
import { systemClock } from '../app/context.js';
import { syncAt, type SyncSettings } from '../app/sync.js';
import { onInterrupt } from './interrupt.js';
import { createProgress } from './progress.js';
import { syncClosingLine } from '../app/progress-lines.js';
import type { declareSync, FlagsOf } from './declarations.js';

/**
 * `ledger-recon sync`: mirrors both services under the mirror's lock.
 * @throws ConfigError, LockHeldError, AuthError, ServiceUnavailableError (exit 2); what was
 * committed before a failure stays in the mirror.
 */
export async function sync(options: FlagsOf<typeof declareSync>): Promise<void> {
  const config = loadConfig(options);
  const dbPath = options.db ?? defaultLocations().db;
  // Taken before the mirror is opened (a server's connection and schema can take a second): a
  // Ctrl-C while it opens stops the sync before its first page, with the one line and exit 130.
  const interruption = onInterrupt(
    'the sync stopped; what it read whole is committed with its checkpoints, and the next sync resumes from there',
  );
  const stderr = process.stderr;
  const progress = createProgress({
    stream: stderr,
    tty: stderr.isTTY === true,
    quiet: options.json === true || options.quiet === true,
  });
  try {
    const outcome = await syncAt(
      config,
      { clock: systemClock, signal: interruption.signal, sink: { progress, note: (text) => stderr.write(text) } },
      syncSettingsOf(options, dbPath),
    );
    if (!outcome.ok) {
      progress.finish();
      if (options.json && outcome.failedRecord) process.stdout.write(`${outcome.failedRecord}\n`);
      throw outcome.error;
    }
    const { summary } = outcome;
    progress.finish(syncClosingLine(summary));
    if (options.json) process.stdout.write(`${JSON.stringify({ mirror: shownMirror(dbPath), ...summary })}\n`);
    // A sync that read every list but could mirror nothing of one: exit 2, naming it.
    if (!summary.completed) throw new NothingMirroredError(summary.error ?? 'the sync did not complete');
  } finally {
    interruption.dispose();
  }
}

/** The sync's settings of the flags. */
function syncSettingsOf(options: FlagsOf<typeof declareSync>, location: string): SyncSettings & { location: string } {
  return {
    location,
    full: options.full === true,
    rebind: options.rebind === true,
    init: options.init === true,
    ...(options.overlapMinutes !== undefined ? { overlapMs: options.overlapMinutes * 60_000 } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
  };
}
