/**
 * A folder of outputs held to the checkpoints an auditor holds (log.ts): every manifest of the
 * log up to a checkpoint's size must be in the folder (a dropped night is named by its place),
 * their tree must give the checkpoint's root (each manifest's inclusion proof checked), and of
 * two checkpoints the larger must extend the smaller (a consistency proof). With the log's
 * public key each checkpoint must be signed by it; with a witness's, cosigned by it.
 */
import type { KeyObject } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { readRegularFile } from '../paths.js';
import { type CheckpointNote, cosignedBy, MAX_CHECKPOINT_BYTES, parseCheckpoint, signedByLog } from './checkpoint.js';
import { logName, manifestLeaf, publishedSizes } from './log.js';
import type { SealedManifest } from './manifest.js';
import { consistencyProof, inclusionProof, treeHash, verifyConsistency, verifyInclusion } from './tlog.js';

/** A checkpoint as given: the file it came from and what it says. */
export interface HeldCheckpoint {
  file: string;
  note: CheckpointNote;
}

/** What the checkpoints say of the folder: the manifests proven in the newest, and the problems. */
export interface LogVerification {
  /** The newest checkpoint's size, and how many of the folder's manifests were proven in it. */
  size: number;
  proven: number;
  /** Checkpoints held to each other (consistency proofs that hold). */
  consistent: number;
  problems: string[];
}

/**
 * Reads the checkpoints at `path`: a checkpoint file, or a folder of them (a log's folder
 * under `--checkpoints`, every `….checkpoint` in it, or its witness's `….cosigned` note where
 * there is one and `cosigned` allows), named in a problem as `flag` gives it. @returns them,
 * smallest first, or why not.
 */
export function readCheckpoints(
  path: string,
  cosigned = true,
  flag = '--checkpoint',
): HeldCheckpoint[] | { problem: string } {
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => name.endsWith('.checkpoint'))
          .map((name) => {
            const witnessed = join(path, name.replace(/\.checkpoint$/, '.cosigned'));
            return cosigned && existsSync(witnessed) ? witnessed : join(path, name);
          })
      : [path];
  } catch {
    return { problem: `${flag} ${path}: not found: give a checkpoint file or the log's folder of them` };
  }
  if (files.length === 0) {
    // The checkpoints' place (--checkpoints) given where one of its logs' folders belongs.
    const logs = readdirSync(path).filter((name) => publishedSizes(join(path, name)).length > 0);
    return {
      problem: `${flag} ${path}: a folder without any ….checkpoint file${logs.length > 0 ? `: it holds the folders of ${logs.length === 1 ? 'a log' : 'logs'}; give ${logs.map((name) => join(path, name)).join(' or ')}` : ''}`,
    };
  }
  const held: HeldCheckpoint[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readRegularFile(file, flag, MAX_CHECKPOINT_BYTES);
    } catch (error) {
      return { problem: (error as Error).message };
    }
    const note = parseCheckpoint(text);
    if ('problem' in note) return { problem: `${flag} ${file}: not a checkpoint: ${note.problem}` };
    held.push({ file, note });
  }
  return held.sort((a, b) => a.note.size - b.note.size);
}

/**
 * The manifests of the log named by `origin`, by place (index 0 is place 1), as far as the
 * folder holds them: its first seal is the one whose digest names the log; each next place is
 * the manifest that follows the one before, or the only one of that place.
 */
export function logManifests(
  manifests: readonly { name: string; manifest: SealedManifest }[],
  origin: string,
  size: number,
): ({ name: string; manifest: SealedManifest } | undefined)[] {
  const name = origin.split('/').at(-1) ?? '';
  const byPlace = new Map<number, { name: string; manifest: SealedManifest }[]>();
  for (const entry of manifests)
    byPlace.set(entry.manifest.sequence, [...(byPlace.get(entry.manifest.sequence) ?? []), entry]);
  const chosen: ({ name: string; manifest: SealedManifest } | undefined)[] = [];
  for (let place = 1; place <= size; place += 1) {
    const candidates = byPlace.get(place) ?? [];
    const before = chosen[place - 2];
    const next =
      place === 1
        ? candidates.find((c) => logName(c.manifest.digest) === name)
        : (candidates.find((c) => before !== undefined && c.manifest.previous === before.manifest.digest) ??
          (candidates.length === 1 ? candidates[0] : undefined));
    chosen.push(next);
  }
  return chosen;
}

/** Whether a checkpoint holds the keys it must: the log's signature, a witness's cosignature. Why not, or null. */
function keyProblem(held: HeldCheckpoint, logKey?: KeyObject, witnessKey?: KeyObject): string | null {
  const file = basename(held.file);
  if (logKey && !signedByLog(held.note, logKey))
    return `checkpoint ${file}: not signed by the log's key (the --public-key): it is not the log's, or was changed`;
  if (witnessKey && !cosignedBy(held.note, witnessKey))
    return `checkpoint ${file}: not cosigned by the witness's key (--witness-key): the witness has not vouched for it`;
  return null;
}

/**
 * Holds the folder's manifests to the checkpoints `held` (smallest first; the newest is the one
 * the auditor trusts): one problem line each.
 */
export function verifyLog(
  manifests: readonly { name: string; manifest: SealedManifest }[],
  held: readonly HeldCheckpoint[],
  keys: { logKey?: KeyObject; witnessKey?: KeyObject } = {},
): LogVerification {
  const problems: string[] = [];
  const newest = held.at(-1)!;
  for (const checkpoint of held) {
    const problem = keyProblem(
      checkpoint,
      keys.logKey,
      keys.witnessKey && checkpoint === newest ? keys.witnessKey : undefined,
    );
    if (problem) problems.push(problem);
    if (checkpoint.note.origin !== newest.note.origin)
      problems.push(
        `checkpoint ${basename(checkpoint.file)}: of another log (${checkpoint.note.origin}) than ${basename(newest.file)} (${newest.note.origin})`,
      );
  }
  const { origin, size } = newest.note;
  const log = logManifests(manifests, origin, size);
  const missing = log.flatMap((entry, i) => (entry === undefined ? [i + 1] : []));
  for (const place of missing)
    problems.push(
      `place ${place} of the log (${origin}, ${size} seals by checkpoint ${basename(newest.file)}) is not in the folder: ${place === size ? 'the newest seal' : 'a seal'}'s manifest was removed or never copied`,
    );
  if (missing.length > 0) return { size, proven: 0, consistent: 0, problems };
  const entries = log as { name: string; manifest: SealedManifest }[];
  const leaves = entries.map((entry) => manifestLeaf(entry.manifest));
  // Each checkpoint, smallest first: the folder's first leaves give its root, and it extends the one before.
  let consistent = 0;
  let before: HeldCheckpoint | undefined;
  for (const checkpoint of held) {
    const { size: at, root } = checkpoint.note;
    if (!treeHash(leaves.slice(0, at)).equals(root)) {
      problems.push(
        `checkpoint ${basename(checkpoint.file)} (${at} seals): the folder's ${at === size ? '' : `first ${at} `}manifests do not give its root: ${suspect(entries, before?.note.size ?? 0, at)}`,
      );
      return { size, proven: 0, consistent, problems };
    }
    if (before) {
      const from = before.note.size;
      if (!verifyConsistency(from, at, consistencyProof(leaves.slice(0, at), from), before.note.root, root)) {
        problems.push(`checkpoint ${basename(checkpoint.file)} does not extend ${basename(before.file)}`);
        return { size, proven: 0, consistent, problems };
      }
      consistent += 1;
    }
    before = checkpoint;
  }
  let proven = 0;
  leaves.forEach((leaf, index) => {
    if (verifyInclusion(leaf, index, size, inclusionProof(leaves, index), newest.note.root)) proven += 1;
    else
      problems.push(
        `${entries[index]!.name}: its inclusion proof in checkpoint ${basename(newest.file)} does not hold`,
      );
  });
  return { size, proven, consistent, problems };
}

/**
 * Which of places `from`+1 to `to` is not the manifest the log holds, as far as the folder can
 * tell (the first `from` give the checkpoint before): the first whose successor does not name
 * it; else the one place when there is one; else the span, to be narrowed by more checkpoints.
 */
function suspect(entries: readonly { name: string; manifest: SealedManifest }[], from: number, to: number): string {
  for (let i = from; i + 1 < to; i += 1)
    if (entries[i + 1]!.manifest.previous !== entries[i]!.manifest.digest)
      return `${entries[i]!.name} (place ${i + 1}) was sealed again or replaced: the manifest after it names another digest for it`;
  if (to - from === 1)
    return `${entries[to - 1]!.name} (place ${to}) was sealed again or replaced after this checkpoint`;
  return `one of places ${from + 1} to ${to} was sealed again or replaced, and the chain after it made again: give the log's folder of checkpoints (--checkpoint DIR) to name it`;
}
