/**
 * A card's proof, the job of `ledger-recon prove`: that one card, as a night sealed it, is in
 * that night's population and the night's manifest in the log (evidence/prove.ts), for an
 * auditor's sample, checked offline with `verify --proof`.
 */
import { openForReading } from '../db/mirror.js';
import { ConfigError, MirrorError } from '../errors.js';
import { type CardProof, proveCard } from '../evidence/prove.js';
import { NotReperformable } from '../evidence/reperform.js';
import { readCheckpoints } from '../evidence/verify-log.js';

/** Whose proof, and of which log. */
export interface ProofSettings {
  /** The check run (the night) that sealed the card. */
  run: number;
  card: string;
  /** A checkpoint the auditor holds (a file, or a log's folder): the proof is of the log at its size; the whole log otherwise. */
  checkpoint?: string | undefined;
}

/**
 * The proof of `settings.card` in check run `settings.run` of the mirror at `db`.
 * @throws ConfigError for a checkpoint that cannot be read; MirrorError when the night cannot prove it.
 */
export async function proofAt(db: string, settings: ProofSettings): Promise<CardProof> {
  let logSize: number | undefined;
  if (settings.checkpoint !== undefined) {
    const read = readCheckpoints(settings.checkpoint);
    if ('problem' in read) throw new ConfigError('--checkpoint', read.problem);
    logSize = read.at(-1)!.note.size;
  }
  const mirror = await openForReading(db, 'run', 'current');
  try {
    return await proveCard(mirror, settings.run, settings.card, logSize).catch((error: unknown) => {
      throw error instanceof NotReperformable ? new MirrorError(error.message) : error;
    });
  } finally {
    await mirror.close();
  }
}
