/**
 * Which database a bench measures: SQLite (a file) by default; PostgreSQL when `npm run bench`
 * started a server and named it in LEDGER_RECON_BENCH_PG (a database URL without a schema).
 * Each bench then prints its figures for that backend, so that the two stand side by side.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { getTableColumns, getTableName } from 'drizzle-orm';
import pg from 'pg';
import { openMirror, type Mirror } from '../../src/db/mirror.js';
import { openPgMirror } from '../../src/db/pg/open.js';
import { PG_TABLES } from '../../src/db/pg/schema.js';
import { postgresBin, postgresProgram } from '../support/postgres.js';

/** The server's URL when this run measures PostgreSQL. */
export const PG_SERVER = process.env['LEDGER_RECON_BENCH_PG'] ?? '';

/** The backend's name, as the figures are labelled. */
export const BACKEND = PG_SERVER === '' ? 'SQLite' : 'PostgreSQL';

/** Where a bench mirror named `name` lives: a file under `folder`, or a schema on the server. */
export function benchLocation(name: string, folder: string): string {
  return PG_SERVER === '' ? `${folder}/${name}.db` : `${PG_SERVER}?schema=${name.replaceAll(/[^a-z0-9_]/g, '_')}`;
}

/** Opens (making and migrating) the mirror at a bench location. */
export async function openBenchMirror(location: string): Promise<Mirror> {
  return location.startsWith('postgres') ? openPgMirror(location, { command: 'bench' }) : openMirror(location);
}

/** Removes a bench mirror's schema (a file is the caller's to remove). */
export async function dropBenchMirror(location: string): Promise<void> {
  if (!location.startsWith('postgres')) return;
  const url = new URL(location);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/**
 * The PostgreSQL copy of a SQLite bench mirror: a schema named after it, made once (its comment
 * names the file's size and time) and reused, so both backends are measured over the same rows.
 * @returns its URL.
 */
export async function postgresCopyOf(sqlitePath: string, name: string): Promise<string> {
  const url = `${PG_SERVER}?schema=${name.replaceAll(/[^a-z0-9_]/g, '_')}`;
  const source = new Database(sqlitePath, { readonly: true, fileMustExist: true });
  // What the copy holds: the built ledger (the findings a bench plants are copied with it, and a
  // later bench run's own are its own to reset).
  const built = source
    .prepare(
      "SELECT (SELECT COUNT(*) FROM gift_card_transactions) || ' entries, ' || (SELECT COUNT(*) FROM gift_cards) || ' cards, ' || (SELECT COUNT(*) FROM findings) || ' findings, built ' || (SELECT MIN(started_at) FROM sync_runs)",
    )
    .pluck()
    .get() as string;
  const stamp = `copy of ${sqlitePath}: ${built}`;
  const admin = new pg.Client({ connectionString: PG_SERVER });
  await admin.connect();
  try {
    const found = await admin.query<{ mark: string | null }>(
      "SELECT obj_description(oid, 'pg_namespace') AS mark FROM pg_namespace WHERE nspname = $1",
      [new URL(url).searchParams.get('schema')],
    );
    if (found.rows[0]?.mark === stamp) return url;
    await dropBenchMirror(url);
    const started = performance.now();
    const mirror = await openPgMirror(url, { command: 'bench' });
    const c = mirror.connection;
    await c.exec(
      'DROP INDEX IF EXISTS gift_card_transactions_id, gift_card_transactions_card, gift_card_transactions_reference, gift_card_transactions_idempotency, gift_card_transactions_created, gift_card_transactions_first_sync, gift_cards_ledger_walk, gift_cards_status',
    );
    let rows = 0;
    for (const table of PG_TABLES) {
      const name = getTableName(table);
      const columns = Object.values(getTableColumns(table)).map((column) => column.name);
      const flags = Object.values(getTableColumns(table)).map((column) => column.columnType === 'PgBoolean');
      const read = source.prepare(`SELECT ${columns.map((column) => `"${column}"`).join(', ')} FROM ${name}`).raw(true);
      let chunk: unknown[][] = [];
      for (const row of read.iterate() as IterableIterator<unknown[]>) {
        chunk.push(row.map((value, i) => (flags[i] ? value === 1 : value)));
        if (chunk.length === 20_000) {
          await c.insertMany(name, columns, chunk);
          rows += chunk.length;
          chunk = [];
        }
      }
      if (chunk.length > 0) await c.insertMany(name, columns, chunk);
      rows += chunk.length;
      // The identity goes on from the copied rows' highest key.
      for (const column of Object.values(getTableColumns(table)).filter(
        (column) => column.primary && column.columnType === 'PgBigInt53',
      )) {
        await c.exec(
          `SELECT setval(pg_get_serial_sequence('${name}', '${column.name}'), COALESCE((SELECT MAX(${column.name}) FROM ${name}), 0) + 1, false)`,
        );
      }
    }
    await mirror.close();
    // Opening as a writer builds the ledger's indexes again; the migrations' other indexes too.
    const reopened = await openPgMirror(url, { command: 'bench' });
    await reopened.connection.exec(
      'CREATE INDEX IF NOT EXISTS gift_card_transactions_created ON gift_card_transactions USING btree (created_at_ms); CREATE INDEX IF NOT EXISTS gift_card_transactions_first_sync ON gift_card_transactions USING btree (first_sync_run_id); ' +
        'CREATE INDEX IF NOT EXISTS gift_cards_status ON gift_cards USING btree (status); CREATE INDEX IF NOT EXISTS gift_cards_ledger_walk ON gift_cards USING btree (gift_card_id, merchant_id, status, currency, program_id, issued_at_ms, initial_balance_cents, remaining_balance_cents, expires_at_ms, read_at_ms, first_sync_run_id)',
    );
    // As autovacuum leaves a mirror soon after a sync's inserts (PostgreSQL 13 and later vacuum
    // after inserts too): its statistics, and the visibility map that lets a scan read an index alone.
    await reopened.connection.exec('VACUUM (ANALYZE)');
    await reopened.close();
    await admin.query(
      `COMMENT ON SCHEMA "${new URL(url).searchParams.get('schema')}" IS '${stamp.replaceAll("'", "''")}'`,
    );
    process.stdout.write(
      `copied ${sqlitePath} into PostgreSQL (${rows.toLocaleString('en')} rows) in ${((performance.now() - started) / 1000).toFixed(0)} s\n`,
    );
    return url;
  } finally {
    source.close();
    await admin.end();
  }
}

/**
 * The benches' PostgreSQL server: its data in the system's temporary folder, kept between runs
 * (the bench mirrors' copies with it), started on a free port and stopped after. Durable as
 * SQLite's mirror is (fsync on; a commit not waited for, as SQLite's synchronous = NORMAL).
 */
export function startBenchServer(): { url: string; stop: () => void } {
  const bin = postgresBin();
  if (bin === undefined) throw new Error('PostgreSQL is not installed');
  const dir = join(tmpdir(), 'ledger-recon-bench-pg');
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const as = postgresProgram(bin);
  if (!existsSync(join(data, 'PG_VERSION'))) {
    mkdirSync(dir, { recursive: true });
    if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
    as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
  }
  // A bench stopped part-way (Ctrl-C) leaves its server running on this folder: stopped here, else this start fails.
  if (existsSync(join(data, 'postmaster.pid'))) {
    try {
      as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    } catch {
      // Not running after all (a stale file): pg_ctl start removes it.
    }
  }
  const port = 55_000 + Math.floor(Math.random() * 5_000);
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c synchronous_commit=off -c shared_buffers=256MB -c max_wal_size=4GB -c maintenance_work_mem=256MB`;
  as('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
  };
}
