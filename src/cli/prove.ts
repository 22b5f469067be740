/**
 * `ledger-recon prove --run N --card ID` (src/app/prove.ts): a card's proof as one JSON object,
 * on standard output or in the file `--out` names.
 */
import { resolve } from 'node:path';
import { proofAt } from '../app/prove.js';
import { defaultLocations } from '../locations.js';
import { outputTarget, writeAtomically } from '../paths.js';
import type { declareProve, FlagsOf } from './declarations.js';

export async function prove(options: FlagsOf<typeof declareProve>): Promise<void> {
  // Refused before the mirror opens: a device or a FIFO named by mistake is never replaced.
  const target = outputTarget('--out', options.out);
  const proof = await proofAt(options.db ?? defaultLocations().db, options);
  const text = `${JSON.stringify(proof, null, 2)}\n`;
  if (target.kind === 'stdout') process.stdout.write(text);
  else {
    writeAtomically(target.path, text);
    process.stderr.write(
      `wrote ${resolve(target.path)}: card ${options.card} in check run ${options.run}, proven in the log at ${proof.log.size} seals\n`,
    );
  }
}
