/**
 * A mirror in PostgreSQL: one schema of a database (`postgres://user@host:port/db?schema=name`),
 * holding the same tables and views as a SQLite mirror, made and migrated by the tool
 * (drizzle/pg/). Many mirrors live side by side in one database; nothing in a schema refers
 * outside it. The mirror's lock is an advisory lock on the schema held by the mirror's session:
 * the server releases it when that connection ends, however its holder died.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { lockWaitMsOf, statementTimeoutMsOf } from '../../config.js';
import { ConfigError, LedgerReconError, LockHeldError, MirrorError } from '../../errors.js';
import type { MirrorQueries } from '../queries.js';
import type { MirrorTables } from '../tables.js';
import {
  boundCrossed,
  DEFAULT_STATEMENT_BOUNDS,
  printedSize,
  SEVERAL_STATEMENTS,
  type Checkpointer,
  type LockHolder,
  type Mirror,
  type StatementBounds,
  type StatementResult,
} from '../types.js';
import { integerTypes, numberTypes, pgConnection, serverGone } from './connection.js';
import { createLedgerIndexes, dropLedgerIndexes } from './indexes.js';
import { missingTables } from '../expected-tables.js';

/** drizzle-kit's PostgreSQL migrations, beside src/ and dist/ alike. */
const MIGRATIONS = fileURLToPath(new URL('../../../drizzle/pg', import.meta.url));

export { DEFAULT_SCHEMA } from '../location.js';
import { DEFAULT_SCHEMA } from '../location.js';

/** Where a PostgreSQL mirror lives: the server and database, and the schema. */
export interface PgLocation {
  /** The connection string without `schema` (and as given otherwise). */
  connectionString: string;
  schema: string;
  /** The URL as messages show it: without user and password. */
  shown: string;
}

/** Reads `postgres://…?schema=name` (or postgresql://). @throws MirrorError for a schema name that is not a plain one. */
export function pgLocation(url: string): PgLocation {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? DEFAULT_SCHEMA;
  parsed.searchParams.delete('schema');
  const shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}?schema=${schema}`;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new MirrorError(
      `the mirror ${shown}: a schema name is lower-case letters, digits and _ (at most 63), starting with a letter or _`,
    );
  if (schema === 'public' || schema === 'information_schema' || schema.startsWith('pg_')) {
    throw new MirrorError(
      `the mirror ${shown}: ${schema} is the server's or every application's schema, not a mirror's: name a schema of its own (?schema=merchant_a), one per mirror`,
    );
  }
  // The session's settings are the tool's: its search_path is the mirror's schema. A URL's
  // options= (-c search_path=…, statement_timeout=0) would put the tables elsewhere.
  if (parsed.searchParams.has('options')) {
    throw new MirrorError(
      `the mirror ${shown}: the URL's options= parameter would change the settings of the mirror's sessions (its search_path names the mirror's schema); remove it, and set what you need on the role instead (ALTER ROLE … SET …)`,
    );
  }
  return { connectionString: parsed.toString(), schema, shown };
}

export interface PgOpenOptions {
  /** The command that opens it, shown to a second process refused the lock. */
  command?: string;
  /** Take the mirror's lock (a writing command). */
  locked?: boolean;
  /** Open for reading only: nothing made or migrated, every transaction read-only. */
  readOnly?: boolean;
  /** Thrown when a read-only open finds no mirror there. */
  missing?: Error;
}

/** The PostgreSQL mirror, with what a test or an operator may ask beyond the neutral mirror. */
export interface PgMirror extends Mirror {
  location: PgLocation;
  /** The mirror's session's process ID on the server (pg_backend_pid()). */
  backendPid: number;
}

/**
 * The lock's key: a 64-bit hash of the schema's name, seeded with the tool's mark, so that two
 * merchants' schemas never block each other (a 32-bit hashtext made merchant_8537 and
 * merchant_92549 one lock). pg_locks shows a bigint key as its high and low halves.
 */
const LOCK_SEED = 0x4c52; // 'LR'
const lockKey = `SELECT pg_catalog.hashtextextended($2, $1::bigint) AS key`;

/**
 * Opens the mirror in its schema: makes the schema and brings it up to date unless read-only,
 * takes the lock first when asked. @throws LockHeldError naming the holder, MirrorError when the
 * server cannot be reached or the mirror cannot be read.
 */
export async function openPgMirror(url: string, options: PgOpenOptions = {}): Promise<PgMirror> {
  const location = pgLocation(url);
  const lockWaitMs = lockWaitMsOf();
  if (lockWaitMs instanceof ConfigError) throw lockWaitMs;
  const statementTimeoutMs = statementTimeoutMsOf();
  if (statementTimeoutMs instanceof ConfigError) throw statementTimeoutMs;
  const startedAt = new Date().toISOString();
  const pool = new pg.Pool({
    connectionString: location.connectionString,
    application_name: `ledger-recon ${options.command ?? 'read'} ${process.pid} ${startedAt}`.slice(0, 63),
    // The job's own statement timeout (none by default), over whatever the role or the database
    // sets: a startup option outranks both. An investigator's statement sets its own bound.
    options: `-c search_path=${location.schema} -c statement_timeout=${statementTimeoutMs}${options.readOnly ? ' -c default_transaction_read_only=on' : ''}`,
    types: numberTypes,
    max: 6,
    connectionTimeoutMillis: 10_000,
    // A statement waiting on a lock another session holds (an open transaction, an ALTER, a
    // VACUUM FULL) stops the command in one line (serverGone, 55P03) instead of hanging the night.
    lock_timeout: lockWaitMs,
  });
  // A connection that fails while idle (the server gone): the next statement reports it.
  pool.on('error', () => undefined);
  // So does one that fails while handed out (a typed query's, a cursor's, an investigator's):
  // the statement in flight rejects with the cause; unheard, the client's error event would end
  // the process with a stack and exit 1 instead of the one line and exit 2.
  pool.on('connect', (client) => client.on('error', () => undefined));
  let session: pg.PoolClient;
  try {
    session = await pool.connect();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw unreachable(location, error);
  }
  try {
    if (options.locked) await takeLock(session, location);
    if (!options.readOnly) {
      // A role that owns its schema and nothing else may lack CREATE on the database, which
      // CREATE SCHEMA IF NOT EXISTS asks for even when the schema is there: create it only when it is not.
      const there = await session.query('SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1', [location.schema]);
      // IF NOT EXISTS still: another opening (a test's, a doctor's) may make it at the same moment.
      if (there.rowCount === 0) await session.query(`CREATE SCHEMA IF NOT EXISTS "${location.schema}"`);
      await inNamedSchema(session, location);
      const { applied, known } = await schemaVersion(clientAsks(session), location.schema);
      if (applied === 0) await refuseForeignSchema(session, location);
      if (applied > known)
        throw new MirrorError(
          `the mirror ${location.shown} was written by a newer ledger-recon (schema ${applied}; this version knows ${known}): upgrade ledger-recon, or give --db another mirror`,
        );
      await migrate(drizzle(session), {
        migrationsFolder: MIGRATIONS,
        migrationsSchema: location.schema,
        migrationsTable: '__drizzle_migrations',
      });
    } else {
      const { applied } = await schemaVersion(clientAsks(session), location.schema);
      if (applied === 0)
        throw (
          options.missing ?? new MirrorError(`there is no mirror at ${location.shown}: run \`ledger-recon sync\` first`)
        );
      await inNamedSchema(session, location);
    }
    const backendPid = Number((await session.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
    const mirror = mirrorOver(location, pool, session, backendPid);
    if (options.readOnly) await refuseHalfBuilt(mirror);
    // A first sync stopped mid-load left the ledger without its indexes: the writer builds them first.
    else
      await createLedgerIndexes(
        mirror.connection,
        Number((await mirror.connection.pluck<number | null>('SELECT MAX(sync_run_id) FROM sync_runs').get()) ?? 0),
      );
    return mirror;
  } catch (error) {
    session.release(true);
    await pool.end().catch(() => undefined);
    if (error instanceof LockHeldError || error instanceof MirrorError || error === options.missing) throw error;
    // The server shut down or the session was killed while the mirror opened: the same one line as mid-run.
    const gone = serverGone(location.shown, error);
    if (gone instanceof MirrorError) throw gone;
    throw new MirrorError(`the mirror ${location.shown} cannot be opened: ${(error as Error).message}`);
  }
}

/** A schema that is no mirror but holds tables, views or sequences (another application's) is never filled: migrating into it would clash, or mix two applications. */
async function refuseForeignSchema(session: pg.ClientBase, location: PgLocation): Promise<void> {
  const found = await session.query<{ n: string }>(
    "SELECT COUNT(*) AS n FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'm', 'S', 'p', 'f') AND c.relname NOT LIKE '__drizzle_migrations%'",
    [location.schema],
  );
  if (Number(found.rows[0]?.n ?? 0) === 0) return;
  throw new MirrorError(
    `the mirror ${location.shown}: the schema ${location.schema} holds ${found.rows[0]?.n} tables, views or sequences of something else, and no mirror: name a schema of its own (?schema=…), which ledger-recon makes`,
  );
}

/** Whatever the server's, the database's or the role's settings say, the session's tables are the named schema's. */
async function inNamedSchema(session: pg.ClientBase, location: PgLocation): Promise<void> {
  const current =
    (await session.query<{ schema: string | null }>('SELECT pg_catalog.current_schema() AS schema')).rows[0]?.schema ??
    null;
  if (current === location.schema) return;
  throw new MirrorError(
    `the mirror ${location.shown}: its session resolves tables in ${current ?? 'no schema'}, not in ${location.schema}: a setting of the server, the database or the role overrides the search_path ledger-recon sets; remove it`,
  );
}

/** The server did not take the connection: one line, naming the mirror without its password, and the fix. */
function unreachable(location: PgLocation, error: unknown): MirrorError {
  return new MirrorError(
    `the mirror ${location.shown} cannot be reached: ${(error as Error).message}; check that the server is running and that --db (or LEDGER_RECON_DB) names it`,
  );
}

/**
 * A reader never sees a half-built mirror: while a first sync loads the ledger (or after one
 * stopped mid-load) the ledger has no unique index and may list an entry twice.
 */
async function refuseHalfBuilt(mirror: PgMirror): Promise<void> {
  const c = mirror.connection;
  if ((await c.pluck<boolean>("SELECT pg_catalog.to_regclass('gift_card_transactions_id') IS NOT NULL").get()) === true)
    return;
  if ((await c.pluck<number>('SELECT 1 FROM gift_card_transactions LIMIT 1').get()) === undefined) return;
  throw new MirrorError(
    `the mirror ${mirror.path} is half-built: its first sync is loading the ledger or stopped while loading it, so entries may be listed twice: run ledger-recon sync --db ${mirror.path} to finish it, then read it again`,
  );
}

/** Takes the schema's advisory lock on the session, or names who holds it. */
async function takeLock(session: pg.ClientBase, location: PgLocation): Promise<void> {
  const taken = await session.query<{ taken: boolean }>(
    `SELECT pg_catalog.pg_try_advisory_lock(k.key) AS taken FROM (${lockKey}) k`,
    [LOCK_SEED, location.schema],
  );
  if (taken.rows[0]?.taken) return;
  const holder = await holderOf(session, location);
  throw new LockHeldError(
    holder
      ? `another ledger-recon ${holder.command} holds the mirror ${location.shown} (process ${holder.pid}, started ${holder.startedAt}); wait for it to finish`
      : `another ledger-recon process holds the mirror ${location.shown}; wait for it to finish`,
  );
}

/** The session holding the schema's lock, as its application name tells it (see openPgMirror). */
async function holderOf(session: pg.ClientBase, location: PgLocation): Promise<LockHolder | undefined> {
  const held = await session.query<{ application_name: string }>(
    `SELECT a.application_name FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid, (${lockKey}) k
     WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())
       AND ((l.classid::bigint << 32) | l.objid::bigint) = k.key`,
    [LOCK_SEED, location.schema],
  );
  if (held.rows.length === 0) return undefined;
  const name = /^ledger-recon (\S+) (\d+) (\S+)$/.exec(held.rows[0]?.application_name ?? '');
  return name
    ? { command: name[1] ?? 'command', pid: Number(name[2]), startedAt: name[3] ?? 'unknown' }
    : { command: 'command', pid: 0, startedAt: 'unknown' };
}

/** One short-lived connection to the server of `url`, for a question asked before any mirror is opened. */
async function asking<T>(url: string, question: (client: pg.Client, location: PgLocation) => Promise<T>): Promise<T> {
  const location = pgLocation(url);
  // The mirror's search_path here too: a question asked before the mirror opens reads what the mirror would.
  const client = new pg.Client({
    connectionString: location.connectionString,
    options: `-c search_path=${location.schema}`,
    connectionTimeoutMillis: 10_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw unreachable(location, error);
  }
  try {
    return await question(client, location);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Who holds the mirror's lock, if anyone. */
export async function pgLockHolder(url: string): Promise<LockHolder | undefined> {
  return asking(url, (client, location) => holderOf(client, location));
}

/** What the demo writes on a schema it makes: it clears only a schema that says so. */
const DEMO_MARK = 'made by `ledger-recon demo`, which makes this mirror afresh each time';

/**
 * Clears the schema for the demo and marks it as the demo's. @throws MirrorError when the
 * schema holds anything the demo did not make: the demo never drops a mirror of real books.
 */
export async function pgDemoSchema(url: string): Promise<void> {
  await asking(url, async (client, location) => {
    // Anything in it counts, not tables alone: functions, types (enums, domains), collations, operators.
    const schema = await client.query<{ mark: string | null; objects: number }>(
      `SELECT pg_catalog.obj_description(n.oid, 'pg_namespace') AS mark,
              (SELECT COUNT(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid)
            + (SELECT COUNT(*) FROM pg_catalog.pg_proc p WHERE p.pronamespace = n.oid)
            + (SELECT COUNT(*) FROM pg_catalog.pg_type t WHERE t.typnamespace = n.oid)
            + (SELECT COUNT(*) FROM pg_catalog.pg_collation o WHERE o.collnamespace = n.oid)
            + (SELECT COUNT(*) FROM pg_catalog.pg_operator o WHERE o.oprnamespace = n.oid) AS objects
       FROM pg_catalog.pg_namespace n WHERE n.nspname = $1`,
      [location.schema],
    );
    const found = schema.rows[0];
    if (found !== undefined && found.mark !== DEMO_MARK && Number(found.objects) > 0) {
      throw new MirrorError(
        `${location.shown} holds a schema the demo did not make, and the demo never deletes one: give --db another schema (the demo makes its own mirror there)`,
      );
    }
    await client.query(`DROP SCHEMA IF EXISTS "${location.schema}" CASCADE`);
    await client.query(`CREATE SCHEMA "${location.schema}"`);
    await client.query(`COMMENT ON SCHEMA "${location.schema}" IS '${DEMO_MARK.replaceAll("'", "''")}'`);
  });
}

/** The schemas of the database at `url` that hold a mirror (its table of check runs), by name. */
export async function pgMirrorSchemas(url: string): Promise<string[]> {
  return asking(url, async (client) => {
    const found = await client.query<{ schema: string }>(
      "SELECT n.nspname AS schema FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid WHERE c.relname = 'check_runs' AND c.relkind IN ('r', 'p') ORDER BY 1",
    );
    return found.rows.map((row) => row.schema);
  });
}

/** Whether the schema holds a migrated mirror. */
export async function pgMirrorExists(url: string): Promise<boolean> {
  return asking(
    url,
    async (client, location) => (await schemaVersion(clientAsks(client), location.schema)).applied > 0,
  );
}

/** Asks for one value: a client's query before the mirror is open, the mirror's connection after. */
type AskOne = (sql: string, value: string) => Promise<unknown>;

const clientAsks =
  (client: pg.ClientBase): AskOne =>
  async (sql, value) =>
    Object.values((await client.query(sql.replace('?', '$1'), sql.includes('?') ? [value] : [])).rows[0] ?? {})[0];

/** The migrations the schema has applied, and the number this version knows. */
async function schemaVersion(ask: AskOne, schema: string): Promise<{ applied: number; known: number }> {
  const found = await ask('SELECT pg_catalog.to_regclass(?) IS NOT NULL AS found', `"${schema}".__drizzle_migrations`);
  const applied =
    found === true ? Number((await ask(`SELECT COUNT(*) AS n FROM "${schema}".__drizzle_migrations`, '')) ?? 0) : 0;
  return { applied, known: knownMigrations() };
}

let known: number | undefined;
function knownMigrations(): number {
  known ??= (JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] })
    .entries.length;
  return known;
}

/**
 * The mirror's tables whose statistics a sync left stale (never analyzed, or more changed since
 * than autovacuum's default threshold: 50 rows and 10 %), so that the checks which follow plan
 * with what they hold, without waiting for autovacuum's next round. A quiet night analyzes
 * nothing: analyzing every table after each sync cost 2.4 s of a 10.5 s night.
 */
const STALE_STATISTICS = `SELECT quote_ident(relname) FROM pg_stat_user_tables
  WHERE schemaname = ? AND relname IN ('gift_cards', 'gift_card_transactions', 'coupons', 'dp_orders', 'dp_order_lines', 'gift_card_history', 'coupon_history')
    AND (COALESCE(last_analyze, last_autoanalyze) IS NULL OR n_mod_since_analyze > 50 + 0.1 * n_live_tup)
  ORDER BY relname`;

function mirrorOver(location: PgLocation, pool: pg.Pool, session: pg.PoolClient, backendPid: number): PgMirror {
  const connection = pgConnection(session, pool, location.shown);
  const queries: MirrorQueries = new Kysely<MirrorTables>({
    dialect: new PostgresDialect({ pool: goneAsOneLine(pool, location.shown, connection.settled), cursor: Cursor }),
  });
  const none: Checkpointer = { afterCommit: () => undefined, stop: async () => undefined };
  const ask: AskOne = (sql, value) => connection.pluck<unknown>(sql).get(...(sql.includes('?') ? [value] : []));
  // The tables this process found empty and is loading in bulk.
  const loaded = new Set<string>();
  let closed = false;
  return {
    path: location.shown,
    location,
    backendPid,
    queries,
    connection,
    dialect: connection.dialect,
    beginLoad: async (table) => {
      const empty =
        (await connection.pluck<boolean>(`SELECT NOT EXISTS (SELECT 1 FROM ${table}) AS empty`).get()) === true;
      if (empty && table === 'gift_card_transactions') await dropLedgerIndexes(connection);
      if (empty) loaded.add(table);
      return empty;
    },
    // The ledger's indexes are built again (a no-op when they stand); after a bulk load the planner learns the table's size.
    endLoad: async (table, syncRunId) => {
      const collapsed = table === 'gift_card_transactions' ? await createLedgerIndexes(connection, syncRunId) : 0;
      if (loaded.delete(table)) await connection.exec(`ANALYZE ${table}`);
      return collapsed;
    },
    startCheckpointer: () => none,
    compact: async () => {
      // This session's own counts reach the statistics when it next goes idle, not a second later.
      await connection.exec('SELECT pg_stat_force_next_flush()');
      const stale = await connection.pluck<string>(STALE_STATISTICS).all(location.schema);
      if (stale.length > 0) await connection.exec(`ANALYZE ${stale.join(', ')}`);
    },
    withSmallCache: (work) => work(),
    readOnlyStatement: (text, bounds = DEFAULT_STATEMENT_BOUNDS) => readOnlyStatement(pool, location, text, bounds),
    integrity: async () => {
      const { applied, known: knownCount } = await schemaVersion(ask, location.schema);
      if (applied === 0 || applied > knownCount) return `schema ${applied} of ${knownCount}`;
      return missingTables(
        await connection
          .pluck<string>(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'",
          )
          .all(location.schema),
      );
    },
    schemaVersion: () => schemaVersion(ask, location.schema),
    close: async () => {
      if (closed) return;
      closed = true;
      // The schema's lock is let go before the session ends, not when the server gets round to
      // ending it: the next opening, in this process or another, finds the mirror free at once.
      await session.query('SELECT pg_catalog.pg_advisory_unlock_all()').catch(() => undefined);
      session.release();
      await pool.end();
    },
  };
}

/** An investigator's integer (a bigint, or a SUM of them) as BigInt, as SQLite's are; a fraction as a number. */
const exactValue = (text: string): bigint | number => (/^-?\d+$/.test(text) ? BigInt(text) : Number(text));

/**
 * The pool as the typed query layer draws from it, a lost server said as the mirror's one line
 * (serverGone) whether the connection or a statement fails. A connection is handed out once the
 * mirror's own session has run what it was asked before (its deferred writes), so that a typed
 * query sees them.
 */
function goneAsOneLine(pool: pg.Pool, shown: string, settled: () => Promise<void>) {
  const gone = (error: unknown): never => {
    throw serverGone(shown, error);
  };
  return {
    connect: async () => {
      await settled();
      const client = await pool.connect().catch(gone);
      return {
        query: (...args: Parameters<pg.PoolClient['query']>) => {
          const result: unknown = (client.query as (...a: unknown[]) => unknown)(...args);
          return result instanceof Promise ? result.catch(gone) : result;
        },
        release: (error?: Error | boolean) => client.release(error),
      };
    },
    end: () => pool.end(),
  } as unknown as pg.Pool;
}

/** What an investigator's statement may begin with: a read. */
const READS = /^\s*(\(\s*)*(select|with|values|table|explain)\b/i;

/** EXPLAIN and its options, before the statement it explains (which may run: EXPLAIN ANALYZE). */
const EXPLAIN_PREFIX =
  /^\s*explain\s*(\([^)]*\)|\s+(analy[sz]e|verbose|costs|buffers|timing|summary|settings|wal|memory|generic_plan|format\s+\w+)\b)*\s*/i;

/**
 * The server's functions a read-only transaction still lets run that reach past the mirror:
 * ending or signalling other sessions (a merchant's night), its locks, its configuration and
 * logs, its files, replication, large objects, notifications, sleeping, other databases.
 */
const ADMIN_FUNCTIONS =
  /\b(pg_terminate_backend|pg_cancel_backend|pg_signal_backend|pg_reload_conf|pg_rotate_logfile|pg_(try_)?advisory_\w+|pg_sleep\w*|pg_read_\w*file|pg_ls_\w+|pg_stat_file|pg_file_\w+|pg_promote|pg_switch_wal|pg_create_restore_point|pg_backup_\w+|pg_log_\w+|pg_logical_\w+|pg_replication_\w+|pg_\w*replication_slot\w*|pg_wal_replay_\w+|pg_notify|pg_import_system_collations|set_config|lo_\w+|dblink\w*)\s*\(/i;

/** The statement as the text names its functions: comments out, quoted identifiers unquoted. */
function plainText(text: string): string {
  return text.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').replace(/"/g, '');
}

/**
 * Runs one investigator's statement in a READ ONLY transaction, always rolled back, within
 * `bounds`: writes and DDL are refused by the server, several statements by the protocol (a
 * prepared statement holds one), anything but a read (COPY, SET ROLE, DO, CALL) before it runs,
 * and the server's administrative and lock functions both as the text names them and as the
 * server's plan resolves them (a quoted or escaped name included). Its rows are read through a
 * cursor a batch at a time, so a bound stops it before its rows fill the memory.
 * Integers come back as BigInt.
 */
async function readOnlyStatement(
  pool: pg.Pool,
  location: PgLocation,
  text: string,
  bounds: StatementBounds,
): Promise<StatementResult> {
  if (!READS.test(text.replace(/^\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/)*/g, '')))
    throw new MirrorError('this statement would change the mirror, and `sql` only reads: it was not run');
  refuseAdminFunctions(plainText(text));
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.round(bounds.timeoutMs))}`);
    // The server's own reading of the statement: every function it would call, by its resolved name.
    const explained = text.replace(/^\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/)*/g, '').replace(EXPLAIN_PREFIX, '');
    const plan = await client.query({
      text: `EXPLAIN (VERBOSE, FORMAT JSON) ${explained}`,
      queryMode: 'extended',
    } as pg.QueryConfig);
    refuseAdminFunctions(JSON.stringify(plan.rows));
    return await rowsWithin(client, text, bounds);
  } catch (error) {
    if (error instanceof LedgerReconError) throw error;
    if (error instanceof RangeError) {
      // A value past what one string can hold: the connection is mid-message, so it goes.
      broken = error;
      throw boundCrossed('maxBytes', bounds);
    }
    const message = (error as Error).message;
    if (/cannot insert multiple commands into a prepared statement/.test(message))
      throw new MirrorError(SEVERAL_STATEMENTS);
    if (/read-only transaction/.test(message))
      throw new MirrorError('this statement would change the mirror, and `sql` only reads: it was not run');
    if (/statement timeout/.test(message)) throw boundCrossed('timeoutMs', bounds);
    throw new MirrorError(`the statement failed: ${message} (${location.shown})`);
  } finally {
    if (broken === undefined) await client.query('ROLLBACK').catch(() => undefined);
    client.release(broken);
  }
}

/** @throws MirrorError naming the first administrative or lock function `text` calls. */
function refuseAdminFunctions(text: string): void {
  const called = ADMIN_FUNCTIONS.exec(text)?.[1];
  if (called !== undefined)
    throw new MirrorError(
      `\`sql\` does not call ${called.toLowerCase()}: the server's administrative, signalling, lock and file functions reach past the mirror (another merchant's night among them); the statement was not run`,
    );
}

/** The statement's rows through a cursor, a batch at a time, stopped at the first bound crossed. */
async function rowsWithin(client: pg.PoolClient, text: string, bounds: StatementBounds): Promise<StatementResult> {
  const deadline = performance.now() + bounds.timeoutMs;
  const cursor = client.query(new Cursor(text, [], { types: integerTypes(exactValue) }));
  try {
    const rows: Record<string, unknown>[] = [];
    let bytes = 0;
    for (;;) {
      const batch = (await cursor.read(1000)) as Record<string, unknown>[];
      if (batch.length === 0) break;
      if (rows.length + batch.length > bounds.maxRows) throw boundCrossed('maxRows', bounds);
      for (const row of batch) for (const value of Object.values(row)) bytes += printedSize(value);
      if (bytes > bounds.maxBytes) throw boundCrossed('maxBytes', bounds);
      if (performance.now() > deadline) throw boundCrossed('timeoutMs', bounds);
      rows.push(...batch);
    }
    const fields = (cursor as unknown as { _result?: { fields?: { name: string }[] } })._result?.fields ?? [];
    return { columns: fields.map((field) => field.name), rows };
  } finally {
    await cursor.close().catch(() => undefined);
  }
}
