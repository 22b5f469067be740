/**
 * Which database a bench measures: SQLite (a file) by default; PostgreSQL when `npm run bench`
 * started a server and named it in LEDGER_RECON_BENCH_PG (a database URL without a schema).
 * Each bench then prints its figures for that backend, so that the two stand side by side.
 */
import pg from 'pg';
import { openMirror, type Mirror } from '../../src/db/mirror.js';
import { openPgMirror } from '../../src/db/pg/open.js';

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
