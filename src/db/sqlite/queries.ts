/**
 * The typed query layer (kysely) over the SQLite mirror: the stores' only way to the SQLite
 * connection. The dialect is SQLite's; the queries the stores write are the dialect's concern
 * no further (a second backend adds its own folder beside this one).
 */
import type Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { MirrorTables } from '../tables.js';

/** The typed queries of one mirror. Never destroyed by its users: the mirror closes the connection. */
export type MirrorQueries = Kysely<MirrorTables>;

/** Kysely over an open mirror connection (the mirror owns it and closes it). */
export function sqliteQueries(sqlite: Database.Database): MirrorQueries {
  return new Kysely<MirrorTables>({ dialect: new SqliteDialect({ database: sqlite }) });
}
