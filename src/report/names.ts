import type { CheckRunRow } from '../findings/store.js';

/** A check run's outputs' common name: the run's UTC date and id (`ledger-recon-2026-11-27-run-7`). */
export function reportBaseName(run: Pick<CheckRunRow, 'checkRunId' | 'startedAtMs'>): string {
  return `ledger-recon-${new Date(run.startedAtMs).toISOString().slice(0, 10)}-run-${run.checkRunId}`;
}

/** The sign-off's date (UTC) of a report prepared at `atMs`; the moment it is written when the job names none. */
export function preparedOn(atMs: number | undefined): string {
  return new Date(atMs ?? Date.now()).toISOString().slice(0, 10);
}
