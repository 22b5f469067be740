/** Accepting a known break as a job: it stays in every report with its note, but no longer fails runs. */
import { userInfo } from 'node:os';
import { isValid, parseISO } from 'date-fns';
import { openForWriting } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { findingsStore } from '../findings/store.js';
import type { Clock, JobContext } from './context.js';

export interface AcceptSettings {
  fingerprint: string;
  note: string;
  /** Who accepts; the operating-system user when not named. */
  by?: string | undefined;
  /** The last day it holds (YYYY-MM-DD, to the end of that UTC day); until it changes when absent. */
  until?: string | undefined;
}

/**
 * Accepts the newest finding with `settings.fingerprint` at the context's clock.
 * @returns the finding accepted. @throws MirrorError when no run holds that fingerprint, or the date has passed.
 */
export async function acceptFinding(context: Pick<JobContext, 'mirror' | 'clock'>, settings: AcceptSettings) {
  const nowMs = context.clock.now();
  const by = settings.by ?? operatingSystemUser();
  const untilMs = settings.until === undefined ? null : Date.parse(`${settings.until}T00:00:00Z`) + 86_400_000;
  if (untilMs !== null && untilMs <= nowMs) throw new MirrorError(`--until ${settings.until} has already passed`);
  const store = findingsStore(context.mirror);
  const finding = await store.history.latestFinding(settings.fingerprint);
  if (!finding)
    throw new MirrorError(
      `no finding has the fingerprint ${settings.fingerprint}: copy it from the findings JSON or the report`,
    );
  await store.acceptances.record({
    fingerprint: settings.fingerprint,
    note: settings.note,
    by,
    acceptedAtMs: nowMs,
    until: settings.until ?? null,
    untilMs,
    finding,
  });
  return { ...finding, by };
}

/**
 * `ledger-recon accept`'s job: the finding accepted in the mirror at `db`, opened for writing
 * under its lock, at `clock`.
 * @throws MirrorError for a date that is not one, no finding of that fingerprint, a date passed.
 */
export async function acceptAt(db: string, clock: Clock, settings: AcceptSettings) {
  if (
    settings.until !== undefined &&
    (!/^\d{4}-\d{2}-\d{2}$/.test(settings.until) || !isValid(parseISO(settings.until)))
  )
    throw new MirrorError(`--until ${settings.until} is not a date (YYYY-MM-DD)`);
  const { mirror, release } = await openForWriting(db, 'accept');
  try {
    return await acceptFinding({ mirror, clock }, settings);
  } finally {
    await release();
  }
}

/** The operating-system user's name, or the environment's when the system has none for us. */
function operatingSystemUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? process.env['LOGNAME'] ?? 'unknown';
  }
}
