/**
 * `ledger-recon prove --run N --card ID`: the proof that one card, as the night sealed it, is in
 * that night's population and the night's manifest in the log (evidence/prove.ts), as one JSON
 * object: on standard output, or in the file `--out` names.
 */
import { resolve } from 'node:path';
import { openForReading } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { NotReperformable } from '../evidence/reperform.js';
import { proveCard } from '../evidence/prove.js';
import { readCheckpoints } from '../evidence/verify-log.js';
import { ConfigError } from '../errors.js';
import { defaultLocations } from '../locations.js';
import { outputTarget, writeAtomically } from '../paths.js';

export interface ProveOptions {
  run: number;
  card: string;
  /** A checkpoint the auditor holds: the proof is of the log at its size. */
  checkpoint?: string;
  out?: string;
  db?: string;
}

export async function prove(options: ProveOptions): Promise<void> {
  const target = outputTarget('--out', options.out ?? '-');
  let logSize: number | undefined;
  if (options.checkpoint !== undefined) {
    const read = readCheckpoints(options.checkpoint);
    if ('problem' in read) throw new ConfigError('--checkpoint', read.problem);
    logSize = read.at(-1)!.note.size;
  }
  const mirror = await openForReading(options.db ?? defaultLocations().db, 'run', 'current');
  try {
    const proof = await proveCard(mirror, options.run, options.card, logSize).catch((error: unknown) => {
      throw error instanceof NotReperformable ? new MirrorError(error.message) : error;
    });
    const text = `${JSON.stringify(proof, null, 2)}\n`;
    if (target.kind === 'stdout') process.stdout.write(text);
    else {
      writeAtomically(target.path, text);
      process.stderr.write(
        `wrote ${resolve(target.path)}: card ${options.card} in check run ${options.run}, proven in the log at ${proof.log.size} seals\n`,
      );
    }
  } finally {
    await mirror.close();
  }
}
