/**
 * vitest's global setup: one PostgreSQL server for the whole run (its URL given to the tests as
 * `postgresUrl`), stopped and removed at the end. Where PostgreSQL is not installed the
 * PostgreSQL half is skipped with one line naming the package; under CI=true that fails instead.
 */
import type { TestProject } from 'vitest/node';
import { postgresMissing, startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test server's database URL (no schema), or '' where PostgreSQL is not installed. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const missing = postgresMissing();
  if (missing !== undefined) {
    if (process.env['CI'] === 'true')
      throw new Error(`${missing}; under CI=true it must run: install postgresql (.ci/run does)`);
    process.stderr.write(`ledger-recon tests: ${missing}\n`);
    project.provide('postgresUrl', '');
    return undefined;
  }
  const server = await startPostgres();
  project.provide('postgresUrl', server.url);
  return () => server.stop();
}
