/**
 * The two backends' schemas, each as its own migrations make it (drizzle/ and drizzle/pg/), are
 * the same mirror: the same tables, columns (of the same meaning and nullability), keys,
 * indexes, foreign keys and views; and a PostgreSQL mirror refers to nothing outside its schema.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import type { SqliteMirror } from '../../src/db/mirror.js';
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm';
import * as schema from '../../src/db/schema.js';
import { BACKENDS } from '../support/backends.js';

interface Shape {
  tables: Record<string, Array<{ name: string; meaning: string; notNull: boolean }>>;
  primaryKeys: Record<string, string[]>;
  indexes: Array<{ table: string; name: string; unique: boolean; columns: string[] }>;
  foreignKeys: Array<{ table: string; columns: string[]; references: string; to: string[]; onDelete: string }>;
  views: Record<string, string[]>;
}

/** Columns the one schema declares as flags (booleans): stored 0/1 in SQLite, boolean in PostgreSQL. */
const flags = new Set(
  (Object.values(schema) as unknown[])
    .filter((value): value is Table => is(value, Table))
    .flatMap((table) =>
      Object.values(getTableColumns(table))
        .filter((column) => column.columnType === 'SQLiteBoolean')
        .map((column) => `${getTableName(table)}.${column.name}`),
    ),
);

const SQLITE_MEANING: Record<string, string> = { integer: 'integer', text: 'text', real: 'real' };
const PG_MEANING: Record<string, string> = {
  bigint: 'integer',
  text: 'text',
  'double precision': 'real',
  boolean: 'flag',
};

function sqliteShape(mirror: SqliteMirror): Shape {
  const db = mirror.sqlite;
  const names = (type: string) =>
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name",
      )
      .pluck()
      .all(type) as string[];
  const shape: Shape = { tables: {}, primaryKeys: {}, indexes: [], foreignKeys: [], views: {} };
  for (const table of names('table')) {
    const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{
      name: string;
      type: string;
      notnull: number;
      pk: number;
    }>;
    shape.tables[table] = columns.map((c) => ({
      name: c.name,
      meaning: flags.has(`${table}.${c.name}`) ? 'flag' : (SQLITE_MEANING[c.type.toLowerCase()] ?? c.type),
      notNull: c.notnull === 1 || c.pk > 0,
    }));
    shape.primaryKeys[table] = columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    for (const index of db.prepare(`PRAGMA index_list(${table})`).all() as Array<{
      name: string;
      unique: number;
      origin: string;
    }>) {
      if (index.origin === 'pk') continue;
      const columns = (db.prepare(`PRAGMA index_info(${index.name})`).all() as Array<{ seqno: number; name: string }>)
        .sort((a, b) => a.seqno - b.seqno)
        .map((c) => c.name);
      shape.indexes.push({ table, name: index.name, unique: index.unique === 1, columns });
    }
    const keys = db.prepare(`PRAGMA foreign_key_list(${table})`).all() as Array<{
      table: string;
      from: string;
      to: string;
      on_delete: string;
    }>;
    for (const key of keys)
      shape.foreignKeys.push({
        table,
        columns: [key.from],
        references: key.table,
        to: [key.to],
        onDelete: key.on_delete.toLowerCase(),
      });
  }
  for (const view of names('view'))
    shape.views[view] = (db.prepare(`PRAGMA table_info(${view})`).all() as Array<{ name: string }>).map((c) => c.name);
  return shape;
}

async function pgShape(client: pg.Client, schemaName: string): Promise<Shape> {
  const shape: Shape = { tables: {}, primaryKeys: {}, indexes: [], foreignKeys: [], views: {} };
  const columns = await client.query<{ table: string; name: string; type: string; not_null: boolean; kind: string }>(
    `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, NULL) AS type, a.attnotnull AS not_null, c.relkind AS kind
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'v') AND a.attnum > 0 AND NOT a.attisdropped AND c.relname <> '__drizzle_migrations'
     ORDER BY c.relname, a.attnum`,
    [schemaName],
  );
  for (const c of columns.rows) {
    if (c.kind === 'v') (shape.views[c.table] ??= []).push(c.name);
    else
      (shape.tables[c.table] ??= []).push({ name: c.name, meaning: PG_MEANING[c.type] ?? c.type, notNull: c.not_null });
  }
  const indexes = await client.query<{
    table: string;
    name: string;
    unique: boolean;
    primary: boolean;
    columns: string[];
  }>(
    `SELECT t.relname AS table, i.relname AS name, ix.indisunique AS unique, ix.indisprimary AS primary, array_agg(a.attname::text ORDER BY k.ord) AS columns
     FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
     WHERE n.nspname = $1 AND t.relname <> '__drizzle_migrations' GROUP BY 1, 2, 3, 4`,
    [schemaName],
  );
  for (const index of indexes.rows) {
    if (index.primary) shape.primaryKeys[index.table] = index.columns;
    else shape.indexes.push({ table: index.table, name: index.name, unique: index.unique, columns: index.columns });
  }
  for (const table of Object.keys(shape.tables)) shape.primaryKeys[table] ??= [];
  const keys = await client.query<{
    table: string;
    columns: string[];
    references: string;
    to: string[];
    on_delete: string;
    foreign_schema: string;
  }>(
    `SELECT t.relname AS table, r.relname AS references, rn.nspname AS foreign_schema,
            (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
            (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS to,
            CASE c.confdeltype WHEN 'c' THEN 'cascade' WHEN 'a' THEN 'no action' WHEN 'r' THEN 'restrict' WHEN 'n' THEN 'set null' ELSE 'set default' END AS on_delete
     FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     JOIN pg_class r ON r.oid = c.confrelid JOIN pg_namespace rn ON rn.oid = r.relnamespace
     WHERE c.contype = 'f' AND n.nspname = $1`,
    [schemaName],
  );
  for (const key of keys.rows) {
    expect(key.foreign_schema).toBe(schemaName);
    shape.foreignKeys.push({
      table: key.table,
      columns: key.columns,
      references: key.references,
      to: key.to,
      onDelete: key.on_delete,
    });
  }
  return shape;
}

const byName = <T extends { table: string; name?: string; columns: string[] }>(rows: T[]): T[] =>
  [...rows].sort((a, b) =>
    `${a.table}.${a.name ?? a.columns.join()}`.localeCompare(`${b.table}.${b.name ?? b.columns.join()}`),
  );

const [sqliteBackend, postgresBackend] = BACKENDS;

describe.skipIf(!postgresBackend?.available)('the PostgreSQL schema beside the SQLite one', () => {
  let sqlite: Awaited<ReturnType<NonNullable<typeof sqliteBackend>['open']>>;
  let postgres: Awaited<ReturnType<NonNullable<typeof postgresBackend>['open']>>;
  let client: pg.Client;
  beforeAll(async () => {
    sqlite = await sqliteBackend!.open();
    postgres = await postgresBackend!.open();
    client = new pg.Client({ connectionString: inject('postgresUrl') });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await sqlite?.cleanup();
    await postgres?.cleanup();
  });

  it('has the same tables, columns, keys, indexes, foreign keys and views', async () => {
    const schemaName = new URL(postgres.db).searchParams.get('schema') ?? '';
    const left = sqliteShape(sqlite.mirror as SqliteMirror);
    const right = await pgShape(client, schemaName);
    expect(Object.keys(right.tables).sort()).toEqual(Object.keys(left.tables).sort());
    // Column order is each migration history's own (SQLite adds columns at the end): compared by name.
    const sorted = (columns: Shape['tables'][string] | undefined) =>
      [...(columns ?? [])].sort((a, b) => a.name.localeCompare(b.name));
    for (const table of Object.keys(left.tables))
      expect({ table, columns: sorted(right.tables[table]) }).toEqual({ table, columns: sorted(left.tables[table]) });
    expect(right.primaryKeys).toEqual(left.primaryKeys);
    expect(byName(right.indexes)).toEqual(byName(left.indexes));
    expect(byName(right.foreignKeys)).toEqual(byName(left.foreignKeys));
    expect(right.views).toEqual(left.views);
    expect(Object.keys(left.views)).toHaveLength(11);
  });

  it('refers to nothing outside its schema: its views name only its own tables', async () => {
    const schemaName = new URL(postgres.db).searchParams.get('schema') ?? '';
    const outside = await client.query<{ view: string; other: string }>(
      `SELECT DISTINCT v.relname AS view, rn.nspname AS other
       FROM pg_depend d JOIN pg_rewrite w ON w.oid = d.objid JOIN pg_class v ON v.oid = w.ev_class JOIN pg_namespace vn ON vn.oid = v.relnamespace
       JOIN pg_class r ON r.oid = d.refobjid JOIN pg_namespace rn ON rn.oid = r.relnamespace
       WHERE vn.nspname = $1 AND rn.nspname <> $1 AND rn.nspname NOT IN ('pg_catalog', 'information_schema')`,
      [schemaName],
    );
    expect(outside.rows).toEqual([]);
  });
});
