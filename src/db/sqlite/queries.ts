/** The typed query layer (kysely) over a SQLite mirror's connection. */
import type Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { MirrorQueries } from '../queries.js';
import type { MirrorTables } from '../tables.js';

/** Kysely over an open mirror connection (the mirror owns it and closes it). */
export function sqliteQueries(sqlite: Database.Database): MirrorQueries {
  return new Kysely<MirrorTables>({ dialect: new SqliteDialect({ database: sqlite }) });
}
