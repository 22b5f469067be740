/** How the commands that seal (`run`, `report`, `close`) take their seal's settings from their flags. */
import type { KeyObject } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { readSigningKey } from '../evidence/sign.js';

export interface SealFlags {
  signKey?: string;
  checkpoints?: string;
}

/**
 * The key that signs the seal (read now: a key that cannot sign fails the job before its work)
 * and the place its checkpoint goes.
 * @throws ConfigError naming the flag.
 */
export function sealSettingsOf(options: SealFlags): { signingKey?: KeyObject; checkpoints?: string } {
  const signingKey =
    options.signKey !== undefined && options.signKey !== ''
      ? readSigningKey(options.signKey, (text) => process.stderr.write(`ledger-recon: ${text}\n`))
      : undefined;
  const place = options.checkpoints;
  if (place !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(place))
    throw new ConfigError(
      '--checkpoints',
      `--checkpoints ${place}: a URL; the checkpoints go to a folder (a write-once bucket's mount, an auditor's share): give its path`,
    );
  return {
    ...(signingKey ? { signingKey } : {}),
    ...(place !== undefined && place !== '' ? { checkpoints: place } : {}),
  };
}
