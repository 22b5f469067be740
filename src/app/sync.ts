import type { Config } from '../config.js';
import { openForWriting, refuseConjuredMirror } from '../db/mirror.js';
import { isDefaultMirror } from '../locations.js';
import { ensureFolder, storageFailure } from '../paths.js';
import { findingsStore } from '../findings/store.js';
import { runSync, type SyncSummary } from '../sync/run-sync.js';
import { SyncStore } from '../sync/store.js';
import { createClients } from './clients.js';
import type { JobContext, ServiceJobContext } from './context.js';
import { withHeapPaced } from './heap.js';

/** How a sync walks the services (`sync` and `run` flags). */
export interface SyncSettings {
  /** Re-read every list and the whole ledger (`--full`, weekly). */
  full?: boolean;
  /** Move a mirror bound to other services to these ones (`--rebind`). */
  rebind?: boolean;
  /** Overlap below the newest mirrored entry for incremental ledger walks (`--overlap-minutes`). */
  overlapMs?: number;
  /** By-ID reads in flight at once (`--concurrency`). */
  concurrency?: number;
  /** Make a new mirror even where its folder and that folder's parent do not exist, or the folder holds other files (`--init`). */
  init?: boolean;
}

/**
 * The sync job, alone (`ledger-recon sync`) or as the night's first stage: every card the
 * previous night left in flight, held or broken is read again, moved or not, then both
 * services are walked into the mirror with the heap paced.
 * @throws what the sync throws (AuthError, ServiceUnavailableError, InterruptedError…); what was
 * committed before stays in the mirror.
 */
export async function syncMirror(context: ServiceJobContext, settings: SyncSettings = {}): Promise<SyncSummary> {
  const { mirror, clients, sink, signal, clock } = context;
  const recheckCards = await findingsStore(mirror).cardsToReread();
  return withHeapPaced(() =>
    runSync({
      mirror,
      giftcard: clients.giftcard,
      dp: clients.dp,
      full: settings.full === true,
      rebind: settings.rebind === true,
      recheckCards,
      progress: sink.progress,
      signal,
      clock,
      ...(settings.overlapMs !== undefined ? { overlapMs: settings.overlapMs } : {}),
      ...(settings.concurrency !== undefined ? { concurrency: settings.concurrency } : {}),
    }),
  );
}

/** A sync that ran (its summary, complete or not), or one that failed: its error and the record its run left, if any. */
export type SyncOutcome =
  | { ok: true; summary: SyncSummary }
  | { ok: false; error: unknown; failedRecord: string | null };

/**
 * The sync on the mirror at `location` (opened for writing under its lock) with clients of the
 * services `config` names: what `ledger-recon sync` calls. The mirror and the clients are closed
 * when it ends.
 * @throws what opening the mirror throws (LockHeldError, MirrorError): the sync had not begun.
 */
export async function syncAt(
  config: Config,
  context: Omit<JobContext, 'mirror'>,
  settings: SyncSettings & { location: string },
): Promise<SyncOutcome> {
  return withMirrorAndClients(config, context, 'sync', settings, async (job) => {
    try {
      return { ok: true, summary: await syncMirror(job, settings) };
    } catch (error) {
      const failedRecord = await new SyncStore(job.mirror).runs.lastFailedSyncSummary().catch(() => null);
      return { ok: false, error, failedRecord: failedRecord ?? null };
    }
  });
}

/**
 * `work` on the mirror at `settings.location`, opened for writing under its lock by `command`, with
 * clients of the services `config` names; both closed when it ends (the sync's and the night's).
 * @throws what opening the mirror throws (LockHeldError, MirrorError): the work had not begun.
 */
export async function withMirrorAndClients<T>(
  config: Config,
  context: Omit<JobContext, 'mirror'>,
  command: 'sync' | 'run',
  settings: {
    location: string;
    init?: boolean | undefined;
    outDir?: string | undefined;
    concurrency?: number | undefined;
  },
  work: (job: ServiceJobContext) => Promise<T>,
): Promise<T> {
  const { mirror, release } = await openMirrorFor(settings.location, command, settings);
  const clients = createClients(config, {
    ...(settings.concurrency !== undefined ? { concurrency: settings.concurrency } : {}),
    signal: context.signal,
  });
  try {
    return await work({ ...context, mirror, clients });
  } finally {
    await clients.close();
    await release();
  }
}

/**
 * The mirror at `location` opened for writing under its lock by `command`: one that is there, or a
 * new one where a mistyped path would not make it (else `init`); a file system's refusal names --db.
 * The reports folder (`outDir`), when the command writes one, is made or found writable first:
 * a --out that cannot be written fails in a second, not after the night's work.
 * @throws ConfigError naming --db and --init; FileSystemError naming --db or --out; LockHeldError.
 */
export async function openMirrorFor(
  location: string,
  command: 'sync' | 'run',
  settings: { init?: boolean | undefined; outDir?: string | undefined },
) {
  refuseConjuredMirror(location, settings.init === true || isDefaultMirror(location));
  if (settings.outDir !== undefined) ensureFolder('--out', settings.outDir);
  return openForWriting(location, command).catch((error: unknown) => {
    throw storageFailure(error, { db: location, out: settings.outDir }) ?? error;
  });
}
