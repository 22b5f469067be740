import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { LockHeldError } from '../errors.js';

export interface LockHolder {
  pid: number;
  command: string;
  startedAt: string;
}

export interface MirrorLock {
  holder: LockHolder;
  release(): void;
}

/**
 * Takes the mirror's lock (`<db>.lock`, created exclusively): one sync, check or run at a
 * time per mirror. A lock left by a process that no longer exists is taken over.
 * @throws LockHeldError naming the holder's process id, command and start time.
 */
export function acquireLock(dbPath: string, command: string): MirrorLock {
  const file = `${dbPath}.lock`;
  const holder: LockHolder = { pid: process.pid, command, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(file, JSON.stringify(holder), { flag: 'wx' });
      let released = false;
      return {
        holder,
        release: () => {
          if (released) return;
          released = true;
          try {
            unlinkSync(file);
          } catch {
            // already gone: nothing to release
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = readHolder(file);
    if (current && isAlive(current.pid)) {
      throw new LockHeldError(
        `another ledger-recon ${current.command} holds the mirror ${dbPath} (process ${current.pid}, started ${current.startedAt}); wait for it to finish`,
      );
    }
    // The holder is gone (killed, or the machine restarted): its lock is stale.
    try {
      unlinkSync(file);
    } catch {
      // someone else took it over first; try again
    }
  }
  throw new LockHeldError(`could not take the lock ${file}: it keeps changing hands`);
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number') return { pid: parsed.pid, command: parsed.command ?? 'command', startedAt: parsed.startedAt ?? 'unknown' };
  } catch {
    // unreadable or half-written: treat as stale
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
