/** Accepting a known break as a job: it stays in every report with its note, but no longer fails runs. */
import { MirrorError } from '../errors.js';
import { findingsStore } from '../findings/store.js';
import type { JobContext } from './context.js';

export interface AcceptSettings {
  fingerprint: string;
  note: string;
  /** Who accepts. */
  by: string;
  /** The last day it holds (YYYY-MM-DD, to the end of that UTC day); until it changes when absent. */
  until?: string;
}

/**
 * Accepts the newest finding with `settings.fingerprint` at the context's clock.
 * @returns the finding accepted. @throws MirrorError when no run holds that fingerprint, or the date has passed.
 */
export async function acceptFinding(context: Pick<JobContext, 'mirror' | 'clock'>, settings: AcceptSettings) {
  const nowMs = context.clock.now();
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
    by: settings.by,
    acceptedAtMs: nowMs,
    until: settings.until ?? null,
    untilMs,
    finding,
  });
  return finding;
}
