import { ConfigError, type ServiceName } from './errors.js';
import { Secret } from './secret.js';

/** Where one service lives and how we authenticate to it. */
export interface ServiceConfig {
  service: ServiceName;
  baseUrl: string;
  clientId: string;
  clientSecret: Secret;
  /** How long one request may take before it is abandoned and retried (LEDGER_RECON_TIMEOUT seconds; default 30 s). */
  requestTimeoutMs?: number;
  /** The largest response body read (LEDGER_RECON_MAX_BODY_MB; default 64 MB). */
  maxBodyBytes?: number;
}

export interface Config {
  giftcard: ServiceConfig;
  dp: ServiceConfig;
}

/** Flags that override the environment, named as commander names them. */
export interface ConfigFlags {
  giftcardUrl?: string;
  giftcardClientId?: string;
  giftcardClientSecret?: string;
  dpUrl?: string;
  dpClientId?: string;
  dpClientSecret?: string;
}

export interface Setting {
  variable: string;
  flag: string;
  key: keyof ConfigFlags;
  kind: 'url' | 'id' | 'secret';
  description: string;
}

/** Every setting, in the order the README's configuration table lists them. */
export const SETTINGS: readonly Setting[] = [
  {
    variable: 'GIFTCARD_API_URL',
    flag: '--giftcard-url',
    key: 'giftcardUrl',
    kind: 'url',
    description: 'base address of the gift card service',
  },
  {
    variable: 'GIFTCARD_CLIENT_ID',
    flag: '--giftcard-client-id',
    key: 'giftcardClientId',
    kind: 'id',
    description: 'API client ID (X-Client-Id)',
  },
  {
    variable: 'GIFTCARD_CLIENT_SECRET',
    flag: '--giftcard-client-secret',
    key: 'giftcardClientSecret',
    kind: 'secret',
    description: 'API client secret (X-Client-Secret)',
  },
  {
    variable: 'DP_API_URL',
    flag: '--dp-url',
    key: 'dpUrl',
    kind: 'url',
    description: 'base address of the delivery partner service',
  },
  {
    variable: 'DP_CLIENT_ID',
    flag: '--dp-client-id',
    key: 'dpClientId',
    kind: 'id',
    description: 'client ID (x-client-id), also the DP ID in paths',
  },
  {
    variable: 'DP_CLIENT_SECRET',
    flag: '--dp-client-secret',
    key: 'dpClientSecret',
    kind: 'secret',
    description: 'client secret (x-client-secret)',
  },
];

/** The variable a setting's problems are reported under, for the auth error's hint. */
export function secretVariable(service: ServiceName): string {
  return service === 'giftcard' ? 'GIFTCARD_CLIENT_SECRET' : 'DP_CLIENT_SECRET';
}

/** The variable naming a service's base address. */
export function urlVariable(service: ServiceName): string {
  return service === 'giftcard' ? 'GIFTCARD_API_URL' : 'DP_API_URL';
}

export function idVariable(service: ServiceName): string {
  return service === 'giftcard' ? 'GIFTCARD_CLIENT_ID' : 'DP_CLIENT_ID';
}

/**
 * Reads the configuration: each flag overrides its environment variable.
 * @throws ConfigError naming every missing or malformed variable at once (one line), so a
 * newcomer fixes them in one go; a secret's value is never part of the message.
 */
export function loadConfig(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env): Config {
  const values = new Map<keyof ConfigFlags, string>();
  const problems: ConfigError[] = [];
  for (const { setting, value, problem } of checkSettings(flags, env)) {
    if (problem) problems.push(problem);
    else values.set(setting.key, value);
  }
  const timeout = requestTimeoutOf(env);
  if (typeof timeout !== 'number') problems.push(timeout);
  const bodyCap = maxBodyBytesOf(env);
  if (typeof bodyCap !== 'number') problems.push(bodyCap);
  const [first] = problems;
  if (first && problems.length === 1) throw first;
  if (first) {
    // The settings not set at all in one clause by name (what each is, `doctor` says); the others as they are wrong.
    const unset = problems.filter((p) => p.message.includes(' is not set: '));
    const named =
      unset.length > 0
        ? [`${unset.map((p) => p.variable).join(', ')} ${unset.length === 1 ? 'is' : 'are'} not set`]
        : [];
    throw new ConfigError(
      first.variable,
      `${problems.length} settings need attention: ${[...named, ...problems.filter((p) => !unset.includes(p)).map((p) => p.message)].join('; ')}: set them in the environment or a --settings file (\`ledger-recon doctor\` says what each one is; \`ledger-recon demo\` needs none)`,
    );
  }
  const get = (key: keyof ConfigFlags): string => values.get(key) ?? '';
  const requestTimeoutMs = typeof timeout === 'number' ? timeout : DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBodyBytes = typeof bodyCap === 'number' ? bodyCap : DEFAULT_MAX_BODY_MB * MB;
  return {
    giftcard: {
      service: 'giftcard',
      baseUrl: get('giftcardUrl'),
      clientId: get('giftcardClientId'),
      clientSecret: new Secret(get('giftcardClientSecret')),
      requestTimeoutMs,
      maxBodyBytes,
    },
    dp: {
      service: 'dp',
      baseUrl: get('dpUrl'),
      clientId: get('dpClientId'),
      clientSecret: new Secret(get('dpClientSecret')),
      requestTimeoutMs,
      maxBodyBytes,
    },
  };
}

/** One request's time-out when LEDGER_RECON_TIMEOUT is not set: the gift card spec's 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The largest response body when LEDGER_RECON_MAX_BODY_MB is not set: some 600 times a full page. */
export const DEFAULT_MAX_BODY_MB = 64;
const MB = 1024 * 1024;

/**
 * LEDGER_RECON_TIMEOUT (set by `--timeout` too): whole seconds from 1 to 600, in ms; the
 * problem that stops it otherwise.
 */
export function requestTimeoutOf(env: NodeJS.ProcessEnv = process.env): number | ConfigError {
  return wholeNumberSetting(
    env,
    'LEDGER_RECON_TIMEOUT (or --timeout)',
    'seconds',
    1,
    600,
    DEFAULT_REQUEST_TIMEOUT_MS / 1000,
    1000,
  );
}

/** LEDGER_RECON_MAX_BODY_MB: whole megabytes from 1 to 1024, in bytes; the problem that stops it otherwise. */
export function maxBodyBytesOf(env: NodeJS.ProcessEnv = process.env): number | ConfigError {
  return wholeNumberSetting(env, 'LEDGER_RECON_MAX_BODY_MB', 'megabytes', 1, 1024, DEFAULT_MAX_BODY_MB, MB);
}

/**
 * LEDGER_RECON_LOCK_WAIT: how long a statement of a PostgreSQL mirror waits for a lock another
 * session holds, whole seconds from 1 to 86400 (default 600), in ms.
 */
export function lockWaitMsOf(env: NodeJS.ProcessEnv = process.env): number | ConfigError {
  return wholeNumberSetting(env, 'LEDGER_RECON_LOCK_WAIT', 'seconds', 1, 86_400, 600, 1000);
}

/**
 * LEDGER_RECON_STATEMENT_TIMEOUT: how long one statement of the job on a PostgreSQL mirror may
 * run, whole seconds from 0 to 86400, in ms; 0 (the default) is none, whatever the role or the
 * database sets, as pg_dump does for its own session: a night's bulk load and index builds are
 * long by nature, and a role's timeout meant for people would fail them.
 */
export function statementTimeoutMsOf(env: NodeJS.ProcessEnv = process.env): number | ConfigError {
  return wholeNumberSetting(env, 'LEDGER_RECON_STATEMENT_TIMEOUT', 'seconds', 0, 86_400, 0, 1000);
}

/** A setting of whole units within bounds, times `scale`; its default when unset. */
function wholeNumberSetting(
  env: NodeJS.ProcessEnv,
  where: string,
  unit: string,
  min: number,
  max: number,
  fallback: number,
  scale: number,
): number | ConfigError {
  const variable = where.split(' ')[0] ?? where;
  const raw = env[variable]?.trim();
  if (raw === undefined || raw === '') return fallback * scale;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    return new ConfigError(variable, `${where} is ${shownValue(raw)}: it must be whole ${unit} from ${min} to ${max}`);
  }
  return Number(raw) * scale;
}

/** Each setting with its value, or the problem that stops it (for `doctor`, which lists them all). */
export function checkSettings(
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv = process.env,
): { setting: Setting; value: string; problem: ConfigError | null }[] {
  return SETTINGS.map((setting) => {
    try {
      return { setting, value: validate(setting, flags[setting.key] ?? env[setting.variable]), problem: null };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return { setting, value: '', problem: error };
    }
  });
}

function validate(setting: Setting, raw: string | undefined): string {
  const where = `${setting.variable} (or ${setting.flag})`;
  if (raw === undefined || raw.trim() === '') {
    throw new ConfigError(setting.variable, `${where} is not set: it is the ${setting.description}`);
  }
  const value = raw.trim();
  switch (setting.kind) {
    case 'url':
      return validateUrl(setting, where, value);
    case 'id':
      if (!/^[\x21-\x7e]+$/.test(value)) {
        throw new ConfigError(setting.variable, `${where} is malformed: it must be printable ASCII without spaces`);
      }
      return value;
    case 'secret':
      if (!/^[\x21-\x7e]+$/.test(value)) {
        // Say what is wrong, never what the value is.
        throw new ConfigError(
          setting.variable,
          `${where} is malformed: it must be printable ASCII without spaces (value not shown)`,
        );
      }
      return value;
  }
}

function validateUrl(setting: Setting, where: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(setting.variable, `${where} is not a URL: expected e.g. https://api.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(setting.variable, `${where} must start with http:// or https://`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError(
      setting.variable,
      `${where} must be a plain base address, without credentials, query or fragment`,
    );
  }
  return url.toString().replace(/\/+$/, '');
}

/** A bad value as a message quotes it: its first 40 characters, quoted, so a line stays a line. */
export function shownValue(raw: string): string {
  return raw.length <= 40
    ? JSON.stringify(raw)
    : `${JSON.stringify(raw.slice(0, 40))}… (${raw.length.toLocaleString('en-US')} characters)`;
}
