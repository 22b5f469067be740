import type { CheckRunRow } from '../findings/store.js';

/** A check run's outputs' common name: the run's UTC date and id (`ledger-recon-2026-11-27-run-7`). */
export function reportBaseName(run: Pick<CheckRunRow, 'checkRunId' | 'startedAtMs'>): string {
  return `ledger-recon-${new Date(run.startedAtMs).toISOString().slice(0, 10)}-run-${run.checkRunId}`;
}
