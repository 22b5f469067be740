/**
 * `ledger-recon witness LOG-FOLDER`: cosigns the newest checkpoint of a log when the log only
 * grew since the checkpoint this witness cosigned last (evidence/witness.ts). Exit 0 when it
 * cosigned, 1 when it refused (the line says where the log stops agreeing), 2 when it could not run.
 */
import { systemClock } from '../app/context.js';
import { ConfigError } from '../errors.js';
import { validKeyName } from '../evidence/checkpoint.js';
import { readKey } from '../evidence/sign.js';
import { witness, WitnessRefusal } from '../evidence/witness.js';
import { oneLine } from '../log.js';
import { reporter } from './reporter.js';
import type { declareWitness, FlagsOf } from './declarations.js';

export async function witnessCommand(logFolder: string, options: FlagsOf<typeof declareWitness>): Promise<void> {
  const { say, record } = reporter(options);
  if (!validKeyName(options.name))
    throw new ConfigError(
      '--name',
      `--name ${oneLine(options.name)}: a witness's name has no space or plus: e.g. auditor.example/witness`,
    );
  const key = readKey(options.key, '--key', 'private');
  const logKey = options.logKey !== undefined ? readKey(options.logKey, '--log-key', 'public') : undefined;
  try {
    const done = witness({
      logFolder,
      key,
      name: options.name,
      statePath: options.state,
      ...(logKey ? { logKey } : {}),
      nowSeconds: Math.floor(systemClock.now() / 1000),
    });
    record({ ok: true, ...done });
    say(
      `cosigned ${done.cosigned}: ${done.origin} at ${done.size} seals, ${done.since === null ? 'the first checkpoint this witness has seen of it' : `consistent with the ${done.since} it cosigned last`}\n`,
    );
  } catch (error) {
    if (!(error instanceof WitnessRefusal)) throw error;
    record({ ok: false, problem: error.message });
    process.stderr.write(`ledger-recon: not cosigned: ${oneLine(error.message)}\n`);
    process.exitCode = 1;
  }
}
