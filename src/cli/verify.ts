import { defaultLocations } from '../locations.js';
import { statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { type LogHeld, verifyFolder } from '../evidence/verify.js';
import { readCheckpoints } from '../evidence/verify-log.js';
import { keyId, readKey } from '../evidence/sign.js';
import { reporter, type Reporting } from './reporter.js';
import { checkCardProof } from '../evidence/prove.js';
import { readRegularFile } from '../paths.js';
import { LedgerReconError } from '../errors.js';
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
  /** A card's proof (`ledger-recon prove`) to check against --checkpoint, with no mirror. */
  proof?: string;
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
  if (options.proof !== undefined) return verifyProof(options.proof, options);
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
    revisions: result.revisions,
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
    `verified ${dir}: ${counted(result.manifests, 'manifest')}, ${counted(result.files, 'sealed file')}, one unbroken chain per mirror${publicKey ? `, every manifest signed by the key ${keyId(publicKey).slice(0, 16)}…` : ''}${result.log ? `, the log's ${counted(result.log.size, 'seal')} all in the checkpoint${result.log.consistent > 0 ? `, which extends the ${counted(result.log.consistent, 'earlier checkpoint')}` : ''}${held?.witnessKey ? ', cosigned by the witness' : ''}` : ''}\n`,
  );
  // Written again, never overwritten: each revision of a report or close, in the chain's order.
  for (const { subject, manifests } of result.revisions)
    say(`  ${subject} sealed ${manifests.length} times: ${manifests.join(', then ')}\n`);
  return true;
}

/** `n` things, as a person counts them: 1 manifest, 2 manifests, 1,204 sealed files. */
function counted(n: number, thing: string): string {
  return `${n.toLocaleString('en-US')} ${thing}${n === 1 ? '' : 's'}`;
}

/** The largest proof read: a card's entries and two paths of hashes. */
const MAX_PROOF_BYTES = 16 * 1024 * 1024;

/**
 * `verify --proof FILE --checkpoint FILE`: a card's proof checked against the checkpoint the
 * auditor holds, offline. One line per problem; exit 1 when it does not hold.
 */
function verifyProof(path: string, options: VerifyOptions): boolean {
  const { say, record } = reporter(options);
  const held = heldOf(options);
  if (!held)
    throw new ConfigError('--checkpoint', '--proof needs --checkpoint FILE: the checkpoint the proof is held to');
  const publicKey = options.publicKey !== undefined ? readKey(options.publicKey, '--public-key', 'public') : undefined;
  let value: unknown;
  try {
    value = JSON.parse(readRegularFile(path, '--proof', MAX_PROOF_BYTES));
  } catch (error) {
    if (error instanceof LedgerReconError) throw error;
    throw new ConfigError('--proof', `--proof ${path}: not JSON: give the file \`ledger-recon prove\` wrote`);
  }
  const checkpoint = held.checkpoints.at(-1)!;
  const checked = checkCardProof(value, checkpoint.note, {
    ...(publicKey ? { logKey: publicKey } : {}),
    ...(held.witnessKey ? { witnessKey: held.witnessKey } : {}),
  });
  record({ ok: checked.problems.length === 0, proof: path, checkpoint: checkpoint.file, ...checked });
  for (const problem of checked.problems) process.stderr.write(`ledger-recon: ${problem}\n`);
  if (checked.problems.length > 0) {
    process.exitCode = 1;
    return false;
  }
  const card = checked.card!;
  say(
    `proven: gift card ${card.giftCardId} (${card.status}, ${card.remaining === null ? 'balance off the cent' : `${card.currency} ${card.remaining}`}, ${card.entries.toLocaleString('en-US')} ${card.entries === 1 ? 'entry' : 'entries'}) as ${checked.subject} sealed it at ${checked.cutOff}, in the log's checkpoint of ${counted(checkpoint.note.size, 'seal')}${publicKey ? ", signed by the log's key" : ''}${held.witnessKey ? ', cosigned by the witness' : ''}\n`,
  );
  return true;
}
