/**
 * vitest's global setup: one PostgreSQL server for the whole run (its URL given to the tests as
 * `postgresUrl`), stopped and removed at the end. Where PostgreSQL is not installed the
 * PostgreSQL half is skipped with one line naming the package; under CI=true that fails instead.
 */
import type { TestProject } from 'vitest/node';
import { postgresMissing, startPostgres, type TestServer } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test server's database URL (no schema), or '' where PostgreSQL is not installed. */
    postgresUrl: string;
  }
}

/** The run's one server, shared by the projects' setups (vitest calls this once per project and once for the root). */
interface Shared {
  server: Promise<TestServer>;
  users: number;
}
const SHARED = Symbol.for('ledger-recon.test-postgres');
const registry = globalThis as { [SHARED]?: Shared };

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  // The quick tier runs no PostgreSQL: its files on both backends run their SQLite half.
  if (project.name === 'quick') {
    project.provide('postgresUrl', '');
    return undefined;
  }
  const missing = postgresMissing();
  if (missing !== undefined) {
    if (process.env['CI'] === 'true')
      throw new Error(`${missing}; under CI=true it must run: install postgresql (.ci/run does)`);
    if (project.name === 'sqlite') process.stderr.write(`ledger-recon tests: ${missing}\n`);
    project.provide('postgresUrl', '');
    return undefined;
  }
  const shared = (registry[SHARED] ??= { server: startPostgres(), users: 0 });
  shared.users += 1;
  const server = await shared.server;
  project.provide('postgresUrl', server?.url ?? '');
  return () => {
    shared.users -= 1;
    if (shared.users === 0) {
      server.stop();
      delete registry[SHARED];
    }
  };
}
