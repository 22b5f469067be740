import { defaultLocations } from '../locations.js';
import { statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { type LogHeld, verifyFolder } from '../evidence/verify.js';
import { readCheckpoints } from '../evidence/verify-log.js';
import { keyId, readKey } from '../evidence/sign.js';
import { reporter, type Reporting } from './reporter.js';
import { reperform, reperformClose, whatIfRun } from './reperform.js';

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
  /** Whether --dir (or the folder argument) was given, not defaulted: --run and --close hold the mirror's seals to it. */
  dirNamed?: boolean;
}

/** The checkpoints given (`--checkpoint`, repeatable), smallest first, and the witness's key. @throws ConfigError naming the flag. */
function heldOf(options: VerifyOptions): LogHeld | undefined {
  const witnessKey =
    options.witnessKey !== undefined ? readKey(options.witnessKey, '--witness-key', 'public') : undefined;
  if (!options.checkpoint?.length) {
    if (witnessKey)
      throw new ConfigError('--witness-key', '--witness-key needs --checkpoint FILE: the checkpoint it cosigned');
    return undefined;
  }
  const checkpoints = options.checkpoint.flatMap((path) => {
    const read = readCheckpoints(path);
    if ('problem' in read) throw new ConfigError('--checkpoint', read.problem);
    return read;
  });
  checkpoints.sort((a, b) => a.note.size - b.note.size);
  return { checkpoints, ...(witnessKey ? { witnessKey } : {}) };
}

/**
 * `ledger-recon verify [--dir FOLDER]`: offline, with no mirror and no services, checks every
 * evidence manifest in the folder, the files each names and the chain between them. One line per
 * problem, then one line of result; exit 1 when anything does not hold.
 */
export async function verify(options: VerifyOptions): Promise<boolean> {
  if (options.set !== undefined && options.set.length > 0) {
    if (options.run === undefined)
      throw new ConfigError('--set', '--set needs --run N: the night to re-perform under other settings');
    return whatIfRun(options.run, options.set, options);
  }
  if (options.run !== undefined || options.close !== undefined) {
    const held = heldOf(options);
    const publicKey =
      options.publicKey !== undefined ? readKey(options.publicKey, '--public-key', 'public') : undefined;
    const to = {
      ...(options.dirNamed && options.dir !== undefined ? { dir: options.dir } : {}),
      ...(held ? { checkpoints: held.checkpoints } : {}),
      ...(publicKey ? { publicKey } : {}),
    };
    return options.run !== undefined
      ? reperform(options.run, { ...options, held: to })
      : reperformClose(options.close!, { ...options, held: to });
  }
  const { say, record } = reporter(options);
  const dir = options.dir ?? defaultLocations().reports;
  let folder = false;
  try {
    folder = statSync(dir).isDirectory();
  } catch {
    folder = false;
  }
  if (!folder)
    throw new ConfigError(
      '--dir',
      `--dir ${dir}: not a folder: give the folder that holds the outputs and their …-evidence.json`,
    );
  const publicKey = options.publicKey !== undefined ? readKey(options.publicKey, '--public-key', 'public') : undefined;
  const held = heldOf(options);
  const result = await verifyFolder(dir, publicKey, held);
  record({
    ok: result.manifests > 0 && result.problems.length === 0,
    dir,
    manifests: result.manifests,
    files: result.files,
    signed: result.signed,
    problems: result.problems,
    ...(result.log ? { log: result.log } : {}),
  });
  for (const problem of result.problems) process.stderr.write(`ledger-recon: ${problem}\n`);
  if (result.manifests === 0 && result.problems.length === 0) {
    process.stderr.write(`ledger-recon: ${dir} holds no evidence manifest (…-evidence.json): nothing to verify\n`);
    process.exitCode = 1;
    return false;
  }
  if (result.problems.length > 0) {
    process.stderr.write(
      `ledger-recon: ${dir}: ${result.problems.length} ${result.problems.length === 1 ? 'problem' : 'problems'} in ${counted(result.manifests, 'manifest')} and ${counted(result.files, 'sealed file')}\n`,
    );
    process.exitCode = 1;
    return false;
  }
  say(
    `verified ${dir}: ${counted(result.manifests, 'manifest')}, ${counted(result.files, 'sealed file')}, one unbroken chain per mirror${publicKey ? `, every manifest signed by the key ${keyId(publicKey).slice(0, 16)}…` : ''}${result.log ? `, every seal of the log's ${counted(result.log.size, 'seal')} in the checkpoint${result.log.consistent > 0 ? `, which extends the ${counted(result.log.consistent, 'earlier checkpoint')}` : ''}${held?.witnessKey ? ', cosigned by the witness' : ''}` : ''}\n`,
  );
  return true;
}

/** `n` things, as a person counts them: 1 manifest, 2 manifests, 1,204 sealed files. */
function counted(n: number, thing: string): string {
  return `${n.toLocaleString('en-US')} ${thing}${n === 1 ? '' : 's'}`;
}
