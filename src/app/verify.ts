/**
 * Re-performance from the mirror, the jobs behind `ledger-recon verify`: a past night (`--run N`),
 * a period's close (`--close 2026-10`), and a night under other settings (`--run N --set KEY=VALUE`).
 * Each returns what it found; the CLI prints it.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyBooksAsOf } from '../books/store-past.js';
import { ChecksStore } from '../checks/store.js';
import { openMirror, type Mirror } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import type { SealedManifest } from '../evidence/manifest.js';
import {
  type ListsAt,
  NotReperformable,
  type Reperformance,
  refuseRebound,
  reperformRun,
  whatIf,
  type WhatIfSettings,
} from '../evidence/reperform.js';
import { canonicalJson } from '../evidence/canonical.js';
import { EvidenceStore } from '../evidence/store.js';
import { sha256Hex } from '../hash.js';
import { findingsStore, type FindingsStore } from '../findings/store.js';
import { oneLine } from '../log.js';
import { closePeriod, type PeriodClose, type RunInFlight } from '../report/close.js';
import { breakageEntries, liabilityJson, parseLiabilitySettings } from '../report/liability-sheets.js';
import { periodOf } from '../report/period.js';
import { rebuildListsAsOf } from '../sync/as-of.js';

/** A night the mirror cannot re-perform, said as the mirror's problem (exit 2, one line). */
function asMirrorError(error: unknown): never {
  throw error instanceof NotReperformable ? new MirrorError(error.message) : error;
}

/**
 * Check run `checkRunId` re-performed from the mirror's history: its ledger population, its
 * findings and their standing, its roll-forward, its lists as of its sync.
 * @throws MirrorError when the mirror cannot re-perform it (no such run, a rebound mirror…).
 */
export async function reperformNight(mirror: Mirror, checkRunId: number): Promise<Reperformance> {
  return withListsAsOf(mirror, (listsAt) => reperformRun(mirror, checkRunId, listsAt)).catch(asMirrorError);
}

/**
 * What check run `checkRunId` would have found under `settings`; the sealed night is untouched.
 * @throws BooksNotMatchable when a books setting is given for a night whose books cannot be matched again.
 */
export async function whatIfNight(mirror: Mirror, checkRunId: number, settings: WhatIfSettings) {
  return withListsAsOf(mirror, (listsAt) => whatIf(mirror, checkRunId, settings, listsAt));
}

/** A period's newest sealed close, computed again over the mirror as it stood at the sync that close read. */
export interface PeriodReperformance {
  manifest: SealedManifest;
  /** The sync the close read. */
  sync: number;
  result: PeriodClose;
  /** The figures the close's manifest sealed the digest of, computed again. */
  figures: Pick<PeriodClose, 'rollForwards' | 'unattributedEntries'>;
  /** Whether they are the sealed ones. */
  identical: boolean;
}

/**
 * The period `label`'s newest close (`2026-10`, or `2026-10-01 to 2026-10-31`) re-performed over
 * the mirror's history at the sync it read.
 * @throws MirrorError when the period was never closed, its sync is gone, or the mirror was rebound.
 */
export async function reperformPeriod(mirror: Mirror, label: string): Promise<PeriodReperformance> {
  const manifests = await new EvidenceStore(mirror).bySubject(`close ${label}`);
  const stored = manifests.at(-1);
  if (!stored)
    throw new MirrorError(
      `the period ${oneLine(label)} was never closed and sealed in this mirror: see \`ledger-recon close --help\``,
    );
  const manifest = JSON.parse(stored.manifestJson) as SealedManifest;
  const cutOffMs = Date.parse(manifest.cutOff);
  // The sync the close read: the completed one whose data edge is the close's cut-off.
  const sync = await closedSync(mirror, cutOffMs);
  if (sync === undefined)
    throw new MirrorError(
      `no completed sync of this mirror ends at the close's cut-off (${manifest.cutOff}): its history was changed`,
    );
  await refuseRebound(mirror, `the close of ${label}`, sync).catch(asMirrorError);
  const settings = manifest.settings as { period?: string; timeZone?: string; liability?: unknown };
  const [from, to] = label.split(' to ');
  const period = periodOf(
    /^\d{4}-\d{2}$/.test(label)
      ? { period: label, tz: settings.timeZone ?? 'UTC' }
      : { from: from ?? '', to: to ?? '', tz: settings.timeZone ?? 'UTC' },
  );
  const findings = findingsStore(mirror);
  const result = await closePeriod(mirror, period, () => undefined, {
    asOfSync: sync,
    merchantId: manifest.merchantId,
    inFlight: await inFlightAt(findings, sync),
    // The liability's settings as the close sealed them (a close sealed before them: the defaults, unchecked).
    ...(settings.liability !== undefined
      ? { liability: parseLiabilitySettings(JSON.stringify(settings.liability)) }
      : {}),
  });
  const figures = { rollForwards: result.rollForwards, unattributedEntries: result.unattributedEntries };
  const sealedLiability = manifest.digests['liability'];
  const identical =
    sha256Hex(canonicalJson(figures)) === manifest.digests['rollForward'] &&
    (sealedLiability === undefined ||
      sha256Hex(canonicalJson(liabilityJson(result.liability, breakageEntries(result)))) === sealedLiability);
  return { manifest, sync, result, figures, identical };
}

/** The completed sync whose data edge is `cutOffMs`, if any. */
async function closedSync(mirror: Mirror, cutOffMs: number): Promise<number | undefined> {
  const store = new ChecksStore(mirror);
  for (
    let sync = await store.newestCompletedSync();
    sync !== undefined;
    sync = await store.newestCompletedSync(sync.syncRunId)
  )
    if (sync.cutOffMs === cutOffMs) return sync.syncRunId;
  return undefined;
}

/** The cards the newest completed check run over `syncRunId` counted in flight (what that close read). */
async function inFlightAt(findings: FindingsStore, syncRunId: number): Promise<RunInFlight | null> {
  for (let run = await findings.history.completedRun(); run; run = await findings.previousCompleteRun(run.checkRunId))
    if (run.syncRunId === syncRunId) return findings.inFlightOf(run);
  return null;
}

/** A scratch copy's folder in the temporary folder: the prefix, then the process that made it. */
const SCRATCH_PREFIX = 'ledger-recon-lists-';
const SCRATCH_NAME = new RegExp(`^${SCRATCH_PREFIX}(\\d+)-`);

/**
 * Runs `work` with the lists of `mirror` rebuilt as of a sync on demand (sync/as-of.ts), and the
 * books as of a books file when asked (books/store-past.ts), each in a scratch mirror of its own
 * in a temporary folder, removed after; one a stopped verify left behind, the next removes.
 */
export async function withListsAsOf<T>(mirror: Mirror, work: (listsAt: ListsAt) => Promise<T>): Promise<T> {
  removeAbandonedScratch();
  const folder = mkdtempSync(join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));
  const opened: Mirror[] = [];
  try {
    return await work(async (syncRunId, booksThroughFileId) => {
      const lists = openMirror(join(folder, `lists-${opened.length + 1}.db`));
      opened.push(lists);
      const { unreadable } = await rebuildListsAsOf(mirror, syncRunId, lists);
      const books =
        booksThroughFileId === undefined || booksThroughFileId === null
          ? undefined
          : await copyBooksAsOf(mirror, booksThroughFileId, lists);
      return { lists, unreadable, ...(books ? { books } : {}) };
    });
  } finally {
    for (const lists of opened) await lists.close().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Removes the scratch copies that a verify stopped by Ctrl-C, SIGTERM or SIGKILL left behind (its
 * process gone): hundreds of megabytes for a night of a million entries. A stopped verify ends at
 * once, as Node's default has it; its walk holds the thread, so it could not remove its own.
 */
function removeAbandonedScratch(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(SCRATCH_NAME.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid))
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

/** Whether process `pid` is running (signal 0 tests it without sending anything). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
