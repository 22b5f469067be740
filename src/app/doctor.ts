import { defaultLocations, type Locations } from '../locations.js';
import { LedgerReconError } from '../errors.js';
import { accessSync, constants, existsSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { EXCLUSIVE } from '../paths.js';
import { dirname, join, resolve } from 'node:path';
import { DpClient } from '../api/dp-client.js';
import { GiftCardClient } from '../api/giftcard-client.js';
import { checkSettings, maxBodyBytesOf, requestTimeoutOf, type ConfigFlags, type ServiceConfig } from '../config.js';
import { isServerUrl, type Mirror, mirrorExists, mirrorHolder, openForReading, shownDb } from '../db/mirror.js';
import { mirrorSealProblems, publishedAgrees } from '../evidence/held.js';
import { isEndpoint } from '../evidence/log.js';
import { shownUrl } from '../send.js';
import { findingsStore, summaryOf } from '../findings/store.js';
import { Secret } from '../secret.js';
import { readSigningKey } from '../evidence/sign.js';
import { createHash, createPublicKey } from 'node:crypto';

/** What the doctor is asked about: the mirror and reports folder given (else the defaults), and the settings. */
export interface DoctorSettings extends ConfigFlags {
  db?: string | undefined;
  out?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

/** One line of the doctor's report: ok, or what is wrong and what to do. */
export interface DoctorLine {
  ok: boolean;
  subject: string;
  text: string;
}
type Line = DoctorLine;

/** Below this much free space beside the mirror a sync may fail: its WAL alone grows to 256 MB. */
const MIN_FREE_BYTES = 512 * 1024 * 1024;

/**
 * The job of `ledger-recon doctor`: every setting, both services' reachability and credentials
 * (one record read from each, GET only), the mirror's health (integrity, schema version, lock
 * holder, last successful run, its seals), the free disk space beside it and the reports folder;
 * one line each, `ok` or what is wrong with the fix, told as each is known and returned together.
 */
export async function examine(
  options: DoctorSettings,
  tell: (line: DoctorLine) => void = () => {},
): Promise<DoctorLine[]> {
  const env = options.env ?? process.env;
  const lines: Line[] = [];
  const say = (line: Line): void => {
    lines.push(line);
    tell(line);
  };

  const settings = checkSettings(options, env);
  for (const { setting, value, problem } of settings) {
    say(
      problem
        ? { ok: false, subject: setting.variable, text: problem.message.replace(`${setting.variable} `, '') }
        : { ok: true, subject: setting.variable, text: setting.kind === 'secret' ? 'set (value not shown)' : value },
    );
  }
  const timeout = requestTimeoutOf(env);
  if (typeof timeout !== 'number')
    say({ ok: false, subject: 'LEDGER_RECON_TIMEOUT', text: timeout.message.replace('LEDGER_RECON_TIMEOUT ', '') });
  const bodyCap = maxBodyBytesOf(env);
  if (typeof bodyCap !== 'number')
    say({
      ok: false,
      subject: 'LEDGER_RECON_MAX_BODY_MB',
      text: bodyCap.message.replace('LEDGER_RECON_MAX_BODY_MB ', ''),
    });
  const requestTimeoutMs = typeof timeout === 'number' ? timeout : undefined;
  // Each service is tried when its own three settings are sound.
  const get = (variable: string): string | undefined => {
    const found = settings.find((s) => s.setting.variable === variable);
    return found && found.problem === null ? found.value : undefined;
  };
  for (const service of ['giftcard', 'dp'] as const) {
    const prefix = service === 'giftcard' ? 'GIFTCARD' : 'DP';
    const [baseUrl, clientId, secret] = [
      get(`${prefix}_API_URL`),
      get(`${prefix}_CLIENT_ID`),
      get(`${prefix}_CLIENT_SECRET`),
    ];
    const subject = service === 'giftcard' ? 'gift card service' : 'delivery partner service';
    if (baseUrl === undefined || clientId === undefined || secret === undefined)
      say({ ok: false, subject, text: `not tried: fix its settings above first` });
    else
      say(
        await reach(
          {
            service,
            baseUrl,
            clientId,
            clientSecret: new Secret(secret),
            ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
          },
          subject,
        ),
      );
  }

  // The key that signs the evidence, when one is set: readable, Ed25519, the signer's alone.
  const keyPath = env['LEDGER_RECON_SIGN_KEY'];
  if (keyPath) say(signingKeyLine(keyPath));

  // The defaults only where no flag overrides them: `doctor --db postgres://…` says nothing of data/ledger.db.
  const locations = defaultLocations(env);
  const defaults = locationsLine(locations, {
    db: options.db === undefined || options.db === locations.db,
    out: options.out === undefined || options.out === locations.reports,
  });
  if (defaults) say(defaults);
  const db = options.db ?? defaultLocations().db;
  const out = options.out ?? defaultLocations().reports;
  const checkpoints = env['LEDGER_RECON_CHECKPOINTS'] || undefined;
  for (const line of await mirror(db, checkpoints, out)) say(line);
  // A server's disk is its operator's: the doctor sees only the space beside a file.
  if (!isServerUrl(db)) say(freeSpace(db));
  say(outFolder(out));
  return lines;
}

/** Where the mirror and the reports go when no flag names them (`used`: those no flag named), and why there. */
function locationsLine(locations: Locations, used: { db: boolean; out: boolean }): Line | undefined {
  if (!used.db && !used.out) return undefined;
  const why =
    locations.basis === 'LEDGER_RECON_HOME'
      ? `under LEDGER_RECON_HOME (${resolve(locations.home ?? '')})`
      : locations.basis === 'user data folder'
        ? `installed: under the user's data folder ${locations.home} (set LEDGER_RECON_HOME to move it)`
        : 'run from a checkout: under the current folder (set LEDGER_RECON_HOME to fix them in one place)';
  return {
    ok: true,
    subject: 'default locations',
    // A server's URL shown without its password, never made a path.
    text: `${why}: ${[
      used.db ? `mirror ${isServerUrl(locations.db) ? shownDb(locations.db) : resolve(locations.db)}` : '',
      used.out ? `reports ${resolve(locations.reports)}` : '',
    ]
      .filter(Boolean)
      .join(', ')}`,
  };
}

/** LEDGER_RECON_SIGN_KEY: a private Ed25519 key in a file only its owner reads, its public half's fingerprint shown. */
export function signingKeyLine(path: string): Line {
  const subject = 'signing key';
  const warnings: string[] = [];
  try {
    const key = readSigningKey(path, (text) => warnings.push(text));
    const fingerprint = createHash('sha256')
      .update(createPublicKey(key).export({ type: 'spki', format: 'der' }))
      .digest('hex')
      .slice(0, 16);
    if (warnings.length > 0) return { ok: false, subject, text: warnings.join('; ').replace(/^warning: /, '') };
    return {
      ok: true,
      subject,
      text: `${resolve(path)}: Ed25519, readable by its owner alone (public key SHA-256 ${fingerprint}…)`,
    };
  } catch (error) {
    return { ok: false, subject, text: (error as Error).message };
  }
}

/** Reads one record of a service (GET only): it answers and accepts the credentials, or why not. */
async function reach(config: ServiceConfig, subject: string): Promise<Line> {
  const client =
    config.service === 'giftcard'
      ? new GiftCardClient(config, { retry: { maxRetries: 1 } })
      : new DpClient(config, { retry: { maxRetries: 1 } });
  try {
    if (client instanceof GiftCardClient) {
      const page = await client.listGiftCards({ limit: 1 }).next();
      return {
        ok: true,
        subject,
        text: `${config.baseUrl} answers and accepts the credentials (${(page.value?.records.length ?? 0) > 0 ? 'cards readable' : 'no cards yet'})`,
      };
    }
    const { wallets } = await client.getWallets({ selectedOnly: true });
    return {
      ok: true,
      subject,
      text: `${config.baseUrl} answers and accepts the credentials (DP ${client.dpId}, ${wallets.length} selected wallet${wallets.length === 1 ? '' : 's'})`,
    };
  } catch (error) {
    return { ok: false, subject, text: (error as Error).message };
  } finally {
    await client.close();
  }
}

async function mirror(db: string, checkpoints: string | undefined, out: string): Promise<Line[]> {
  const server = isServerUrl(db);
  const subject = `mirror ${server ? shownDb(db) : resolve(db)}`;
  let opened;
  try {
    if (!(await mirrorExists(db))) return [{ ok: true, subject, text: 'not there yet: the first sync makes it' }];
    opened = await openForReading(db);
  } catch (error) {
    // On a server, a failure that names its own cause and fix (its disk full, the server gone) says it alone.
    const ownFix = error instanceof LedgerReconError && /: give --db /.test(error.message);
    const advice = ownFix
      ? ''
      : !server
        ? ': restore it from a backup, or give --db a new file (a new mirror starts with a full sync)'
        : error instanceof LedgerReconError
          ? ''
          : ': see the server and its log, restore the schema from a backup, or give --db another schema (?schema=NAME: a new mirror starts with a full sync)';
    return [{ ok: false, subject, text: `${(error as Error).message}${advice}` }];
  }
  try {
    const lines: Line[] = [];
    const check = await opened.integrity();
    lines.push(
      check === 'ok'
        ? { ok: true, subject, text: server ? 'integrity ok (schema complete)' : 'integrity ok (quick_check)' }
        : { ok: false, subject, text: `integrity check failed (${check}): restore it from a backup` },
    );
    const { applied, known } = await opened.schemaVersion();
    if (applied > known)
      lines.push({
        ok: false,
        subject: 'schema',
        text: `the mirror is at schema ${applied}, newer than this version (${known}): upgrade ledger-recon`,
      });
    else
      lines.push({
        ok: true,
        subject: 'schema',
        text:
          applied === known
            ? `schema ${applied}, this version's`
            : `schema ${applied} of ${known}: the next writing command migrates it`,
      });
    const holder = await mirrorHolder(db);
    lines.push({
      ok: true,
      subject: 'lock',
      text: holder
        ? `held by ledger-recon ${holder.command} (process ${holder.pid}, started ${holder.startedAt})`
        : 'free',
    });
    const last = await findingsStore(opened).history.completedRun();
    if (!last) lines.push({ ok: true, subject: 'last run', text: 'none yet' });
    else {
      const summary = summaryOf(last);
      lines.push({
        ok: true,
        subject: 'last run',
        text: `run ${last.checkRunId} at ${last.startedAt}: ${summary.verdict}, ${summary.findings} findings (${summary.bySeverity.error} error, ${summary.bySeverity.warning} warning)`,
      });
    }
    lines.push(...(await sealLines(opened, checkpoints, out)));
    return lines;
  } finally {
    await opened.close();
  }
}

function freeSpace(db: string): Line {
  let folder = dirname(resolve(db));
  while (!existsSync(folder)) folder = dirname(folder);
  const stats = statfsSync(folder);
  const free = stats.bavail * stats.bsize;
  const gb = (free / 1024 ** 3).toLocaleString('en-US', { maximumFractionDigits: 1 });
  return free >= MIN_FREE_BYTES
    ? { ok: true, subject: 'disk', text: `${gb} GB free beside the mirror (${folder})` }
    : {
        ok: false,
        subject: 'disk',
        text: `only ${gb} GB free beside the mirror (${folder}): a sync needs 256 MB for its WAL besides the mirror's growth; free some space`,
      };
}

function outFolder(out: string): Line {
  let folder = resolve(out);
  while (!existsSync(folder)) folder = dirname(folder);
  // The nearest existing folder decides whether --out can be made and written.
  try {
    if (!statSync(folder).isDirectory())
      return {
        ok: false,
        subject: '--out',
        text: `${resolve(out)}: ${folder} is a file, where a folder should be: give --out a folder you can write`,
      };
    accessSync(folder, constants.W_OK);
    // Permission bits are not the whole story (/proc, a read-only mount, a full disk): make a file and remove it.
    const probe = join(folder, `.ledger-recon-doctor-${process.pid}`);
    writeFileSync(probe, '', { flag: EXCLUSIVE });
    rmSync(probe, { force: true });
    return {
      ok: true,
      subject: '--out',
      text: `${resolve(out)}${folder === resolve(out) ? '' : ' (made by the first report)'}`,
    };
  } catch (error) {
    return {
      ok: false,
      subject: '--out',
      text: `${resolve(out)}: ${(error as { code?: string }).code ?? (error as Error).message}: give --out a folder you can write`,
    };
  }
}

/**
 * The mirror's seals held to themselves and to the reports folder's manifests (--out), and to
 * the checkpoints published (LEDGER_RECON_CHECKPOINTS), one line each.
 */
async function sealLines(mirror: Mirror, checkpoints: string | undefined, out: string): Promise<Line[]> {
  const folder = statSync(out, { throwIfNoEntry: false })?.isDirectory() === true;
  const { seals, problems, inFolder } = await mirrorSealProblems(mirror, folder ? { dir: out } : {});
  const lines: Line[] = [
    problems.length === 0
      ? {
          ok: true,
          subject: 'evidence',
          text:
            seals === 0
              ? 'nothing sealed yet'
              : `${seals} ${seals === 1 ? 'seal' : 'seals'}, each giving its digest and following the one before${inFolder > 0 ? `, the ${inFolder} in ${out} the same` : ''}`,
        }
      : {
          ok: false,
          subject: 'evidence',
          text: `${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}: hold the mirror to the reports folder and the published checkpoints with \`ledger-recon verify --run N --dir REPORTS --checkpoint FILE\``,
        },
  ];
  if (checkpoints !== undefined) lines.push(await checkpointsLine(mirror, checkpoints));
  return lines;
}

/** LEDGER_RECON_CHECKPOINTS: a folder the job can write whose checkpoints are the mirror's log, or an endpoint. */
async function checkpointsLine(mirror: Mirror, place: string): Promise<Line> {
  const subject = 'checkpoints';
  if (isEndpoint(place))
    return {
      ok: true,
      subject,
      text: `sent to ${shownUrl(new URL(place))} after each seal (an endpoint only receives them: hold the mirror to what it holds with \`ledger-recon verify --run N --checkpoint FILE\`)`,
    };
  try {
    if (existsSync(place)) accessSync(place, constants.W_OK);
  } catch {
    return {
      ok: false,
      subject,
      text: `${place}: cannot be written: give LEDGER_RECON_CHECKPOINTS a folder the job can write (and nobody else can change)`,
    };
  }
  return { subject, ...(await publishedAgrees(mirror, place)) };
}
