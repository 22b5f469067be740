/** How the commands that seal (`run`, `report`, `close`) take their seal's settings from their flags. */
import type { KeyObject } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { readSigningKey } from '../evidence/sign.js';
import { isEndpoint } from '../evidence/log.js';
import { shownUrl } from '../send.js';

/** A place as a line shows it: a URL without its user, password or query string. */
function shownPlace(place: string): string {
  try {
    return shownUrl(new URL(place));
  } catch {
    return place.replace(/\/\/[^/]*@/, '//…@');
  }
}

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
  if (place !== undefined && /^[a-z][a-z0-9+.-]*:\/\//i.test(place) && !isEndpoint(place))
    throw new ConfigError(
      '--checkpoints',
      `--checkpoints ${shownPlace(place)}: neither a folder nor an http(s):// endpoint: give the folder's path (a write-once bucket's mount, an auditor's share) or the https:// URL that receives the checkpoints`,
    );
  return {
    ...(signingKey ? { signingKey } : {}),
    ...(place !== undefined && place !== '' ? { checkpoints: place } : {}),
  };
}
