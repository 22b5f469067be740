/**
 * Which database a test file's mirrors live in. The vitest project `sqlite` runs every file on
 * SQLite; the project `postgres` runs the files that read or write a mirror again with
 * LEDGER_RECON_TEST_DB=postgres, each mirror then a new schema on the run's PostgreSQL server
 * (test/support/postgres-setup.ts), dropped when the file's tests end
 * (test/support/postgres-schemas.ts). A test names where a mirror lives with {@link mirrorAt}
 * and reads it with {@link rowsOfMirror}, and so runs unchanged on both.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import Database from 'better-sqlite3';
import { openMirror, type Mirror } from '../../src/db/mirror.js';
import { convertPlaceholders, numberTypes } from '../../src/db/pg/connection.js';
import { openPgMirror, pgLocation } from '../../src/db/pg/open.js';
import { newSchema } from './postgres.js';

/** Whether this file runs on PostgreSQL (the vitest project `postgres`). */
export const ON_POSTGRES = process.env['LEDGER_RECON_TEST_DB'] === 'postgres';

/** The backend's name, for test titles and messages. */
export const BACKEND_NAME = ON_POSTGRES ? 'PostgreSQL' : 'SQLite';

const schemas: Array<() => Promise<void>> = [];

/**
 * Where a new mirror named `name` lives: the file `<dir>/<name>/<name>.db` on SQLite (a folder
 * of its own under `dir`, made if need be, as a new mirror must have: the test's folder holds
 * its reports and books too), a
 * new schema's URL on PostgreSQL. The same name in the same folder is the same mirror.
 */
export function mirrorAt(dir: string, name = 'ledger'): string {
  if (!ON_POSTGRES) {
    mkdirSync(dir, { recursive: true });
    return join(dir, name, `${name}.db`);
  }
  const key = `${dir}\0${name}`;
  const known = locations.get(key);
  if (known !== undefined) return known;
  const { url, drop } = newSchema(inject('postgresUrl'));
  schemas.push(drop);
  locations.set(key, url);
  return url;
}
const locations = new Map<string, string>();

/** Drops every schema this file made (the postgres project's setup file calls it after the file). */
export async function dropTestSchemas(): Promise<void> {
  for (const drop of schemas.splice(0)) await drop();
  locations.clear();
}

/**
 * Rows a SELECT reads from the mirror at `db` (a path or a URL) as it stands, half-built or not
 * (the product's readers refuse a half-built one): read with the driver, integers as numbers.
 * Plain SQL both databases speak, `?` for each value.
 */
export async function rowsOfMirror<Row = Record<string, unknown>>(
  db: string,
  sql: string,
  ...params: unknown[]
): Promise<Row[]> {
  return statementOnMirror<Row>(db, sql, params, true);
}

/** Runs a statement that changes the mirror at `db` as a crash or a person would leave it (a test's setup). */
export async function changeMirror(db: string, sql: string, ...params: unknown[]): Promise<void> {
  await statementOnMirror(db, sql, params, false);
}

async function statementOnMirror<Row>(db: string, sql: string, params: unknown[], readonly: boolean): Promise<Row[]> {
  if (!ON_POSTGRES) {
    const sqlite = new Database(db, { readonly, fileMustExist: true });
    try {
      const statement = sqlite.prepare(sql);
      if (!statement.reader) {
        statement.run(...params);
        return [];
      }
      return statement.all(...params) as Row[];
    } finally {
      sqlite.close();
    }
  }
  return inSchema(db, async (client) => (await client.query(convertPlaceholders(sql).text, params)).rows as Row[]);
}

/** Runs `work` on a client of the server whose schema is the mirror at `db` (its search path), integers as numbers. */
async function inSchema<T>(db: string, work: (client: pg.Client, schema: string) => Promise<T>): Promise<T> {
  const { connectionString, schema } = pgLocation(db);
  const client = new pg.Client({ connectionString, types: numberTypes, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return await work(client, schema);
  } finally {
    await client.end();
  }
}

/**
 * What the server's ledger-recon sessions are doing, one line each, and the sessions blocking
 * them: a test names it when a command hangs. Empty on SQLite.
 */
export async function sessionsOfServer(db: string): Promise<string> {
  if (!ON_POSTGRES) return '';
  const rows = await inSchema(
    db,
    async (client) =>
      (
        await client.query<Record<string, unknown>>(
          `SELECT pid, application_name, state, wait_event_type, wait_event, pg_blocking_pids(pid) AS blocked_by,
                  now() - xact_start AS in_transaction_for, left(query, 300) AS query
           FROM pg_stat_activity
           WHERE application_name LIKE 'ledger-recon%' OR pid IN (SELECT unnest(pg_blocking_pids(pid)) FROM pg_stat_activity)
           ORDER BY pid`,
        )
      ).rows,
  );
  return rows.map((row) => JSON.stringify(row)).join('\n');
}

/** The single number a SELECT of one value reads from the mirror at `db`. */
export async function numberOfMirror(db: string, sql: string, ...params: unknown[]): Promise<number> {
  const [row] = await rowsOfMirror<Record<string, unknown>>(db, sql, ...params);
  const value = row === undefined ? undefined : Object.values(row)[0];
  if (typeof value !== 'number') throw new Error(`${sql} read ${String(value)}, not a number`);
  return value;
}

/**
 * Every value the mirror at `db` holds, as text to search, where the mirror is no file under
 * the test's folder (on PostgreSQL: every row of every table in its schema); '' for a SQLite
 * file, whose bytes a search of the folder reads (test/support/written.ts).
 */
export async function everyTextInMirror(db: string): Promise<string> {
  if (!ON_POSTGRES) return '';
  return inSchema(db, async (client, schema) => {
    const tables = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
      [schema],
    );
    const texts: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
      for (const { row } of rows.rows) texts.push(row);
    }
    return texts.join('\n');
  });
}

/** Opens (making and migrating) the mirror at `db` in this process, as a writer. */
export async function openMirrorAt(db: string): Promise<Mirror> {
  return ON_POSTGRES ? openPgMirror(db, { command: 'test' }) : openMirror(db);
}
