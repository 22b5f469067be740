/**
 * How commands read a settings file a flag names (`--sla`, `--liability`) and the seal's key and
 * checkpoint place (`--sign-key`, `--checkpoints`): read and checked before any work.
 */
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { isEndpoint } from '../evidence/log.js';
import { readSigningKey } from '../evidence/sign.js';
import { parseSlaRules, type SlaRule, SlaRulesError } from '../findings/sla.js';
import { type LiabilitySettings, LiabilitySettingsError, parseLiabilitySettings } from '../report/liability-sheets.js';
import { shownUrl } from '../send.js';

/** A settings file's flag, what it is, where its form is documented, and how it is read. */
interface SettingsFile<T> {
  flag: string;
  /** What the file is, for the line when it cannot be read ("the exception SLA rules file"). */
  what: string;
  /** Where its form is documented. */
  docs: string;
  parse(text: string): T;
  /** The error `parse` throws for a file it refuses (any other is a bug, thrown as it is). */
  refusal: new (
    ...args: never[]
  ) => Error;
}

/**
 * The settings in the file at `path` (none when no path is given).
 * @throws ConfigError naming the flag, the path, what is wrong and where the form is documented.
 */
export function settingsFileOf<T>(path: string | undefined, file: SettingsFile<T>): T | undefined {
  if (path === undefined || path === '') return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      file.flag,
      `${file.flag} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): give ${file.what} (${file.docs})`,
    );
  }
  try {
    return file.parse(text);
  } catch (error) {
    if (!(error instanceof file.refusal)) throw error;
    throw new ConfigError(file.flag, `${file.flag} ${path}: ${error.message}: see ${file.docs} for its form`);
  }
}

/** The exception SLA rules `--sla` names (or LEDGER_RECON_SLA). */
export function slaRulesOf(path: string | undefined): SlaRule[] | undefined {
  return settingsFileOf(path, {
    flag: '--sla',
    what: 'the exception SLA rules file',
    docs: 'docs/checking.md#exception-slas',
    parse: parseSlaRules,
    refusal: SlaRulesError,
  });
}

/**
 * The settings file `--liability` names, read and checked now (before the mirror opens).
 * @throws ConfigError naming the flag, the key and the fix.
 */
export function liabilitySettingsOf(path: string | undefined): LiabilitySettings | undefined {
  return settingsFileOf(path, {
    flag: '--liability',
    what: 'the liability settings file',
    docs: 'docs/liability.md',
    parse: parseLiabilitySettings,
    refusal: LiabilitySettingsError,
  });
}

/** A place as a line shows it: a URL without its user, password or query string. */
function shownPlace(place: string): string {
  try {
    return shownUrl(new URL(place));
  } catch {
    return place.replace(/\/\/[^/]*@/, '//…@');
  }
}

/** The seal's flags: `--sign-key FILE` and `--checkpoints DIR|URL`. */
interface SealFlags {
  signKey?: string;
  checkpoints?: string;
}

/**
 * The key that signs the seal (read now: a key that cannot sign fails the job before its work)
 * and the place its checkpoint goes.
 * @throws ConfigError naming the flag.
 */
export function sealSettingsOf(
  options: SealFlags,
  warn = (text: string): void => void process.stderr.write(`ledger-recon: ${text}\n`),
): { signingKey?: KeyObject; checkpoints?: string } {
  const signingKey =
    options.signKey !== undefined && options.signKey !== '' ? readSigningKey(options.signKey, warn) : undefined;
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
