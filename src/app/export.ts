/**
 * The gift card ledger as an hledger journal, a job of `ledger-recon export hledger`: a balance
 * assertion on every entry (`hledger -f FILE check` recomputes every balance), at a check run's
 * cut-off. Written under a temporary name, then renamed; or to a stream (standard output).
 */
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { openForReading, type Mirror } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { findingsStore } from '../findings/store.js';
import { EXCLUSIVE, temporaryBeside } from '../paths.js';
import { dataAsOf } from '../report/close.js';
import { exportHledger, type JournalScope } from '../report/hledger-export.js';

/** What the journal holds, and the cut-off it states the liability at. */
export interface JournalWritten {
  cards: number;
  entries: number;
  cutOffMs: number;
}

/**
 * The journal of the mirror at `db` at check run `run`'s cut-off (default the newest completed),
 * written whole to `to.path` or into `to.stream`.
 * @throws MirrorError when the run is not a completed one, or the mirror holds no completed sync.
 */
export async function journalOf(
  db: string,
  to: { path: string } | { stream: NodeJS.WritableStream },
  run?: number,
): Promise<JournalWritten> {
  const mirror = await openForReading(db, 'sync');
  try {
    const scope = await journalScope(mirror, run);
    if ('stream' in to) return { ...(await exportHledger(mirror, to.stream, scope)), cutOffMs: scope.cutOffMs };
    const temporary = temporaryBeside(to.path);
    try {
      const written = await exportHledger(mirror, createWriteStream(temporary, { flags: EXCLUSIVE }), scope);
      renameSync(temporary, to.path);
      return { ...written, cutOffMs: scope.cutOffMs };
    } finally {
      rmSync(temporary, { force: true });
    }
  } finally {
    await mirror.close();
  }
}

/**
 * The cut-off and merchant of the liability the journal states: the check run's (the newest
 * completed, or `--run`), else the newest completed sync's edge and the pinned merchant.
 * @throws MirrorError when the run is not a completed one, or the mirror holds no completed sync.
 */
async function journalScope(mirror: Mirror, runId: number | undefined): Promise<JournalScope> {
  const findings = findingsStore(mirror);
  const run = await findings.history.completedRun(runId);
  if (runId !== undefined && (run === null || run.asOfMs === null))
    throw new MirrorError(`check run ${runId} is not a completed run of this mirror: see \`ledger-recon history\``);
  if (run !== null && run.asOfMs !== null) return { cutOffMs: run.asOfMs, merchantId: run.merchantId };
  const asOfMs = await dataAsOf(mirror);
  if (asOfMs === null) throw new MirrorError('the mirror holds no completed sync: run `ledger-recon sync` first');
  return { cutOffMs: asOfMs, merchantId: await findings.pinnedMerchant() };
}
