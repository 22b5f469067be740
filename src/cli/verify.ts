import { defaultLocations } from '../locations.js';
import { ConfigError } from '../errors.js';
import { readKey } from '../evidence/sign.js';
import { reporter, type Reporting } from './reporter.js';
import {
  heldOf,
  type Verified,
  verifyClose,
  verifyFolderAt,
  verifyNight,
  verifyProofAt,
  whatIfRun,
} from '../app/verified.js';

export interface VerifyOptions extends Reporting {
  dir?: string;
  /** Re-perform this past check run from the mirror (its ledger population) instead of checking a folder. */
  run?: number;
  /** With --run: other settings (`KEY=VALUE`), to see what would change. */
  set?: string[];
  /** Re-perform this period's close (`2026-10`, or `2026-10-01 to 2026-10-31`) from the mirror. */
  close?: string;
  db?: string;
  /** An Ed25519 public key (PEM): every manifest must be signed by it. */
  publicKey?: string;
  /** Checkpoints the auditor holds (files or a log's folder of them): the folder is held to them. */
  checkpoint?: string[];
  /** A witness's Ed25519 public key (PEM): the newest checkpoint must be cosigned by it. */
  witnessKey?: string;
  /** A card's proof (`ledger-recon prove`) to check against --checkpoint, with no mirror. */
  proof?: string;
  /** Whether --dir (or the folder argument) was given, not defaulted: --run and --close hold the mirror's seals to it. */
  dirNamed?: boolean;
}

/**
 * `ledger-recon verify` (src/app/verified.ts): a folder offline, a card's proof, or a past night or
 * close re-performed from the mirror (`--set`: under other settings). Its lines on stdout, one
 * line per problem on stderr; exit 1 when anything does not hold.
 */
export async function verify(options: VerifyOptions): Promise<boolean> {
  const verified = await verified_(options);
  const { say, record } = reporter(options);
  record(verified.record);
  for (const problem of verified.problems) process.stderr.write(`${problem}\n`);
  if (verified.lines.length > 0) say(`${verified.lines.join('\n')}\n`);
  if (!verified.identical) process.exitCode = 1;
  return verified.identical;
}

/** The re-performance or check the flags ask for. @throws ConfigError for flags that do not go together. */
async function verified_(options: VerifyOptions): Promise<Verified> {
  const db = options.db ?? defaultLocations().db;
  if (options.set !== undefined && options.set.length > 0) {
    if (options.run === undefined)
      throw new ConfigError('--set', '--set needs --run N: the night to re-perform under other settings');
    return whatIfRun(options.run, options.set, db);
  }
  const held = heldOf(options.checkpoint, options.witnessKey);
  const publicKey = options.publicKey !== undefined ? readKey(options.publicKey, '--public-key', 'public') : undefined;
  if (options.proof !== undefined) {
    if (!held)
      throw new ConfigError('--checkpoint', '--proof needs --checkpoint FILE: the checkpoint the proof is held to');
    return verifyProofAt(options.proof, held, publicKey);
  }
  if (options.run !== undefined || options.close !== undefined) {
    const to = {
      ...(options.dirNamed && options.dir !== undefined ? { dir: options.dir } : {}),
      ...(held ? { checkpoints: held.checkpoints } : {}),
      ...(publicKey ? { publicKey } : {}),
    };
    return options.run !== undefined
      ? verifyNight(options.run, { db, held: to })
      : verifyClose(options.close!, { db, held: to });
  }
  return verifyFolderAt(options.dir ?? defaultLocations().reports, publicKey, held);
}
