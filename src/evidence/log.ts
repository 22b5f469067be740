/**
 * The mirror's log of seals (docs/evidence.md): every manifest the mirror seals (a night, a
 * report written again, a close) is a leaf of one RFC 6962 tree, in its chain's order; after
 * each seal a checkpoint of the tree (C2SP tlog-checkpoint, signed with the evidence key when
 * one is given) goes to a place outside the mirror (`--checkpoints DIR`), beside the
 * consistency proof from the checkpoint before it. What is published there cannot be taken back
 * by whoever writes the mirror or the reports folder: a later rewrite no longer gives the root.
 *
 * The place holds a folder per log (named by its first seal) of files written once each:
 * `00000031.checkpoint` and `00000031.consistency.json`, the tree's size in the name.
 */
import type { KeyObject } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Mirror } from '../db/mirror.js';
import { FileSystemError, MirrorError } from '../errors.js';
import { fileSystemError, writeNewSynced } from '../paths.js';
import { sendText, shownUrl } from '../send.js';
import { canonicalJson } from './canonical.js';
import { type Checkpoint, checkpointNote, parseCheckpoint } from './checkpoint.js';
import type { SealedManifest } from './manifest.js';
import { EvidenceStore } from './store.js';
import { consistencyProof, entryHash, treeHash } from './tlog.js';

/** A log's origin: a schema-less name unique to the mirror's chain (its first seal's digest). */
export function logOrigin(firstDigest: string): string {
  return `ledger-recon.local/log/${logName(firstDigest)}`;
}

/** The log's short name, its folder under the checkpoints' place: the first seal's digest's first 16 hex digits. */
export function logName(firstDigest: string): string {
  return firstDigest.slice(0, 16);
}

/** A manifest's leaf: the hash of its canonical JSON, as sealed (its digest included). */
export function manifestLeaf(manifest: SealedManifest): Buffer {
  return entryHash(canonicalJson(manifest));
}

/** The mirror's log as its stored manifests give it: its origin and its leaves in order; undefined before a first seal. */
export async function mirrorLog(mirror: Mirror): Promise<{ origin: string; leaves: Buffer[] } | undefined> {
  const stored = await new EvidenceStore(mirror).all();
  if (stored.length === 0) return undefined;
  return {
    origin: logOrigin(stored[0]!.digest),
    leaves: stored.map((row) => entryHash(row.manifestJson)),
  };
}

/** A checkpoint file's name: the tree's size, zero-padded so the folder lists in order. */
export function checkpointFile(size: number): string {
  return `${String(size).padStart(8, '0')}.checkpoint`;
}

/** The consistency proof published beside a checkpoint: from the checkpoint before it in the folder. */
export interface PublishedConsistency {
  origin: string;
  from: number;
  to: number;
  /** The proof's hashes, hex. */
  proof: string[];
}

/** The sizes of the checkpoints a log's folder holds, ascending. */
export function publishedSizes(folder: string): number[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .map((name) => /^(\d{8,})\.checkpoint$/.exec(name)?.[1])
    .filter((size): size is string => size !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/**
 * The size of the first checkpoint published in a log's `folder` that the mirror's `leaves` do
 * not give (its root is not theirs, it logs more than they are, or it is no checkpoint), or
 * undefined when each is theirs.
 */
export function firstDisagreeing(folder: string, leaves: readonly Buffer[]): number | undefined {
  for (const size of publishedSizes(folder)) {
    let note: ReturnType<typeof parseCheckpoint>;
    try {
      note = parseCheckpoint(readFileSync(join(folder, checkpointFile(size)), 'utf8'));
    } catch {
      return size;
    }
    if ('problem' in note || note.size > leaves.length || !treeHash(leaves.slice(0, note.size)).equals(note.root))
      return size;
  }
  return undefined;
}

/**
 * Writes `text` to `path` once: a file there already must say the same (`same` compares), else
 * it is never replaced and the caller is told. The file is synced before it counts.
 */
function writeOnce(path: string, text: string, same: (before: string) => boolean): 'written' | 'there' | 'other' {
  try {
    writeNewSynced(path, text);
    return 'written';
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    return same(readFileSync(path, 'utf8')) ? 'there' : 'other';
  }
}

/**
 * Publishes the mirror's log as it stands: its checkpoint, and the consistency proof from the
 * newest checkpoint already published, into `place` (a folder, or an endpoint that receives
 * them). @returns the checkpoint's absolute path, or its URL as a line shows it.
 * @throws FileSystemError naming --checkpoints when the place cannot be written, or when it
 * holds another checkpoint of the same size: the log published there is not the mirror's now.
 */
export async function publishCheckpoint(mirror: Mirror, place: string, key?: KeyObject): Promise<string | undefined> {
  const log = await mirrorLog(mirror);
  if (!log) return undefined;
  if (isEndpoint(place)) return sendCheckpoint(log, place, key);
  const name = log.origin.split('/').at(-1)!;
  const folder = join(place, name);
  const size = log.leaves.length;
  const checkpoint: Checkpoint = { origin: log.origin, size, root: treeHash(log.leaves) };
  // What was published stays the log's start: a mirror whose seals no longer give it publishes nothing more.
  const disagreeing = firstDisagreeing(folder, log.leaves);
  if (disagreeing !== undefined)
    throw new MirrorError(
      `the mirror's seals are not the log published in ${folder}: they no longer give its checkpoint of ${disagreeing} seals (seals changed or taken out since): find which with \`ledger-recon verify --run N --dir REPORTS --checkpoint ${folder}\`, and restore the mirror from a backup`,
    );
  try {
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    const before = publishedSizes(folder)
      .filter((s) => s < size)
      .at(-1);
    if (before !== undefined) {
      const consistency: PublishedConsistency = {
        origin: log.origin,
        from: before,
        to: size,
        proof: consistencyProof(log.leaves, before).map((h) => h.toString('hex')),
      };
      writeOnce(
        join(folder, `${String(size).padStart(8, '0')}.consistency.json`),
        `${canonicalJson(consistency)}\n`,
        () => true,
      );
    }
    const path = join(folder, checkpointFile(size));
    const written = writeOnce(path, checkpointNote(checkpoint, key), (text) => {
      const there = parseCheckpoint(text);
      return !('problem' in there) && there.origin === checkpoint.origin && there.root.equals(checkpoint.root);
    });
    if (written === 'other')
      throw new FileSystemError(
        `--checkpoints ${path}: holds another checkpoint of this log's size ${size}: the mirror's seals are not the ones published there (a rewritten mirror, or a copy of it sealing on its own): run \`ledger-recon verify --dir REPORTS --checkpoint ${path}\` to see which`,
      );
    return resolve(path);
  } catch (error) {
    if (error instanceof FileSystemError) throw error;
    throw fileSystemError('--checkpoints', place, error);
  }
}

/** Whether the checkpoints' place is an endpoint that receives them (`https://…`), not a folder. */
export function isEndpoint(place: string): boolean {
  return /^https?:\/\//i.test(place);
}

/**
 * Sends the log's checkpoint to an endpoint that receives it, as the folder would hold it: PUT
 * `<url>/<log>/00000031.consistency.json` (the proof from the log of one seal fewer), then PUT
 * `<url>/<log>/00000031.checkpoint` (a write-once bucket's API, a receiver of the auditor's).
 * @returns the checkpoint's URL as a line shows it.
 * @throws FileSystemError naming --checkpoints (without user, password or query) and the cause.
 */
async function sendCheckpoint(
  log: { origin: string; leaves: Buffer[] },
  place: string,
  key?: KeyObject,
): Promise<string> {
  const size = log.leaves.length;
  const padded = String(size).padStart(8, '0');
  const at = (file: string) => {
    const url = new URL(place);
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${log.origin.split('/').at(-1)}/${file}`;
    return url.toString();
  };
  try {
    if (size > 1) {
      const consistency: PublishedConsistency = {
        origin: log.origin,
        from: size - 1,
        to: size,
        proof: consistencyProof(log.leaves, size - 1).map((h) => h.toString('hex')),
      };
      await sendText(at(`${padded}.consistency.json`), 'PUT', 'application/json', `${canonicalJson(consistency)}\n`);
    }
    const checkpoint = at(checkpointFile(size));
    await sendText(
      checkpoint,
      'PUT',
      'text/plain; charset=utf-8',
      checkpointNote({ origin: log.origin, size, root: treeHash(log.leaves) }, key),
    );
    return shownUrl(new URL(checkpoint));
  } catch (error) {
    throw new FileSystemError(
      `--checkpoints ${(error as Error).message}: the checkpoint of ${size} seals was not published (the seal stands; the next seal publishes the log whole): check the endpoint and --checkpoints`,
    );
  }
}
