import { terminalWidth, wrapText } from '../../fit-width.js';
import { missingTables } from '../expected-tables.js';
import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { FileSystemError, MirrorError } from '../../errors.js';
import { ensureMirrorFolder, mirrorFullError, nearlyFull } from '../../paths.js';
import { acquireLock, type MirrorLock } from './lock.js';
import * as schema from '../schema.js';
import {
  beginLoad,
  createCardIndexes,
  createCouponIndexes,
  createLedgerIndexes,
  endLoad,
  ENTRY_ID_INDEX,
  LEDGER_INDEXES,
  missingIndexes,
} from './indexes.js';
import { sqliteQueries } from './queries.js';
import { sqliteDialect } from './dialect.js';
import { sqliteConnection } from './connection.js';
import { pluck } from './statement.js';
import type { Mirror } from '../types.js';
import { startCheckpointer } from './checkpointer.js';
import { runReadOnlyStatement } from './investigate.js';

/** Where the mirror lives unless --db says otherwise. */
export const DEFAULT_DB_PATH = 'data/ledger.db';

/** drizzle-kit's migrations, beside src/ and dist/ alike. */
const MIGRATIONS = fileURLToPath(new URL('../../../drizzle', import.meta.url));

/** A mirror in a SQLite file: the neutral mirror, and the raw connection its own folder and the tests read. */
export interface SqliteMirror extends Mirror {
  /** The raw connection: this folder's and the tests' alone (test/architecture.test.ts). */
  sqlite: Database.Database;
}

/**
 * Opens (creating if needed) the mirror at `path` and brings its schema up to date:
 * WAL journal, foreign keys on, a busy time-out, then drizzle-kit's pending migrations.
 */
export function openMirror(path: string = DEFAULT_DB_PATH, options: OpenOptions = {}): SqliteMirror {
  if (path !== ':memory:') {
    ensureMirrorFolder(path);
  }
  return unreadableAsMirrorError(
    path,
    () => new Database(path),
    (sqlite) => prepareMirror(path, sqlite, options),
  );
}

export interface OpenOptions {
  /** Told, before it starts, of a repair that takes a while (the indexes a stopped first sync left unbuilt). */
  warn?: (message: string) => void;
}

/**
 * For a command that writes (sync, check, run, accept): takes the mirror's lock, then opens
 * the mirror. Never the other way round: opening migrates the mirror and, after a bulk load
 * cut short, builds its ledger indexes, neither of which may happen under another holder.
 * The lock is released again if the mirror cannot be opened; otherwise the caller closes the
 * mirror, then releases the lock.
 * @throws LockHeldError naming the holder, MirrorError when the mirror cannot be opened.
 */
export function openMirrorLocked(
  path: string,
  command: string,
  // On a terminal, wrapped between words at its width; one line in a log.
  options: OpenOptions = {
    warn: (message) => process.stderr.write(wrapText(`ledger-recon: ${message}\n`, terminalWidth(process.stderr))),
  },
): { mirror: SqliteMirror; lock: MirrorLock } {
  refuseNotAMirror(path);
  const lock = acquireLock(path, command);
  try {
    return { mirror: openMirror(path, options), lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * What stands at a `--db` that is no mirror, refused before anything is made beside it (a lock
 * file beside a README): a folder, or a file that is no SQLite database. An empty file is a
 * new mirror's; a damaged database gets SQLite's own word when it is opened.
 * @throws FileSystemError for a folder; MirrorError for a file that is no SQLite database.
 */
export function refuseNotAMirror(path: string): void {
  let stats;
  try {
    stats = statSync(path, { throwIfNoEntry: false });
  } catch {
    return; // a file where a folder should be (ENOTDIR): making the mirror's folder names it
  }
  if (stats === undefined) return;
  if (stats.isDirectory())
    throw new FileSystemError(
      `--db ${path}: it is a folder: give --db the mirror's file, e.g. ${join(path, 'ledger.db')}`,
    );
  if (!stats.isFile() || stats.size === 0) return;
  const head = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== 'SQLite format 3\0')
    throw new MirrorError(
      `--db ${path}: not a mirror (the file is no SQLite database): give --db the mirror's file, e.g. ${join(dirname(path), 'ledger.db')}`,
    );
}

/** The SQLite databases (`*.db`) in `folder`, as a mistyped `--db` beside them is told; none when it cannot be read. */
export function mirrorsIn(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder)
      .filter((name) => name.endsWith('.db'))
      .sort();
  } catch {
    return [];
  }
  return names
    .map((name) => join(folder, name))
    .filter((path) => {
      try {
        refuseNotAMirror(path);
        return statSync(path).isFile();
      } catch {
        return false;
      }
    });
}

/**
 * Opens the connection and runs `prepare` on it; an SQLite error on the way (a file that is
 * no database, a corrupt or unreadable one) becomes a {@link MirrorError} naming the mirror
 * and the cause, which the CLI prints as one line with exit code 2.
 */
function unreadableAsMirrorError(
  path: string,
  open: () => Database.Database,
  prepare: (sqlite: Database.Database) => SqliteMirror,
): SqliteMirror {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = open();
    return prepare(sqlite);
  } catch (error) {
    sqlite?.close();
    // SQLite rolls a full disk's transaction back itself; drizzle's own ROLLBACK then fails and
    // hides SQLITE_FULL: the free space says what happened.
    if ((error as { code?: unknown }).code === 'SQLITE_FULL' || nearlyFull(path))
      throw mirrorFullError(path, 'SQLITE_FULL');
    if (error instanceof Database.SqliteError)
      throw new MirrorError(`the mirror ${path} cannot be opened: ${error.message}`);
    throw error;
  }
}

function prepareMirror(path: string, sqlite: Database.Database, { warn }: OpenOptions): SqliteMirror {
  // 16 KiB pages for a new mirror (an existing one keeps its own): a first sync loads and
  // indexes about a quarter faster than with 4 KiB pages. Only takes effect before WAL is on.
  sqlite.pragma('page_size = 16384');
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Random UUID keys touch pages all over each index: a 128 MB cache keeps them in memory.
  sqlite.pragma('cache_size = -131072');
  // Checkpoint the WAL every 64 MB rather than every 1,000 pages: each checkpoint fsyncs, and
  // a full sync writes hundreds of MB. The sync truncates the WAL when it finishes.
  const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
  sqlite.pragma(`wal_autocheckpoint = ${Math.round((64 * 1024 * 1024) / pageSize)}`);
  const { applied, known } = schemaVersion(sqlite);
  if (applied > known)
    throw new MirrorError(
      `the mirror ${path} was written by a newer ledger-recon (schema ${applied}; this version knows ${known}): upgrade ledger-recon, or give --db another mirror`,
    );
  migrate(drizzle(sqlite, { schema }), { migrationsFolder: MIGRATIONS });
  if (warn && missingIndexes(sqlite, [ENTRY_ID_INDEX, ...LEDGER_INDEXES]).length > 0) {
    const entries = pluck<number>(sqlite, 'SELECT COUNT(*) FROM gift_card_transactions').get() ?? 0;
    if (entries > 0)
      warn(
        `a first sync stopped while loading the ledger: building its indexes over ${entries.toLocaleString('en-US')} entries first (about 2.5 s a million)`,
      );
  }
  createLedgerIndexes(sqlite);
  createCardIndexes(sqlite);
  createCouponIndexes(sqlite);
  return mirrorOver(path, sqlite);
}

/** The migrations a mirror has applied, and the number this version of the tool knows. */
export function schemaVersion(sqlite: Database.Database): { applied: number; known: number } {
  const table = sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get();
  const applied = table ? (pluck<number>(sqlite, 'SELECT COUNT(*) FROM __drizzle_migrations').get() ?? 0) : 0;
  return { applied, known: knownMigrations() };
}

let known: number | undefined;
function knownMigrations(): number {
  known ??= (JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] })
    .entries.length;
  return known;
}

/**
 * A reader never sees a half-built mirror: while a first sync loads the ledger (or after one
 * stopped mid-load) the ledger has no unique index yet and may list an entry twice; the
 * writing command that opens it next finishes the load.
 * @throws MirrorError naming the mirror and the command that completes it.
 */
function refuseHalfBuilt(path: string, sqlite: Database.Database): void {
  const hasLedger =
    sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gift_card_transactions'").get() !==
    undefined;
  if (!hasLedger || missingIndexes(sqlite, [ENTRY_ID_INDEX]).length === 0) return;
  if (sqlite.prepare('SELECT 1 FROM gift_card_transactions LIMIT 1').get() === undefined) return;
  throw new MirrorError(
    `the mirror ${path} is half-built: its first sync is loading the ledger or stopped while loading it, so entries may be listed twice: run ledger-recon sync --db ${path} to finish it, then read it again`,
  );
}

/**
 * Opens an existing mirror for reading only: better-sqlite3's read-only mode plus
 * `query_only`, so no statement can write. @throws MirrorError when the file does not exist
 * or is no database.
 */
export function openMirrorReadOnly(path: string = DEFAULT_DB_PATH): SqliteMirror {
  refuseNotAMirror(path);
  return unreadableAsMirrorError(
    path,
    () => new Database(path, { readonly: true, fileMustExist: true }),
    (sqlite) => {
      sqlite.pragma('query_only = 1');
      // SQLite reads the file at the first statement: read its schema now, so that a file
      // that is no database fails here, as the mirror, not later as some query.
      sqlite.prepare('SELECT COUNT(*) FROM sqlite_master').get();
      refuseHalfBuilt(path, sqlite);
      return mirrorOver(path, sqlite);
    },
  );
}

/** The mirror over an open, prepared connection. */
function mirrorOver(path: string, sqlite: Database.Database): SqliteMirror {
  const mirror: SqliteMirror = {
    path,
    queries: sqliteQueries(sqlite),
    sqlite,
    connection: sqliteConnection(sqlite),
    dialect: sqliteDialect,
    beginLoad: async (table) => beginLoad(sqlite, table),
    endLoad: async (table, syncRunId) => endLoad(sqlite, table, syncRunId),
    compact: async () => {
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    },
    withSmallCache: async (work) => {
      const cacheSize = pluck<number>(sqlite, 'PRAGMA cache_size').get() ?? -2000;
      sqlite.pragma('cache_size = -16384');
      try {
        return await work();
      } finally {
        sqlite.pragma(`cache_size = ${cacheSize}`);
      }
    },
    startCheckpointer: () => startCheckpointer(mirror),
    readOnlyStatement: (text, bounds) => runReadOnlyStatement(sqlite, text, bounds),
    integrity: async () => {
      const quick = String(sqlite.pragma('quick_check', { simple: true }));
      if (quick !== 'ok') return quick;
      return missingTables(
        sqlite.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all(),
      );
    },
    schemaVersion: async () => schemaVersion(sqlite),
    close: async () => {
      sqlite.close();
    },
  };
  return mirror;
}
