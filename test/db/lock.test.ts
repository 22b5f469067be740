import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/db/sqlite/lock.js';
import { openMirrorLocked } from '../../src/db/mirror.js';
import { LockHeldError, MirrorError } from '../../src/errors.js';

/** The built lock module (npm test builds it first), for a holder in another process. */
const LOCK_MODULE = fileURLToPath(new URL('../../dist/db/sqlite/lock.js', import.meta.url));

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-lock-'));
  db = join(dir, 'ledger.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A process that takes the lock as `sync`, says so, and waits to be killed. */
async function holderProcess() {
  const script = `const { acquireLock } = await import(${JSON.stringify(LOCK_MODULE)}); acquireLock(${JSON.stringify(db)}, 'sync'); console.log('held'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { pid: child.pid, kill: async () => (child.kill('SIGKILL'), await exited) };
}

describe("the mirror's lock", () => {
  it('lets one holder at a time have the mirror, names it to a second, and is free again once released', () => {
    const first = acquireLock(db, 'run');
    expect(JSON.parse(readFileSync(`${db}.lock`, 'utf8'))).toEqual(first.holder);
    expect(() => acquireLock(db, 'check')).toThrow(
      new LockHeldError(
        `another ledger-recon run holds the mirror ${db} (process ${process.pid}, started ${first.holder.startedAt}); wait for it to finish`,
      ),
    );
    first.release();
    expect(existsSync(`${db}.lock`)).toBe(false);
    acquireLock(db, 'check').release();
  });

  it('is free the moment a holder is killed with SIGKILL, though its name is left behind', async () => {
    const holder = await holderProcess();
    try {
      expect(() => acquireLock(db, 'sync')).toThrow(
        /another ledger-recon sync holds the mirror .* \(process \d+, started /,
      );
      expect(() => acquireLock(db, 'sync')).toThrow(`(process ${holder.pid},`);
    } finally {
      await holder.kill();
    }
    expect(existsSync(`${db}.lock`)).toBe(true);
    const lock = acquireLock(db, 'sync');
    expect(JSON.parse(readFileSync(`${db}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, command: 'sync' });
    lock.release();
  });

  it('says only that another process holds the mirror in the instant before the holder has written its name', () => {
    const holder = new Database(`${db}.lock.sqlite`);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      expect(() => acquireLock(db, 'sync')).toThrow(
        new LockHeldError(`another ledger-recon process holds the mirror ${db}; wait for it to finish`),
      );
    } finally {
      holder.close();
    }
  });

  it('is taken before the mirror is opened, and given back when the mirror cannot be opened', () => {
    // SQLite's header, then nothing SQLite can read: past the check of what the file is, failing as it is opened.
    writeFileSync(db, `SQLite format 3\0${'not a database'.repeat(10)}`);
    expect(() => openMirrorLocked(db, 'check')).toThrow(
      new MirrorError(`the mirror ${db} cannot be opened: file is not a database`),
    );
    acquireLock(db, 'check').release();
    rmSync(db);
    const { mirror, lock } = openMirrorLocked(db, 'check');
    expect(() => acquireLock(db, 'sync')).toThrow(LockHeldError);
    mirror.close();
    lock.release();
  });

  it('is not held by a left-behind name whose process id now belongs to another live process (a reboot)', () => {
    writeFileSync(
      `${db}.lock`,
      JSON.stringify({ pid: process.ppid, command: 'run', startedAt: '2026-11-21T02:30:00.000Z' }),
    );
    const lock = acquireLock(db, 'run');
    expect(lock.holder.pid).toBe(process.pid);
    lock.release();
  });
});
