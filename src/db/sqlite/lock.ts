import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { FileSystemError, LockHeldError } from '../../errors.js';
import { ensureMirrorFolder, EXCLUSIVE, temporaryBeside } from '../../paths.js';
import type { LockHolder } from '../types.js';

export type { LockHolder } from '../types.js';

export interface MirrorLock {
  holder: LockHolder;
  release(): void;
}

/**
 * Takes the mirror's lock: one sync, check, run or accept at a time per mirror.
 *
 * The lock itself is the operating system's: an exclusive SQLite transaction held open on
 * `<db>.lock.sqlite` (an empty database that stays beside the mirror). The system releases it
 * when its holder exits in any way, so a killed holder never leaves a stale lock behind and a
 * reused process id after a reboot cannot block the next night. `<db>.lock` says who holds
 * it (process id, command, start time) for the message a second process prints; it is
 * written whole (a rename) once the lock is taken and removed before it is released.
 * @throws LockHeldError naming the holder's process id, command and start time.
 */
export function acquireLock(dbPath: string, command: string): MirrorLock {
  const holderFile = `${dbPath}.lock`;
  const holder: LockHolder = { pid: process.pid, command, startedAt: new Date().toISOString() };
  ensureMirrorFolder(dbPath);
  // No busy wait: a second process is told at once who holds the mirror.
  let handle: Database.Database;
  try {
    handle = new Database(`${dbPath}.lock.sqlite`, { timeout: 0 });
  } catch (error) {
    throw new FileSystemError(
      `--db ${dbPath}: no file can be made beside it (${(error as Error).message}): give --db a file in a folder you can write`,
    );
  }
  try {
    handle.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    handle.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new LockHeldError(heldMessage(dbPath, readHolder(holderFile)));
  }
  try {
    const written = temporaryBeside(holderFile, 'tmp');
    writeFileSync(written, JSON.stringify(holder), { flag: EXCLUSIVE });
    renameSync(written, holderFile);
  } catch (error) {
    handle.close(); // no name, no lock: a later run must not find it held by this process
    throw error;
  }
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    try {
      unlinkSync(holderFile);
    } catch {
      // already gone: nothing to remove
    }
    handle.close(); // ends the transaction: the lock is free
  };
  // A process that ends while holding it (a close stopped at once by a signal) takes its name away too.
  process.on('exit', release);
  return { holder, release };
}

function heldMessage(dbPath: string, holder: LockHolder | undefined): string {
  // The holder writes its name just after taking the lock: in that instant it is not known yet.
  if (!holder) return `another ledger-recon process holds the mirror ${dbPath}; wait for it to finish`;
  return `another ledger-recon ${holder.command} holds the mirror ${dbPath} (process ${holder.pid}, started ${holder.startedAt}); wait for it to finish`;
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number')
      return { pid: parsed.pid, command: parsed.command ?? 'command', startedAt: parsed.startedAt ?? 'unknown' };
  } catch {
    // not there (yet), or not ours
  }
  return undefined;
}

/**
 * Who holds the mirror's lock now, read without taking it (for `history`): the holder its
 * file names, if that process is alive. A holder killed outright leaves its file behind, and
 * is not alive.
 */
export function lockHolder(dbPath: string): LockHolder | undefined {
  const holder = readHolder(`${dbPath}.lock`);
  if (!holder) return undefined;
  try {
    process.kill(holder.pid, 0);
    return holder;
  } catch {
    return undefined;
  }
}
