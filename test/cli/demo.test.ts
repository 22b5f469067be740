/**
 * The demo's defaults: its mirror and reports where the default locations put them (here under
 * LEDGER_RECON_HOME), the PostgreSQL demo's workbook beside the SQLite demo's, never over it.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../support/cli.js';
import { mirrorAt, ON_POSTGRES } from '../support/test-db.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'ledger-recon-demo-'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

it('writes its reports under the default locations, a PostgreSQL demo beside the SQLite one', async () => {
  const env = cleanEnv({ LEDGER_RECON_HOME: home });
  // The SQLite demo in its default place; on PostgreSQL, the demo in a schema of the test's own.
  const sqlite = await runCli(['demo'], env);
  expect(sqlite.status, sqlite.stderr).toBe(0);
  expect(existsSync(join(home, 'data', 'demo', 'ledger.db'))).toBe(true);
  const workbook = (folder: string) => readdirSync(join(home, 'reports', folder)).filter((f) => f.endsWith('.xlsx'));
  expect(workbook('demo')).toHaveLength(1);
  if (!ON_POSTGRES) return;
  const postgres = await runCli(['demo', '--db', mirrorAt(home, 'demo')], env);
  expect(postgres.status, postgres.stderr).toBe(0);
  expect(postgres.stdout).toContain(join(home, 'reports', 'demo-postgres'));
  expect(workbook('demo-postgres')).toHaveLength(1);
  expect(workbook('demo')).toHaveLength(1);
}, 180_000);
