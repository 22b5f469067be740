/**
 * Seals a night's or a close's outputs: builds its manifest, appends it to the mirror's chain,
 * and writes it beside the outputs as `…-evidence.json` (under a temporary name, then renamed).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Mirror } from '../db/mirror.js';
import { findingsStore } from '../findings/store.js';
import { replaceable } from '../paths.js';
import { canonicalJson } from './canonical.js';
import { closeManifest, runManifest, seal, type SealedManifest } from './manifest.js';

/** Where a set of outputs' manifest goes: beside its workbook. */
export function evidencePath(workbook: string): string {
  return workbook.replace(/\.xlsx$/, '-evidence.json');
}

function writeManifest(path: string, sealed: SealedManifest): void {
  const temporary = `${path}.${process.pid}.partial`;
  try {
    // Keys in canonical order: the same manifest is the same bytes, whether just made or read back from the mirror.
    writeFileSync(temporary, `${JSON.stringify(JSON.parse(canonicalJson(sealed)), null, 2)}\n`);
    renameSync(temporary, replaceable(path));
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Seals check run `checkRunId`'s outputs (its workbook first). @returns the manifest's path. */
export async function sealRun(
  mirror: Mirror,
  checkRunId: number,
  outputs: { workbook: string; csv: string; json: string },
  nowMs = Date.now(),
): Promise<string> {
  const findings = findingsStore(mirror);
  const run = await findings.completedRun(checkRunId);
  if (!run) throw new Error(`check run ${checkRunId} is not a completed run`);
  const manifest = await runManifest(mirror, findings, run, [outputs.workbook, outputs.csv, outputs.json]);
  const path = evidencePath(outputs.workbook);
  writeManifest(path, await seal(mirror, manifest, nowMs));
  return path;
}

/** Seals a period close's outputs (its workbook first). @returns the manifest's path. */
export async function sealClose(
  mirror: Mirror,
  close: Parameters<typeof closeManifest>[1],
  outputs: readonly string[],
  nowMs = Date.now(),
): Promise<string> {
  const manifest = await closeManifest(mirror, close, outputs);
  const path = evidencePath(outputs[0]!);
  writeManifest(path, await seal(mirror, manifest, nowMs));
  return path;
}
