import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { MirrorError } from '../errors.js';
import { ensureMirrorFolder, mirrorFullError, nearlyFull } from '../paths.js';
import { acquireLock, type MirrorLock } from './lock.js';
import * as schema from './schema.js';
import { sqliteQueries, type MirrorQueries } from './sqlite/queries.js';

/** Where the mirror lives unless --db says otherwise. */
export const DEFAULT_DB_PATH = 'data/ledger.db';

/** drizzle-kit's migrations, beside src/ and dist/ alike. */
const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url));

export type MirrorDb = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface Mirror {
  path: string;
  /** drizzle over the connection, for typed queries. */
  db: MirrorDb;
  /** The typed, async query layer the stores use (kysely), dialect-neutral above the stores. */
  queries: MirrorQueries;
  /** The raw connection, for prepared bulk statements and streaming reads. */
  sqlite: Database.Database;
  close(): void;
}

/**
 * Opens (creating if needed) the mirror at `path` and brings its schema up to date:
 * WAL journal, foreign keys on, a busy time-out, then drizzle-kit's pending migrations.
 */
export function openMirror(path: string = DEFAULT_DB_PATH, options: OpenOptions = {}): Mirror {
  if (path !== ':memory:') {
    ensureMirrorFolder(path);
  }
  return unreadableAsMirrorError(path, () => new Database(path), (sqlite) => prepareMirror(path, sqlite, options));
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
  options: OpenOptions = { warn: (message) => process.stderr.write(`ledger-recon: ${message}\n`) },
): { mirror: Mirror; lock: MirrorLock } {
  const lock = acquireLock(path, command);
  try {
    return { mirror: openMirror(path, options), lock };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * Opens the connection and runs `prepare` on it; an SQLite error on the way (a file that is
 * no database, a corrupt or unreadable one) becomes a {@link MirrorError} naming the mirror
 * and the cause, which the CLI prints as one line with exit code 2.
 */
function unreadableAsMirrorError(path: string, open: () => Database.Database, prepare: (sqlite: Database.Database) => Mirror): Mirror {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = open();
    return prepare(sqlite);
  } catch (error) {
    sqlite?.close();
    // SQLite rolls a full disk's transaction back itself; drizzle's own ROLLBACK then fails and
    // hides SQLITE_FULL: the free space says what happened.
    if ((error as { code?: unknown }).code === 'SQLITE_FULL' || nearlyFull(path)) throw mirrorFullError(path, 'SQLITE_FULL');
    if (error instanceof Database.SqliteError) throw new MirrorError(`the mirror ${path} cannot be opened: ${error.message}`);
    throw error;
  }
}

function prepareMirror(path: string, sqlite: Database.Database, { warn }: OpenOptions): Mirror {
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
  const db = drizzle(sqlite, { schema }) as MirrorDb;
  const { applied, known } = schemaVersion(sqlite);
  if (applied > known) throw new MirrorError(`the mirror ${path} was written by a newer ledger-recon (schema ${applied}; this version knows ${known}): upgrade ledger-recon, or give --db another mirror`);
  migrate(db, { migrationsFolder: MIGRATIONS });
  if (warn && missingIndexes(sqlite, [ENTRY_ID_INDEX, ...LEDGER_INDEXES]).length > 0) {
    const entries = sqlite.prepare('SELECT COUNT(*) FROM gift_card_transactions').pluck().get() as number;
    if (entries > 0) warn(`a first sync stopped while loading the ledger: building its indexes over ${entries.toLocaleString('en-US')} entries first (about 2.5 s a million)`);
  }
  createLedgerIndexes(sqlite);
  createCardIndexes(sqlite);
  createCouponIndexes(sqlite);
  return { path, db, queries: sqliteQueries(sqlite), sqlite, close: () => sqlite.close() };
}

/**
 * The ledger's indexes beyond its row number, exactly as the migrations define them. A first
 * sync loads the ledger without them (random keys make each insert touch pages all over a
 * large index) and builds them in one sorted pass afterwards; opening the mirror rebuilds any
 * that a sync killed mid-load left missing.
 */
const ENTRY_ID_INDEX = 'CREATE UNIQUE INDEX IF NOT EXISTS `gift_card_transactions_id` ON `gift_card_transactions` (`transaction_id`)';
const LEDGER_INDEXES = [
  'CREATE INDEX IF NOT EXISTS `gift_card_transactions_card` ON `gift_card_transactions` (`gift_card_id`,`created_at_ms`,`list_order`,`vanished_sync_run_id`,`transaction_id`,`type`,`amount_cents`,`balance_before_cents`,`balance_after_cents`,`reference_id`,`idempotency_key`,`first_sync_run_id`)',
  'CREATE INDEX IF NOT EXISTS `gift_card_transactions_reference` ON `gift_card_transactions` (`reference_id`)',
  'CREATE INDEX IF NOT EXISTS `gift_card_transactions_idempotency` ON `gift_card_transactions` (`idempotency_key`)',
];
/**
 * Restores the ledger's indexes. Without its unique ID index a bulk load may have mirrored an
 * entry twice (the list shifted under the walk, or a refused cursor restarted it): each such
 * entry collapses onto its first row, as an upsert would have, and one that came back
 * different keeps its earlier version, credited to `syncRunId` (default: the newest sync).
 * @returns how many duplicate rows were collapsed.
 */
export function createLedgerIndexes(sqlite: Database.Database, syncRunId?: number): number {
  let collapsed = 0;
  try {
    buildIndexes(sqlite, [ENTRY_ID_INDEX]);
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw error;
    const run = syncRunId ?? (sqlite.prepare('SELECT COALESCE(MAX(sync_run_id), 0) FROM sync_runs').pluck().get() as number);
    collapsed = sqlite.transaction(() => collapseDuplicateEntries(sqlite, run))();
    buildIndexes(sqlite, [ENTRY_ID_INDEX]);
  }
  buildIndexes(sqlite, LEDGER_INDEXES);
  return collapsed;
}

/**
 * Runs CREATE INDEX statements with a small sort memory and two sorter threads. SQLite sizes
 * each sorted run by the page cache: small runs that fit the CPU's caches, sorted in parallel
 * and merged, build the ledger's indexes about twice as fast as one large in-memory sort
 * (1,000,000 entries: 5.2 s -> 2.2 s). The cache and threads are restored afterwards.
 */
function buildIndexes(sqlite: Database.Database, statements: readonly string[]): void {
  const missing = missingIndexes(sqlite, statements);
  if (missing.length === 0) return; // the usual case: keep the warm cache untouched
  const cacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
  const threads = sqlite.pragma('threads', { simple: true }) as number;
  sqlite.pragma('cache_size = -4096');
  sqlite.pragma('threads = 2');
  try {
    for (const statement of missing) sqlite.exec(statement);
  } finally {
    sqlite.pragma(`cache_size = ${cacheSize}`);
    sqlite.pragma(`threads = ${threads}`);
  }
}

/** The statements among `statements` whose index the mirror lacks. */
function missingIndexes(sqlite: Database.Database, statements: readonly string[]): string[] {
  const exists = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").pluck();
  return statements.filter((statement) => exists.get(indexName(statement)) === undefined);
}

const ENTRY_FIELDS = ['gift_card_id', 'type', 'amount_cents', 'balance_before_cents', 'balance_after_cents', 'reference_id', 'idempotency_key', 'created_at', 'created_at_ms', 'raw_json'] as const;

function collapseDuplicateEntries(sqlite: Database.Database, syncRunId: number): number {
  const rows = sqlite
    .prepare(
      `SELECT entry_id, transaction_id, raw_json FROM gift_card_transactions
       WHERE transaction_id IN (SELECT transaction_id FROM gift_card_transactions GROUP BY transaction_id HAVING COUNT(*) > 1)
       ORDER BY transaction_id, entry_id`,
    )
    .all() as Array<{ entry_id: number; transaction_id: string; raw_json: string }>;
  const version = sqlite.prepare("INSERT INTO gift_card_transaction_versions (transaction_id, sync_run_id, change, previous_raw_json, new_raw_json) VALUES (?, ?, 'changed', ?, ?)");
  const fields = ENTRY_FIELDS.join(', ');
  const adopt = sqlite.prepare(
    `UPDATE gift_card_transactions SET (${fields}) = (SELECT ${fields} FROM gift_card_transactions WHERE entry_id = @later) WHERE entry_id = @kept`,
  );
  const remove = sqlite.prepare('DELETE FROM gift_card_transactions WHERE entry_id = ?');
  let kept: { entry_id: number; transaction_id: string; raw_json: string } | undefined;
  for (const row of rows) {
    if (kept?.transaction_id !== row.transaction_id) {
      kept = row;
      continue;
    }
    if (row.raw_json !== kept.raw_json) {
      version.run(row.transaction_id, syncRunId, kept.raw_json, row.raw_json);
      adopt.run({ later: row.entry_id, kept: kept.entry_id });
      kept = { ...kept, raw_json: row.raw_json };
    }
    remove.run(row.entry_id);
  }
  return rows.length - new Set(rows.map((row) => row.transaction_id)).size;
}

/** Drops the ledger's indexes for a bulk load; {@link createLedgerIndexes} restores them. */
export function dropLedgerIndexes(sqlite: Database.Database): void {
  dropIndexes(sqlite, [ENTRY_ID_INDEX, ...LEDGER_INDEXES]);
}

/**
 * The card and coupon tables' secondary indexes and their history tables', exactly as the
 * migrations define them. A first sync loads cards and coupons without them (each random key
 * touches its own index page: 100,000 history rows took 0.6 s with their indexes, 0.25 s
 * without and sorted after) and builds them when the walk ends.
 */
const CARD_INDEXES = [
  'CREATE INDEX IF NOT EXISTS `gift_cards_status` ON `gift_cards` (`status`)',
  'CREATE INDEX IF NOT EXISTS `gift_cards_ledger_walk` ON `gift_cards` (`gift_card_id`,`merchant_id`,`status`,`currency`,`program_id`,`issued_at_ms`,`initial_balance_cents`,`remaining_balance_cents`,`expires_at_ms`,`read_at_ms`,`first_sync_run_id`)',
  'CREATE INDEX IF NOT EXISTS `gift_card_history_card` ON `gift_card_history` (`gift_card_id`,`sync_run_id`)',
  'CREATE INDEX IF NOT EXISTS `gift_card_history_sync` ON `gift_card_history` (`sync_run_id`)',
];
const COUPON_INDEXES = ['CREATE INDEX IF NOT EXISTS `coupon_history_coupon` ON `coupon_history` (`coupon_id`,`sync_run_id`)'];

export function createCardIndexes(sqlite: Database.Database): void {
  buildIndexes(sqlite, CARD_INDEXES);
}

/** Drops the card tables' secondary indexes for a bulk load; {@link createCardIndexes} restores them. */
export function dropCardIndexes(sqlite: Database.Database): void {
  dropIndexes(sqlite, CARD_INDEXES);
}

export function createCouponIndexes(sqlite: Database.Database): void {
  buildIndexes(sqlite, COUPON_INDEXES);
}

/** Drops the coupon tables' secondary indexes for a bulk load; {@link createCouponIndexes} restores them. */
export function dropCouponIndexes(sqlite: Database.Database): void {
  dropIndexes(sqlite, COUPON_INDEXES);
}

/** Whether `table` holds no rows: a sync that finds it so loads it in bulk. */
export function isEmpty(sqlite: Database.Database, table: 'gift_cards' | 'gift_card_transactions' | 'coupons'): boolean {
  return sqlite.prepare(`SELECT NOT EXISTS (SELECT 1 FROM ${table})`).pluck().get() === 1;
}

function dropIndexes(sqlite: Database.Database, statements: readonly string[]): void {
  for (const statement of statements) sqlite.exec(`DROP INDEX IF EXISTS \`${indexName(statement)}\``);
}

/** The index a `CREATE [UNIQUE] INDEX IF NOT EXISTS` statement above names. */
function indexName(statement: string): string {
  const name = /INDEX IF NOT EXISTS `([^`]+)`/.exec(statement)?.[1];
  if (name === undefined) throw new Error(`not a CREATE INDEX IF NOT EXISTS statement: ${statement}`);
  return name;
}

/** The migrations a mirror has applied, and the number this version of the tool knows. */
export function schemaVersion(sqlite: Database.Database): { applied: number; known: number } {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  const applied = table ? (sqlite.prepare('SELECT COUNT(*) FROM __drizzle_migrations').pluck().get() as number) : 0;
  return { applied, known: knownMigrations() };
}

let known: number | undefined;
function knownMigrations(): number {
  known ??= (JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;
  return known;
}

/**
 * A reader never sees a half-built mirror: while a first sync loads the ledger (or after one
 * stopped mid-load) the ledger has no unique index yet and may list an entry twice; the
 * writing command that opens it next finishes the load.
 * @throws MirrorError naming the mirror and the command that completes it.
 */
function refuseHalfBuilt(path: string, sqlite: Database.Database): void {
  const hasLedger = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'gift_card_transactions'").get() !== undefined;
  if (!hasLedger || missingIndexes(sqlite, [ENTRY_ID_INDEX]).length === 0) return;
  if (sqlite.prepare('SELECT 1 FROM gift_card_transactions LIMIT 1').get() === undefined) return;
  throw new MirrorError(`the mirror ${path} is half-built: its first sync is loading the ledger or stopped while loading it, so entries may be listed twice: run ledger-recon sync --db ${path} to finish it, then read it again`);
}

/**
 * Opens an existing mirror for reading only: better-sqlite3's read-only mode plus
 * `query_only`, so no statement can write. @throws MirrorError when the file does not exist
 * or is no database.
 */
export function openMirrorReadOnly(path: string = DEFAULT_DB_PATH): Mirror {
  return unreadableAsMirrorError(
    path,
    () => new Database(path, { readonly: true, fileMustExist: true }),
    (sqlite) => {
      sqlite.pragma('query_only = 1');
      // SQLite reads the file at the first statement: read its schema now, so that a file
      // that is no database fails here, as the mirror, not later as some query.
      sqlite.prepare('SELECT COUNT(*) FROM sqlite_master').get();
      refuseHalfBuilt(path, sqlite);
      const db = drizzle(sqlite, { schema }) as MirrorDb;
      return { path, db, queries: sqliteQueries(sqlite), sqlite, close: () => sqlite.close() };
    },
  );
}
