import { lstatSync } from 'node:fs';
import type { CheckRunRow } from '../findings/store.js';

/** A check run's outputs' common name: the run's UTC date and id (`ledger-recon-2026-11-27-run-7`). */
export function reportBaseName(run: Pick<CheckRunRow, 'checkRunId' | 'startedAtMs'>): string {
  return `ledger-recon-${new Date(run.startedAtMs).toISOString().slice(0, 10)}-run-${run.checkRunId}`;
}

/**
 * The sign-off's date (UTC) of a report prepared at `atMs` (the job's clock); when the job names
 * none, the instant the figures are of (`ofMs`), never the wall clock.
 */
export function preparedOn(atMs: number | undefined, ofMs: number): string {
  return new Date(atMs ?? ofMs).toISOString().slice(0, 10);
}

/** What a sealed set of outputs adds beside its files: its manifest and its signature. */
const SEAL_SUFFIXES = ['-evidence.json', '-evidence.dsse.json'];

/**
 * The name a set of outputs takes: `base`, or when any of its files (`base` + each of
 * `suffixes`, or the seal beside them) is there already, the first free revision
 * (`base-r2`, `base-r3`…). Nothing sealed is overwritten: a report written again, a close run
 * again or a second mirror's night of the same number in the same folder gets files of its own.
 */
export function freeRevision(base: string, suffixes: readonly string[]): string {
  const taken = (name: string) =>
    [...suffixes, ...SEAL_SUFFIXES].some((suffix) => lstatSync(`${name}${suffix}`, { throwIfNoEntry: false }));
  if (!taken(base)) return base;
  let revision = 2;
  while (taken(`${base}-r${revision}`)) revision += 1;
  return `${base}-r${revision}`;
}
