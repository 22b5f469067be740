/**
 * The mirror as the stages see it: opened by where it lives, handed to their stores. Which
 * database holds it is the dialect folder's concern (src/db/sqlite/); nothing above the stores asks.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, type LedgerReconError, MirrorError } from '../errors.js';
import { defaultLocations } from '../locations.js';
import { DEFAULT_SCHEMA, isServerUrl, mirrorFile, shownDb } from './location.js';
import { lockHolder, type LockHolder, type MirrorLock } from './sqlite/lock.js';
import * as sqlite from './sqlite/open.js';
import type { Mirror } from './types.js';

export type { Checkpointer, LoadedTable, Mirror, StatementResult } from './types.js';
export type { Read, SqlConnection, Write } from './connection.js';
export type { OpenOptions, SqliteMirror } from './sqlite/open.js';
export { DEFAULT_DB_PATH } from './sqlite/open.js';
export type { MirrorQueries } from './queries.js';
export type { LockHolder, MirrorLock } from './sqlite/lock.js';
export { lockHolder } from './sqlite/lock.js';
export type { SqlDialect } from './dialect.js';
export { isServerUrl, mirrorFile, shownDb } from './location.js';

/** Opens (creating if needed) the mirror. @see sqlite.openMirror */
export function openMirror(
  path: string = sqlite.DEFAULT_DB_PATH,
  options: sqlite.OpenOptions = {},
): sqlite.SqliteMirror {
  return sqlite.openMirror(mirrorFile(path), options);
}

/** Takes the mirror's lock, then opens it. @see sqlite.openMirrorLocked */
export function openMirrorLocked(
  path: string,
  command: string,
  options?: sqlite.OpenOptions,
): { mirror: sqlite.SqliteMirror; lock: MirrorLock } {
  return sqlite.openMirrorLocked(mirrorFile(path), command, options);
}

/** Opens an existing mirror for reading only. @see sqlite.openMirrorReadOnly */
export function openMirrorReadOnly(path: string = sqlite.DEFAULT_DB_PATH): sqlite.SqliteMirror {
  return sqlite.openMirrorReadOnly(mirrorFile(path));
}

/** A mirror opened for a command, and what ends the command's hold on it (the lock, the connection). */
export interface OpenedMirror {
  mirror: Mirror;
  release(): Promise<void>;
}

/** PostgreSQL's folder, loaded only when a URL names a server: a SQLite night never loads node-postgres. */
const postgres = () => import('./pg/open.js');

/**
 * For a writing command (sync, check, run, accept, books import): takes the mirror's lock,
 * then opens it, making and migrating it as needed. `db` is a file's path or a server's URL
 * (postgres://…?schema=name). @throws LockHeldError naming the holder, MirrorError.
 */
export async function openForWriting(db: string, command: string, options?: sqlite.OpenOptions): Promise<OpenedMirror> {
  if (isServerUrl(db)) {
    const mirror = await (await postgres()).openPgMirror(db, { command, locked: true });
    return { mirror, release: () => mirror.close() };
  }
  const { mirror, lock } = sqlite.openMirrorLocked(mirrorFile(db), command, options);
  return {
    mirror,
    release: async () => {
      await mirror.close();
      lock.release();
    },
  };
}

/**
 * For a reading command (report, close, export, history, sql): opens an existing mirror for
 * reading only. @throws MirrorError, naming `firstRun` (the command that makes one) when there
 * is no mirror there.
 */
export async function openForReading(
  db: string,
  firstRun = 'sync',
  schema: 'any' | 'current' = 'any',
): Promise<Mirror> {
  const shown = isServerUrl(db) ? (await postgres()).pgLocation(db).shown : db;
  const missing = noMirrorAt(db, shown, firstRun);
  let mirror: Mirror;
  if (isServerUrl(db)) mirror = await (await postgres()).openPgMirror(db, { command: 'read', readOnly: true, missing });
  else if (!existsSync(mirrorFile(db))) throw missing;
  else mirror = sqlite.openMirrorReadOnly(mirrorFile(db));
  if (schema === 'current') {
    // A reader cannot migrate: a mirror an older version made lacks what this one reads (verify's past nights).
    const { applied, known } = await mirror.schemaVersion();
    if (applied < known) {
      await mirror.close();
      throw new MirrorError(
        `the mirror ${shown} was made by an older ledger-recon (schema ${applied}; this version knows ${known}): the next writing command (ledger-recon run, sync, report or close) brings it up to date; then read it again`,
      );
    }
  }
  return mirror;
}

/**
 * For a command that reads an existing mirror and seals what it wrote into it (report, close):
 * the writer's lock, but never a new mirror. @throws MirrorError, naming `firstRun`, when there is
 * no mirror there.
 */
export async function openExistingForWriting(db: string, command: string, firstRun = 'sync'): Promise<OpenedMirror> {
  if (!(await mirrorExists(db)))
    throw noMirrorAt(db, isServerUrl(db) ? (await postgres()).pgLocation(db).shown : db, firstRun);
  return openForWriting(db, command);
}

/**
 * What a command that needs a mirror says where there is none: under a LEDGER_RECON_HOME that
 * does not exist, that variable (not the --db nobody typed); beside a mistyped file name, the
 * mirrors that do stand in that folder; else the command that makes one.
 */
export function noMirrorAt(db: string, shown: string, firstRun = 'sync'): LedgerReconError {
  if (!isServerUrl(db)) {
    const locations = defaultLocations();
    if (
      resolve(db) === resolve(locations.db) &&
      locations.basis === 'LEDGER_RECON_HOME' &&
      locations.home !== undefined &&
      !existsSync(locations.home)
    )
      return new ConfigError(
        'LEDGER_RECON_HOME',
        `LEDGER_RECON_HOME is ${locations.home}, which does not exist, so there is no mirror at ${shown}: set LEDGER_RECON_HOME to the folder that holds data/ledger.db, or give --db`,
      );
    const beside = sqlite.mirrorsIn(dirname(db)).filter((path) => resolve(path) !== resolve(db));
    if (beside.length > 0)
      return new MirrorError(
        `there is no mirror at ${shown}, but ${beside.slice(0, 3).join(', ')} ${beside.length === 1 ? 'is one' : 'are mirrors'} beside it: give --db one of them, or run \`ledger-recon ${firstRun}\` to make a new one there`,
      );
  }
  return new MirrorError(`there is no mirror at ${shown}: run \`ledger-recon ${firstRun}\` first`);
}

/**
 * A mirror is opened, not conjured: a writing command makes a new SQLite mirror only in a
 * folder that is empty, or that does not exist yet under one that does, or with `--init`. A
 * mistyped `--db` (`/nonexitent/dir/ledger.db`, `reports/ledger.db`) would otherwise start an
 * empty mirror elsewhere, every finding new and the history left behind. A server's schema is
 * named by its URL (`?schema=`, default `ledger_recon`), and shown in every line and record.
 * @throws ConfigError naming --db and --init.
 */
export function refuseConjuredMirror(db: string, init: boolean): void {
  if (init || isServerUrl(db)) return;
  const file = resolve(mirrorFile(db));
  if (existsSync(file)) return;
  const folder = dirname(file);
  const refuse = (why: string): never => {
    throw new ConfigError(
      '--db',
      `--db ${db}: there is no mirror there, and ${why}: a mistyped --db would start a new, empty mirror, every finding new and the history elsewhere; correct --db, or give --init to make a new mirror there`,
    );
  };
  if (!existsSync(folder)) {
    if (!existsSync(dirname(folder))) refuse(`neither its folder nor that folder's parent exists (${dirname(folder)})`);
    return;
  }
  let held: string[];
  try {
    // Hidden files aside (a `.gitkeep`, a `.DS_Store`): empty as `ls` shows it.
    held = readdirSync(folder).filter((name) => !name.startsWith('.'));
  } catch {
    return; // not a readable folder: opening the mirror says so, naming it
  }
  if (held.length > 0) {
    const named = held
      .slice(0, 3)
      .map((name) => `'${name}'`)
      .join(', ');
    refuse(
      `its folder ${folder} is not empty (it holds ${named}${held.length > 3 ? ` and ${held.length - 3} more` : ''})`,
    );
  }
}

/** The mirror as a JSON record names it: a file's path, or a server's URL without its password and with its schema (the default one named). */
export function shownMirror(db: string): string {
  if (!isServerUrl(db)) return db;
  const shown = shownDb(db);
  return /[?&]schema=/.test(shown) ? shown : `${shown}${shown.includes('?') ? '&' : '?'}schema=${DEFAULT_SCHEMA}`;
}

/** Who holds the mirror's lock now, if anyone (the doctor's and history's question). */
export async function mirrorHolder(db: string): Promise<LockHolder | undefined> {
  if (isServerUrl(db)) return (await postgres()).pgLockHolder(db);
  return lockHolder(mirrorFile(db));
}

/** For the demo on PostgreSQL: clears the schema it makes its mirror in (never one it did not make). */
export async function clearDemoSchema(db: string): Promise<void> {
  await (await postgres()).pgDemoSchema(db);
}

/** The mirrors kept in the database at `url` (postgres://…/db): one URL per schema holding one. */
export async function mirrorsOnServer(url: string): Promise<string[]> {
  const schemas = await (await postgres()).pgMirrorSchemas(url);
  return schemas.map((schema) => {
    const each = new URL(url);
    each.searchParams.set('schema', schema);
    return each.toString();
  });
}

/** Whether a mirror exists there (a file; a schema holding a migrated mirror). */
export async function mirrorExists(db: string): Promise<boolean> {
  if (isServerUrl(db)) return (await postgres()).pgMirrorExists(db);
  return existsSync(mirrorFile(db));
}
