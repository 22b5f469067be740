import { defaultLocations } from '../locations.js';
import { ConfigError } from '../errors.js';
import { readKey } from '../evidence/sign.js';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { reporter } from './reporter.js';
import type { declareVerify, FlagsOf } from './declarations.js';
import {
  heldOf,
  type Verified,
  verifyClose,
  verifyFolderAt,
  verifyNight,
  verifyProofAt,
  whatIfRun,
} from '../app/verified.js';

/**
 * `ledger-recon verify` (src/app/verified.ts): a folder offline, a card's proof, or a past night or
 * close re-performed from the mirror (`--set`: under other settings). Its lines on stdout, one
 * line per problem on stderr; exit 1 when anything does not hold.
 */
export async function verify(
  folder: string | undefined,
  options: FlagsOf<typeof declareVerify>,
  command: CommandUnknownOpts,
): Promise<void> {
  const verified = await verified_(folderOf(folder, options, command));
  const { say, record } = reporter(options);
  record(verified.record);
  for (const problem of verified.problems) process.stderr.write(`${problem}\n`);
  if (verified.lines.length > 0) say(`${verified.lines.join('\n')}\n`);
  if (!verified.identical) process.exitCode = 1;
}

/** The flags, with the folder given once, as an argument or as --dir; one named is what --run and --close hold the mirror's seals to. */
function folderOf(folder: string | undefined, options: FlagsOf<typeof declareVerify>, command: CommandUnknownOpts) {
  const named = command.getOptionValueSource('dir') === 'cli';
  if (folder !== undefined && named && options.dir !== folder)
    throw new ConfigError('--dir', `verify was given two folders, ${folder} and --dir ${options.dir}: give one`);
  return { ...options, dir: folder ?? options.dir, dirNamed: folder !== undefined || named };
}

/** The re-performance or check the flags ask for. @throws ConfigError for flags that do not go together. */
async function verified_(options: ReturnType<typeof folderOf>): Promise<Verified> {
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
