/**
 * Seals a night's or a close's outputs: builds its manifest, appends it to the mirror's chain,
 * and writes it beside the outputs as `…-evidence.json` (under a temporary name, then renamed).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Mirror } from '../db/mirror.js';
import { findingsStore } from '../findings/store.js';
import { EXCLUSIVE, replaceable, temporaryBeside } from '../paths.js';
import { canonicalJson } from './canonical.js';
import { closeManifest, runManifest, seal, type SealedManifest } from './manifest.js';
import { signManifest } from './sign.js';
import type { KeyObject } from 'node:crypto';

/** How a seal is made: signed when a key is given (`--sign-key`). */
export interface SealOptions {
  signingKey?: KeyObject;
  nowMs?: number;
}

/** Where a set of outputs' manifest goes: beside its workbook. */
export function evidencePath(workbook: string): string {
  return workbook.replace(/\.xlsx$/, '-evidence.json');
}

/** Where a manifest's signature goes: beside it. */
export function envelopePath(manifest: string): string {
  return manifest.replace(/-evidence\.json$/, '-evidence.dsse.json');
}

/** Writes `text` to `path` whole or not at all. */
function writeWhole(path: string, text: string): void {
  const temporary = temporaryBeside(path);
  try {
    writeFileSync(temporary, text, { flag: EXCLUSIVE });
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

/** Seals check run `checkRunId`'s outputs (its workbook first). @returns the manifest's path. */
export async function sealRun(
  mirror: Mirror,
  checkRunId: number,
  outputs: { workbook: string; csv: string; json: string },
  { signingKey, nowMs = Date.now() }: SealOptions = {},
): Promise<string> {
  const findings = findingsStore(mirror);
  const run = await findings.history.completedRun(checkRunId);
  if (!run) throw new Error(`check run ${checkRunId} is not a completed run`);
  const manifest = await runManifest(mirror, findings, run, [outputs.workbook, outputs.csv, outputs.json]);
  const path = evidencePath(outputs.workbook);
  writeManifest(path, await seal(mirror, manifest, nowMs), signingKey);
  return path;
}

/** Seals a period close's outputs (its workbook first). @returns the manifest's path. */
export async function sealClose(
  mirror: Mirror,
  close: Parameters<typeof closeManifest>[1],
  outputs: readonly string[],
  { signingKey, nowMs = Date.now() }: SealOptions = {},
): Promise<string> {
  const manifest = await closeManifest(mirror, close, outputs);
  const path = evidencePath(outputs[0]!);
  writeManifest(path, await seal(mirror, manifest, nowMs), signingKey);
  return path;
}
