/**
 * The mirror's copy of its seals held to the log (#62, point 3): `verify --run`, `verify
 * --close` and `doctor` recompute every stored manifest's digest and its place in the chain,
 * and, given a folder of outputs, checkpoints or the log's public key, hold the mirror's copy to
 * them before re-performing. An insider who rewrites the mirror's past and its manifests to
 * match is named here, in one line per difference, however well the re-performance agrees.
 */
import type { KeyObject } from 'node:crypto';
import type { Mirror } from '../db/mirror.js';
import { signedByLog } from './checkpoint.js';
import { join } from 'node:path';
import { firstDisagreeing, logName, logOrigin, publishedSizes } from './log.js';
import { manifestDigest, type SealedManifest } from './manifest.js';
import { EvidenceStore } from './store.js';
import { entryHash, treeHash } from './tlog.js';
import { folderManifests } from './verify.js';
import { type HeldCheckpoint, logManifests } from './verify-log.js';

/** What the mirror's seals are held to besides themselves. */
export interface SealsHeldTo {
  /** A folder of outputs (the auditor's copy): its manifests of this mirror's log. */
  dir?: string;
  checkpoints?: readonly HeldCheckpoint[];
  /** The log's public key: each checkpoint must be signed by it. */
  publicKey?: KeyObject;
}

/**
 * The mirror's seals as stored: how many, what does not hold (one line per problem), and how
 * many of them the folder given holds to compare.
 */
export async function mirrorSealProblems(
  mirror: Mirror,
  to: SealsHeldTo = {},
): Promise<{ seals: number; problems: string[]; inFolder: number }> {
  const rows = await new EvidenceStore(mirror).all();
  const problems: string[] = [];
  const seal = (row: { sequence: number; subject: string }) => `the mirror's seal ${row.sequence} (${row.subject})`;
  rows.forEach((row, i) => {
    let manifest: SealedManifest | undefined;
    try {
      manifest = JSON.parse(row.manifestJson) as SealedManifest;
    } catch {
      manifest = undefined;
    }
    if (row.sequence !== i + 1)
      problems.push(`${seal(row)} is at place ${i + 1} of its chain: a seal before it was taken out`);
    if (!manifest || manifestDigest(manifest) !== manifest.digest || manifest.digest !== row.digest)
      problems.push(`${seal(row)} was changed: its manifest no longer gives its digest`);
    else if (i > 0 && manifest.previous !== rows[i - 1]!.digest)
      problems.push(
        `${seal(row)} does not follow seal ${rows[i - 1]!.sequence}: a seal before it was changed or replaced`,
      );
  });
  if (rows.length === 0) return { seals: 0, problems, inFolder: 0 };
  let inFolder = 0;
  const origin = logOrigin(rows[0]!.digest);
  if (to.dir !== undefined) {
    const folder = folderManifests(to.dir);
    const size = Math.max(0, ...folder.map((m) => m.manifest.sequence));
    logManifests(folder, origin, size).forEach((entry, i) => {
      const row = rows[i];
      if (entry && row) inFolder += 1;
      if (entry && row && entry.manifest.digest !== row.digest)
        problems.push(
          `${seal(row)} is not the one sealed in ${entry.name}: the mirror's copy was changed since, or the folder's`,
        );
    });
  }
  const leaves = rows.map((row) => entryHash(row.manifestJson));
  for (const { file, note } of to.checkpoints ?? []) {
    if (to.publicKey && !signedByLog(note, to.publicKey)) {
      problems.push(`checkpoint ${file}: not signed by the log's key (--public-key)`);
      continue;
    }
    if (note.origin !== origin)
      problems.push(`checkpoint ${file}: of another log (${note.origin}) than the mirror's (${origin})`);
    else if (note.size > rows.length)
      problems.push(
        `checkpoint ${file} logs ${note.size} seals and the mirror holds ${rows.length}: seals were taken out of the mirror`,
      );
    else if (!treeHash(leaves.slice(0, note.size)).equals(note.root))
      problems.push(
        `the mirror's first ${note.size} seals do not give the root of checkpoint ${file}: the mirror's seals were rewritten after it was published`,
      );
  }
  return { seals: rows.length, problems, inFolder };
}

/**
 * The mirror's log against what was published at `place` (`--checkpoints`): the newest
 * checkpoint there must be the root of the mirror's first seals. @returns a sentence, and
 * whether it holds.
 */
export async function publishedAgrees(mirror: Mirror, place: string): Promise<{ ok: boolean; text: string }> {
  const rows = await new EvidenceStore(mirror).all();
  if (rows.length === 0) return { ok: true, text: `${place}: nothing sealed yet; the first seal publishes there` };
  const folder = join(place, logName(rows[0]!.digest));
  const sizes = publishedSizes(folder);
  if (sizes.length === 0)
    return { ok: true, text: `${folder}: no checkpoint yet; the next seal publishes the log's ${rows.length}` };
  const leaves = rows.map((row) => entryHash(row.manifestJson));
  const disagreeing = firstDisagreeing(folder, leaves);
  if (disagreeing !== undefined)
    return {
      ok: false,
      text: `${folder}: its checkpoint of ${disagreeing} seals is not the mirror's log: the mirror's seals were rewritten or taken out since it was published: hold them to it with \`ledger-recon verify --run N --checkpoint ${folder}\``,
    };
  const note = { size: sizes.at(-1)! };
  return {
    ok: true,
    text: `${folder}: the newest checkpoint (${note.size} seals) is the mirror's log${note.size < rows.length ? `; ${rows.length - note.size} seals since, published by the next seal` : ''}`,
  };
}
