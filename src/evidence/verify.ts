/**
 * Offline verification of a folder of outputs (an auditor's copy of the reports folder: no
 * mirror, no services): every manifest against its own digest, every file it names against its
 * SHA-256, and the chain of manifests per mirror. Each problem is one line.
 */
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { readRegularFile } from '../paths.js';
import type { KeyObject } from 'node:crypto';
import { fileDigest } from './canonical.js';
import { envelopeDisagrees, envelopeProblem } from './sign.js';
import { MANIFEST_FORMAT, manifestDigest, type SealedManifest } from './manifest.js';
import { type HeldCheckpoint, type LogVerification, verifyLog } from './verify-log.js';

export interface FolderVerification {
  manifests: number;
  files: number;
  /** Manifests whose signature by the public key holds (0 without one). */
  signed: number;
  /** One line each; none when everything holds. */
  problems: string[];
  /** What the checkpoints given say of the folder (with --checkpoint). */
  log?: Omit<LogVerification, 'problems'>;
  /** Each subject sealed more than once (a report written again, a close run again): its manifests in the chain's order. */
  revisions: { subject: string; manifests: string[] }[];
}

/** What a folder is held to besides itself: the checkpoints an auditor holds, and the witness's key. */
export interface LogHeld {
  checkpoints: readonly HeldCheckpoint[];
  witnessKey?: KeyObject;
}

/** The largest manifest or envelope read: a manifest is a few KB; /dev/zero is none. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** How deep a manifest's JSON may nest: a manifest nests five levels; a file nested 100,000 deep is no manifest. */
const MAX_DEPTH = 64;

/**
 * The file `name` of the folder as verify may read it: a regular file in the folder, or a link
 * to one that stays inside it. A FIFO, a device (a link to /dev/zero), a folder or a link out
 * of the folder is a problem named, never opened: verify neither hangs nor reads for ever nor
 * vouches for what lies elsewhere.
 */
function folderFile(dir: string, name: string): { path: string } | { problem: string } {
  const path = join(dir, name);
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return { problem: 'missing' };
  let real = path;
  if (stats.isSymbolicLink()) {
    try {
      real = realpathSync(path);
    } catch {
      return { problem: 'a link to nothing' };
    }
    const inside = relative(realpathSync(dir), real);
    if (inside.startsWith('..') || isAbsolute(inside)) return { problem: `a link out of the folder (to ${real})` };
  }
  const target = statSync(real);
  if (!target.isFile())
    return {
      problem: `not a regular file (${target.isFIFO() ? 'a FIFO' : target.isDirectory() ? 'a folder' : 'a device or socket'})`,
    };
  return { path: real };
}

/** JSON text whose arrays and objects nest at most `max` deep (strings skipped). */
function nestsWithin(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth > max) return false;
    } else if (c === ']' || c === '}') depth -= 1;
  }
  return true;
}

/** A JSON file of the folder, read within bounds: its value, or why it cannot be. */
function folderJson(dir: string, name: string): { value: unknown } | { problem: string } {
  const file = folderFile(dir, name);
  if ('problem' in file) return file;
  let text: string;
  try {
    text = readRegularFile(file.path, '', MAX_MANIFEST_BYTES);
  } catch (error) {
    return {
      problem: /larger than/.test((error as Error).message)
        ? `larger than ${MAX_MANIFEST_BYTES.toLocaleString('en-US')} bytes, which no manifest is`
        : 'cannot be read',
    };
  }
  if (!nestsWithin(text, MAX_DEPTH)) return { problem: `nested deeper than ${MAX_DEPTH} levels, which no manifest is` };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { problem: 'not JSON' };
  }
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
/** The folder's manifests that hold their own digest, by file name, oldest name first (no problem reported). */
export function folderManifests(dir: string): { name: string; manifest: SealedManifest }[] {
  const found: { name: string; manifest: SealedManifest }[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('-evidence.json'))
    .sort()) {
    const read = folderJson(dir, name);
    if ('value' in read && isManifest(read.value) && manifestDigest(read.value) === read.value.digest)
      found.push({ name, manifest: read.value });
  }
  return found;
}

export async function verifyFolder(dir: string, publicKey?: KeyObject, held?: LogHeld): Promise<FolderVerification> {
  const problems: string[] = [];
  let signed = 0;
  const manifests: { name: string; manifest: SealedManifest }[] = [];
  let files = 0;
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('-evidence.json'))
    .sort()) {
    const read = folderJson(dir, name);
    if ('problem' in read) {
      problems.push(`${name}: not a manifest (${read.problem})`);
      continue;
    }
    const manifest = read.value;
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
    } else {
      // Without the key, an envelope beside the manifest must still carry this manifest.
      const problem = envelopeBesideProblem(dir, name, manifest);
      if (problem) problems.push(problem);
    }
    for (const output of manifest.outputs) {
      files += 1;
      if (!/^[^/\\]+$/.test(output.file) || output.file === '..' || output.file === '.') {
        problems.push(`${name}: names a file outside its folder: ${JSON.stringify(output.file)}`);
        continue;
      }
      const file = folderFile(dir, output.file);
      if ('problem' in file) {
        problems.push(`${output.file}: ${file.problem} (sealed by ${name})`);
        continue;
      }
      const found = await fileDigest(file.path);
      if (found.sha256 !== output.sha256)
        problems.push(
          `${output.file}: changed since it was sealed by ${name} (SHA-256 ${found.sha256.slice(0, 12)}…, sealed ${output.sha256.slice(0, 12)}…)`,
        );
    }
  }
  problems.push(...chainProblems(manifests));
  problems.push(...unsealed(dir, manifests));
  const revisions = revisionsOf(manifests);
  if (held === undefined || held.checkpoints.length === 0)
    return { manifests: manifests.length, files, signed, problems, revisions };
  const { problems: logProblems, ...log } = verifyLog(manifests, held.checkpoints, {
    ...(publicKey ? { logKey: publicKey } : {}),
    ...(held.witnessKey ? { witnessKey: held.witnessKey } : {}),
  });
  return { manifests: manifests.length, files, signed, problems: [...problems, ...logProblems], log, revisions };
}

/** The subjects sealed more than once in the folder, each with its manifests in the chain's order. */
function revisionsOf(
  manifests: readonly { name: string; manifest: SealedManifest }[],
): FolderVerification['revisions'] {
  const bySubject = new Map<string, { name: string; manifest: SealedManifest }[]>();
  for (const entry of manifests)
    bySubject.set(`${entry.manifest.mirror} ${entry.manifest.subject}`, [
      ...(bySubject.get(`${entry.manifest.mirror} ${entry.manifest.subject}`) ?? []),
      entry,
    ]);
  return [...bySubject.values()]
    .filter((sealed) => sealed.length > 1)
    .map((sealed) => sealed.sort((a, b) => a.manifest.sequence - b.manifest.sequence))
    .sort((a, b) => a[0]!.manifest.sequence - b[0]!.manifest.sequence)
    .map((sealed) => ({ subject: sealed[0]!.manifest.subject, manifests: sealed.map((e) => e.name) }));
}

/**
 * The folder's `ledger-recon-…` outputs that no manifest in it seals, one line each: a file
 * added, or one whose manifest was removed, vouches for nothing and is named.
 */
function unsealed(dir: string, manifests: readonly { manifest: SealedManifest }[]): string[] {
  const sealed = new Set(manifests.flatMap(({ manifest }) => manifest.outputs.map((o) => o.file)));
  return readdirSync(dir)
    .filter(
      (name) =>
        name.startsWith('ledger-recon-') &&
        !/-evidence(\.dsse)?\.json$/.test(name) &&
        !/\.\d+\.partial$/.test(name) &&
        !sealed.has(name),
    )
    .sort()
    .map((name) => `${name}: not sealed by any manifest in the folder: added, or its manifest was removed`);
}

/** Whether the manifest `name` is signed by `publicKey`: why not, or null. */
function signatureProblem(dir: string, name: string, manifest: SealedManifest, publicKey: KeyObject): string | null {
  const envelopeName = name.replace(/-evidence\.json$/, '-evidence.dsse.json');
  const read = folderJson(dir, envelopeName);
  if ('problem' in read)
    return read.problem === 'missing'
      ? `${name}: not signed (no ${envelopeName} beside it)`
      : `${envelopeName}: ${read.problem}`;
  const problem = envelopeProblem(read.value, manifest, publicKey);
  return problem === null ? null : `${envelopeName}: ${problem}`;
}

/** An envelope beside manifest `name` that carries another manifest (checked without a key): why, or null. */
function envelopeBesideProblem(dir: string, name: string, manifest: SealedManifest): string | null {
  const envelopeName = name.replace(/-evidence\.json$/, '-evidence.dsse.json');
  const read = folderJson(dir, envelopeName);
  if ('problem' in read) return read.problem === 'missing' ? null : `${envelopeName}: ${read.problem}`;
  const problem = envelopeDisagrees(read.value, manifest);
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
