/**
 * The PostgreSQL server's disk fills during a sync: the mirror's tables live on a tablespace of
 * 2 MB (a tmpfs of its own, on a server of its own). The sync ends in one line naming the server's
 * full disk and the fix (never "unexpected error", never the cause lost behind "current
 * transaction is aborted"), exit 2; doctor says the same and never advises "a new file".
 */
import { execFileSync } from 'node:child_process';
import { chownSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { examine } from '../../src/app/doctor.js';
import { cleanEnv, runCli, simulatorEnv } from '../support/cli.js';
import { canMount, mountTmpfs, type Mount } from '../support/mounts.js';
import { postgresMissing, startPostgres, type TestServer } from '../support/postgres.js';

let server: TestServer | undefined;
let mount: Mount | null = null;
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  server?.stop();
  server = undefined;
  mount?.unmount();
  mount = null;
});

describe.skipIf(postgresMissing() !== undefined || !canMount || process.getuid?.() !== 0)(
  "the PostgreSQL server's disk full",
  () => {
    it('ends the sync in one line naming the full disk and the fix, exit 2; doctor says so too', async () => {
      server = await startPostgres();
      mount = mountTmpfs('2m');
      if (!mount) return;
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      // The tmpfs is the server's alone: its user owns the mount and the tablespace's folder.
      chownSync(mount.path, uid, gid);
      const space = join(mount.path, 'space');
      execFileSync('mkdir', [space]);
      chownSync(space, uid, gid);
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      try {
        await admin.query(`CREATE TABLESPACE small LOCATION '${space}'`);
        await admin.query('ALTER DATABASE postgres SET default_tablespace = small');
      } finally {
        await admin.end();
      }
      sim = await startSimulator({ size: 'small', seed: 71 });
      const db = `${server.url}?schema=merchant_full`;
      const sync = await runCli(['sync', '--db', db], simulatorEnv(sim));
      expect(sync.status).toBe(2);
      // The walks' summary lines, then the one line of the failure.
      const failures = sync.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('ledger-recon:'));
      expect(failures, sync.stderr).toHaveLength(1);
      expect(sync.stderr).not.toMatch(/unexpected error|current transaction is aborted/);
      expect(failures[0]).toMatch(
        /^ledger-recon: the PostgreSQL server holding the mirror postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=merchant_full has no disk space left \(53100: .*\): nothing half-written stays .*; free space on the server's disk \(or move the schema's tablespace to a larger one\), then run again: it resumes from what was committed$/,
      );
      const doctor = await examine({ db, env: cleanEnv() });
      expect(JSON.stringify(doctor)).not.toMatch(/new file/);
      // A server that cannot be reached: doctor names it, and never advises a new file.
      server.halt();
      const away = await examine({ db, env: cleanEnv() });
      const line = away.find((l) => l.subject.includes('merchant_full'));
      expect(line).toBeDefined();
      expect(line?.text).not.toMatch(/new file/);
    }, 120_000);
  },
);
