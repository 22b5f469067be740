/**
 * Offline verification of a folder of outputs (an auditor's copy of the reports folder: no
 * mirror, no services): every manifest against its own digest, every file it names against its
 * SHA-256, and the chain of manifests per mirror. Each problem is one line.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { fileDigest } from './canonical.js';
import { envelopeProblem } from './sign.js';
import { MANIFEST_FORMAT, manifestDigest, type SealedManifest } from './manifest.js';

export interface FolderVerification {
  manifests: number;
  files: number;
  /** Manifests whose signature by the public key holds (0 without one). */
  signed: number;
  /** One line each; none when everything holds. */
  problems: string[];
}

const isManifest = (value: unknown): value is SealedManifest =>
  typeof value === 'object' &&
  value !== null &&
  (value as { format?: unknown }).format === MANIFEST_FORMAT &&
  typeof (value as { digest?: unknown }).digest === 'string' &&
  Number.isInteger((value as { sequence?: unknown }).sequence) &&
  Array.isArray((value as { outputs?: unknown }).outputs);

/**
 * Verifies every `…-evidence.json` in `dir` and the files they name; with `publicKey`, each
 * manifest must also be signed by it (its `…-evidence.dsse.json` beside it).
 */
export async function verifyFolder(dir: string, publicKey?: KeyObject): Promise<FolderVerification> {
  const problems: string[] = [];
  let signed = 0;
  const manifests: { name: string; manifest: SealedManifest }[] = [];
  let files = 0;
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('-evidence.json'))
    .sort()) {
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    } catch {
      problems.push(`${name}: not a manifest (not JSON)`);
      continue;
    }
    if (!isManifest(manifest)) {
      problems.push(`${name}: not a manifest of this tool (${MANIFEST_FORMAT})`);
      continue;
    }
    if (manifestDigest(manifest) !== manifest.digest) {
      problems.push(`${name}: the manifest was changed: its contents no longer give its digest`);
      continue;
    }
    manifests.push({ name, manifest });
    if (publicKey) {
      const problem = signatureProblem(dir, name, manifest, publicKey);
      if (problem) problems.push(problem);
      else signed += 1;
    }
    for (const output of manifest.outputs) {
      files += 1;
      if (!/^[^/\\]+$/.test(output.file) || output.file === '..' || output.file === '.') {
        problems.push(`${name}: names a file outside its folder: ${JSON.stringify(output.file)}`);
        continue;
      }
      const path = join(dir, output.file);
      if (!existsSync(path)) {
        problems.push(`${output.file}: missing (sealed by ${name})`);
        continue;
      }
      const found = await fileDigest(path);
      if (found.sha256 !== output.sha256)
        problems.push(
          `${output.file}: changed since it was sealed by ${name} (SHA-256 ${found.sha256.slice(0, 12)}…, sealed ${output.sha256.slice(0, 12)}…)`,
        );
    }
  }
  problems.push(...chainProblems(manifests));
  return { manifests: manifests.length, files, signed, problems };
}

/** Whether the manifest `name` is signed by `publicKey`: why not, or null. */
function signatureProblem(dir: string, name: string, manifest: SealedManifest, publicKey: KeyObject): string | null {
  const envelopeName = name.replace(/-evidence\.json$/, '-evidence.dsse.json');
  const path = join(dir, envelopeName);
  if (!existsSync(path)) return `${name}: not signed (no ${envelopeName} beside it)`;
  let envelope: unknown;
  try {
    envelope = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return `${envelopeName}: not JSON`;
  }
  const problem = envelopeProblem(envelope, manifest, publicKey);
  return problem === null ? null : `${envelopeName}: ${problem}`;
}

/** Per mirror, the manifests in chain order: a gap, a second claim to one place, or a link that does not hold. */
function chainProblems(manifests: readonly { name: string; manifest: SealedManifest }[]): string[] {
  const problems: string[] = [];
  const chains = new Map<string, { name: string; manifest: SealedManifest }[]>();
  for (const entry of manifests)
    chains.set(entry.manifest.mirror, [...(chains.get(entry.manifest.mirror) ?? []), entry]);
  for (const chain of chains.values()) {
    chain.sort((a, b) => a.manifest.sequence - b.manifest.sequence);
    for (let i = 1; i < chain.length; i += 1) {
      const before = chain[i - 1]!;
      const after = chain[i]!;
      const gap = after.manifest.sequence - before.manifest.sequence;
      if (gap === 0)
        problems.push(
          `${after.name}: inserted: it claims place ${after.manifest.sequence} in the chain, which ${before.name} holds`,
        );
      else if (gap > 1)
        problems.push(
          `missing from the chain: ${gap - 1 === 1 ? `place ${before.manifest.sequence + 1}` : `places ${before.manifest.sequence + 1} to ${after.manifest.sequence - 1}`}, between ${before.name} and ${after.name}`,
        );
      else if (after.manifest.previous !== before.manifest.digest)
        problems.push(`${after.name}: broken link: it does not follow ${before.name} (its previous digest is another)`);
    }
  }
  return problems;
}
