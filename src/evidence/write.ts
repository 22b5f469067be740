/**
 * Seals a night's or a close's outputs: builds its manifest, writes it beside the outputs as
 * `…-evidence.json` (under a temporary name, synced, then renamed), then appends it to the
 * mirror's chain, and publishes the log's checkpoint when a place is given (log.ts).
 */
import { renameSync, rmSync } from 'node:fs';
import type { Mirror } from '../db/mirror.js';
import { findingsStore } from '../findings/store.js';
import { replaceable, temporaryBeside, writeNewSynced } from '../paths.js';
import { canonicalJson } from './canonical.js';
import { appendSeal, closeManifest, type Manifest, runManifest, sealedOf, type SealedManifest } from './manifest.js';
import { publishCheckpoint } from './log.js';
import { signManifest } from './sign.js';
import type { KeyObject } from 'node:crypto';

/** How a seal is made: signed when a key is given (`--sign-key`), its checkpoint published when a place is (`--checkpoints`). */
export interface SealOptions {
  signingKey?: KeyObject;
  checkpoints?: string;
  /** When the seal is appended to the log, from the job's clock. */
  nowMs: number;
}

/** What a seal wrote: the manifest's path, and the checkpoint's when one was published. */
export interface Sealed {
  evidence: string;
  checkpoint?: string;
}

/** Where a set of outputs' manifest goes: beside its workbook. */
export function evidencePath(workbook: string): string {
  return workbook.replace(/\.xlsx$/, '-evidence.json');
}

/** Where a manifest's signature goes: beside it. */
export function envelopePath(manifest: string): string {
  return manifest.replace(/-evidence\.json$/, '-evidence.dsse.json');
}

/** Writes `text` to `path` whole or not at all, synced to the disk before it takes the name. */
function writeWhole(path: string, text: string): void {
  const temporary = temporaryBeside(path);
  try {
    writeNewSynced(temporary, text, 0o666);
    renameSync(temporary, replaceable(path));
  } finally {
    rmSync(temporary, { force: true });
  }
}

function writeManifest(path: string, sealed: SealedManifest, signingKey: KeyObject | undefined): void {
  // Keys in canonical order: the same manifest is the same bytes, whether just made or read back from the mirror.
  writeWhole(path, `${JSON.stringify(JSON.parse(canonicalJson(sealed)), null, 2)}\n`);
  if (signingKey) writeWhole(envelopePath(path), `${JSON.stringify(signManifest(sealed, signingKey), null, 2)}\n`);
}

/**
 * Seals `manifest` as the manifest at `path`: the file (and its signature) written and synced
 * first, then its link in the mirror's chain, then the log's checkpoint.
 */
async function sealAt(
  mirror: Mirror,
  manifest: Manifest,
  outputs: readonly string[],
  options: SealOptions,
): Promise<Sealed> {
  const path = evidencePath(outputs[0]!);
  const { sealed, stored } = await sealedOf(mirror, manifest);
  try {
    writeManifest(path, sealed, options.signingKey);
    if (!stored) await appendSeal(mirror, sealed, options.nowMs);
  } catch (error) {
    // Unsealed, the outputs go with their manifest: the folder keeps no file that no seal
    // vouches for, and the report written again (`report --run N`) takes the same names.
    if (!stored) for (const file of [...outputs, path, envelopePath(path)]) rmSync(file, { force: true });
    throw error;
  }
  const checkpoint =
    options.checkpoints === undefined
      ? undefined
      : await publishCheckpoint(mirror, options.checkpoints, options.signingKey);
  return { evidence: path, ...(checkpoint ? { checkpoint } : {}) };
}

/** Seals check run `checkRunId`'s outputs (its workbook first). */
export async function sealRun(
  mirror: Mirror,
  checkRunId: number,
  outputs: { workbook: string; csv: string; json: string; page?: string },
  options: SealOptions,
): Promise<Sealed> {
  const findings = findingsStore(mirror);
  const run = await findings.history.completedRun(checkRunId);
  if (!run) throw new Error(`check run ${checkRunId} is not a completed run`);
  const files = [outputs.workbook, outputs.csv, outputs.json, ...(outputs.page ? [outputs.page] : [])];
  return sealAt(mirror, await runManifest(mirror, findings, run, files), files, options);
}

/** Seals a period close's outputs (its workbook first). */
export async function sealClose(
  mirror: Mirror,
  close: Parameters<typeof closeManifest>[1],
  outputs: readonly string[],
  options: SealOptions,
): Promise<Sealed> {
  const manifest = await closeManifest(mirror, close, outputs);
  return sealAt(mirror, manifest, outputs, options);
}
