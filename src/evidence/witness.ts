/**
 * The witness (`ledger-recon witness`), run by someone other than the job (the auditor, a
 * second team): it reads the newest checkpoint the job published into a log's folder, checks
 * with the consistency proofs published beside each checkpoint that the log only grew since the
 * checkpoint it cosigned last (kept in its own state file, where the job cannot write), and
 * cosigns it (C2SP tlog-cosignature) as `0000000N.cosigned` beside it. A log rewritten since
 * (a night re-sealed, a seal dropped, a copy of the mirror sealing on its own) gets no
 * cosignature: the witness says where it stops agreeing.
 */
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { readRegularFile, writeAtomically, writeNewSynced } from '../paths.js';
import { type CheckpointNote, cosign, cosignedBy, parseCheckpoint, signedByLog } from './checkpoint.js';
import type { PublishedConsistency } from './log.js';
import { verifyConsistency } from './tlog.js';
import { readCheckpoints } from './verify-log.js';

/** What a witness remembers of a log: the checkpoint it cosigned last. */
export interface WitnessState {
  origin: string;
  size: number;
  /** Its root, hex. */
  root: string;
}

export interface WitnessSettings {
  /** The log's folder under the job's `--checkpoints` place. */
  logFolder: string;
  /** The witness's Ed25519 private key and its name (a schema-less URL: `auditor.example/witness`). */
  key: KeyObject;
  name: string;
  /** Where the witness keeps what it cosigned last. */
  statePath: string;
  /** The log's public key: every checkpoint must be signed by it. */
  logKey?: KeyObject;
  nowSeconds: number;
}

/** What the witness did: the checkpoint cosigned (its size and the file written), and since which size it checked. */
export interface Witnessed {
  origin: string;
  size: number;
  since: number | null;
  cosigned: string;
}

/** A checkpoint the witness will not cosign: the reason in one line. */
export class WitnessRefusal extends Error {}

/** The cosigned note's file beside a checkpoint: `00000031.cosigned`. */
export function cosignedPath(checkpointPath: string): string {
  return checkpointPath.replace(/\.checkpoint$/, '.cosigned');
}

function readState(path: string): WitnessState | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    throw new WitnessRefusal(`--state ${path}: cannot be read (${(error as { code?: string }).code ?? 'error'})`);
  }
  let state: Partial<WitnessState> | null = null;
  try {
    state = JSON.parse(text) as Partial<WitnessState>;
  } catch {
    state = null;
  }
  if (!state || typeof state.origin !== 'string' || !Number.isInteger(state.size) || typeof state.root !== 'string')
    throw new WitnessRefusal(
      `--state ${path}: not a witness's state file (what it cosigned last): give the one it wrote, or a new path to start again from the newest checkpoint`,
    );
  return state as WitnessState;
}

function publishedProof(folder: string, size: number): PublishedConsistency | undefined {
  try {
    return JSON.parse(
      readRegularFile(join(folder, `${String(size).padStart(8, '0')}.consistency.json`), '--log', 1024 * 1024),
    ) as PublishedConsistency;
  } catch {
    return undefined;
  }
}

/**
 * Checks the newest checkpoint of `settings.logFolder` against what the witness cosigned last
 * and cosigns it. @throws WitnessRefusal naming why not.
 */
export function witness(settings: WitnessSettings): Witnessed {
  const read = readCheckpoints(settings.logFolder, false, 'the log folder');
  // No log folder to read is the witness's mistake, not the log's: exit 2, not a refusal.
  if ('problem' in read) throw new ConfigError('log-folder', read.problem);
  const checkpoints = read;
  const newest = checkpoints.at(-1);
  if (!newest) throw new WitnessRefusal(`${settings.logFolder}: holds no ….checkpoint`);
  if (settings.logKey)
    for (const c of checkpoints)
      if (!signedByLog(c.note, settings.logKey))
        throw new WitnessRefusal(
          `${c.file}: not signed by the log's key (--log-key): it is not the log's, or was changed`,
        );
  const state = readState(settings.statePath);
  if (state && state.origin !== newest.note.origin)
    throw new WitnessRefusal(
      `${newest.file}: of the log ${newest.note.origin}, and --state ${settings.statePath} is of ${state.origin}: give each log a state file of its own`,
    );
  if (state) holdsSince(state, checkpoints, settings.logFolder);
  const path = cosignedPath(newest.file);
  const note = cosign(newest.note, settings.name, settings.key, settings.nowSeconds);
  try {
    writeNewSynced(path, note);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    const there = parseCheckpoint(readFileSync(path, 'utf8'));
    if ('problem' in there || !cosignedBy(there as CheckpointNote, settings.key))
      throw new WitnessRefusal(`${path}: there already, and not with this witness's cosignature: remove it or keep it`);
  }
  writeAtomically(
    settings.statePath,
    `${JSON.stringify({ origin: newest.note.origin, size: newest.note.size, root: newest.note.root.toString('hex') })}\n`,
  );
  return { origin: newest.note.origin, size: newest.note.size, since: state?.size ?? null, cosigned: path };
}

/**
 * That the log's checkpoints from the one the witness cosigned last to the newest only grew: the
 * checkpoint of that size says the same root, and each later one's published consistency proof
 * holds from the one before. @throws WitnessRefusal naming the first that does not.
 */
function holdsSince(
  state: WitnessState,
  checkpoints: readonly { file: string; note: CheckpointNote }[],
  folder: string,
): void {
  const newest = checkpoints.at(-1)!;
  if (newest.note.size < state.size)
    throw new WitnessRefusal(
      `${newest.file}: the log has ${newest.note.size} seals, fewer than the ${state.size} this witness cosigned: seals were taken out of it`,
    );
  let size = state.size;
  let root: Buffer = Buffer.from(state.root, 'hex');
  const same = checkpoints.find((c) => c.note.size === size);
  if (same && !same.note.root.equals(root))
    throw new WitnessRefusal(
      `${same.file}: not the checkpoint of ${size} seals this witness cosigned (another root): the log was rewritten`,
    );
  for (const c of checkpoints.filter((c) => c.note.size > state.size)) {
    const proof = publishedProof(folder, c.note.size);
    if (!proof || proof.from !== size || proof.to !== c.note.size)
      throw new WitnessRefusal(
        `${c.file}: no consistency proof from ${size} seals beside it (…consistency.json): the witness cannot tell the log only grew`,
      );
    const hashes = proof.proof.map((h) => Buffer.from(h, 'hex'));
    if (!verifyConsistency(size, c.note.size, hashes, root, c.note.root))
      throw new WitnessRefusal(
        `${c.file}: does not extend the checkpoint of ${size} seals${size === state.size ? ' this witness cosigned' : ''}: the log was rewritten`,
      );
    size = c.note.size;
    root = c.note.root;
  }
}
