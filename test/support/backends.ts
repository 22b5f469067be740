/**
 * The two databases a mirror lives in, for tests that run on both: a SQLite file in a new
 * folder, and a new schema on the run's PostgreSQL server (test/support/postgres-setup.ts).
 * Each opening is removed again by its cleanup.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { openMirror, type Mirror } from '../../src/db/mirror.js';
import { openPgMirror } from '../../src/db/pg/open.js';
import { newSchema } from './postgres.js';

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Whether it can run here (PostgreSQL installed). */
  available: boolean;
  /** A new, empty mirror: where it lives (a path or a URL) and its removal. */
  location(): { db: string; cleanup: () => Promise<void> };
  /** Opens a new, empty, migrated mirror. */
  open(): Promise<{ mirror: Mirror; db: string; cleanup: () => Promise<void> }>;
}

const sqlite: Backend = {
  name: 'sqlite',
  available: true,
  location() {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-backend-'));
    return { db: join(dir, 'ledger.db'), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
  async open() {
    const { db, cleanup } = this.location();
    const mirror = openMirror(db);
    return { mirror, db, cleanup: async () => (await mirror.close(), await cleanup()) };
  },
};

const postgres: Backend = {
  name: 'postgres',
  get available() {
    return inject('postgresUrl') !== '';
  },
  location() {
    const { url, drop } = newSchema(inject('postgresUrl'));
    return { db: url, cleanup: drop };
  },
  async open() {
    const { db, cleanup } = this.location();
    const mirror = await openPgMirror(db, { command: 'test' });
    return { mirror, db, cleanup: async () => (await mirror.close(), await cleanup()) };
  },
};

/** Both backends; a test suite over them skips PostgreSQL where it is not installed. */
export const BACKENDS: readonly Backend[] = [sqlite, postgres];
