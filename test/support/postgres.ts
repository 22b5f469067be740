/**
 * A real PostgreSQL server for the tests: Debian's `postgresql` package, started in a temporary
 * folder (initdb and pg_ctl, as the `postgres` user when running as root) on 127.0.0.1 and a
 * free port, stopped and removed after. test/support/postgres-setup.ts starts one for the whole
 * run; each test makes its own schema (a mirror) and drops it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The folder holding initdb and pg_ctl: on the PATH, or Debian's versioned one. */
export function postgresBin(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return join(onPath, '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Why the PostgreSQL half is skipped here, in one line; undefined when a server can be started. */
export function postgresMissing(): string | undefined {
  return postgresBin() === undefined
    ? 'PostgreSQL is not installed (Debian package postgresql): the PostgreSQL half of the tests is skipped'
    : undefined;
}

/** Runs one of PostgreSQL's programs in `bin`, as the `postgres` user when this process is root (initdb refuses root). */
export function postgresProgram(bin: string): (command: string, args: string[]) => void {
  const asRoot = process.getuid?.() === 0;
  return (command, args) => {
    const file = join(bin, command);
    if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe' });
    else execFileSync(file, args, { stdio: 'pipe' });
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface TestServer {
  /** The database's URL, without a schema. */
  url: string;
  /** Stops the server at once (as a crash would), keeping its data. */
  halt(): void;
  /** Starts it again on the same port. */
  resume(): void;
  stop(): void;
}

/** Starts a server in a new temporary folder. */
export async function startPostgres(): Promise<TestServer> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error(postgresMissing());
  const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-pg-'));
  const asRoot = process.getuid?.() === 0;
  const as = postgresProgram(bin);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=128MB`;
  const start = () => as('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', 'start']);
  const halt = () => as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = (): void => {
    running.delete(stop);
    try {
      halt();
    } catch {
      // Halted already.
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  running.add(stop);
  stopWithTheProcess();
  return { url, halt, resume: start, stop };
}

/** The servers this process started and has not stopped yet. */
const running = new Set<() => void>();
let hooked = false;

/**
 * Stops every server this process started when it ends, however it ends short of SIGKILL: a
 * Ctrl-C on `npm test` ends vitest without its global teardown, which left the servers running.
 */
function stopWithTheProcess(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const stop of [...running]) stop();
  });
}

/** A new schema's mirror URL on the server, and its removal (a test cleans up after itself). */
export function newSchema(serverUrl: string): { url: string; schema: string; drop: () => Promise<void> } {
  const schema = `t_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  return {
    url: `${serverUrl}?schema=${schema}`,
    schema,
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
