/**
 * The typed query layer's tables (src/db/tables.ts, derived from the schema's types) against
 * the real mirror the migrations make: every table and column it names exists, with the
 * nullability it types.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTableColumns, getTableName, is, Table } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror, type SqliteMirror as Mirror } from '../../src/db/mirror.js';
import * as schema from '../../src/db/schema.js';

let dir: string;
let mirror: Mirror;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-tables-'));
  mirror = openMirror(join(dir, 'ledger.db'));
});
afterAll(() => {
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the typed tables', () => {
  const tables: Table[] = (Object.values(schema) as unknown[]).filter((value): value is Table => is(value, Table));

  it('name every table of the schema, each in the migrated mirror', () => {
    expect(tables.length).toBeGreaterThan(20);
    const live = new Set(
      mirror.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
    );
    for (const table of tables) expect(live.has(getTableName(table)), getTableName(table)).toBe(true);
  });

  it('type each column as the mirror holds it: its SQL name, and NULL only where the mirror allows it', () => {
    for (const table of tables) {
      const info = new Map(
        (
          mirror.sqlite.prepare(`PRAGMA table_info(${getTableName(table)})`).all() as Array<{
            name: string;
            notnull: number;
            pk: number;
          }>
        ).map((c) => [c.name, c]),
      );
      for (const column of Object.values(getTableColumns(table))) {
        const live = info.get(column.name);
        expect(live, `${getTableName(table)}.${column.name}`).toBeDefined();
        // A primary key is NOT NULL whether or not its column says so.
        expect(column.notNull || column.primary, `${getTableName(table)}.${column.name} nullability`).toBe(
          live!.notnull === 1 || live!.pk > 0,
        );
      }
    }
  });

  it('read and write through the query layer as typed rows', async () => {
    const id = await mirror.queries
      .insertInto('check_runs')
      .values({
        status: 'running',
        started_at: '2026-11-25T00:00:00.000Z',
        started_at_ms: 1,
        options_json: '{}',
        findings_version: 1,
      })
      .returning('check_run_id')
      .executeTakeFirstOrThrow();
    const row = await mirror.queries
      .selectFrom('check_runs')
      .select(['status', 'started_at_ms', 'verdict'])
      .where('check_run_id', '=', id.check_run_id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'running', started_at_ms: 1, verdict: null });
  });
});
