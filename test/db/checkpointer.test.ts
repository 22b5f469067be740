import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../src/db/sqlite/checkpointer.js';
import { openMirror, type SqliteMirror as Mirror } from '../../src/db/mirror.js';
import { deadlineIn } from '../support/test-clock.js';

let dir: string;
let mirror: Mirror;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-checkpointer-'));
  mirror = openMirror(join(dir, 'ledger.db'));
});
afterEach(() => {
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Commits about 2 MB of rows to a scratch table: pages that reach the WAL first. */
function commitRows(): void {
  mirror.sqlite.exec('CREATE TABLE IF NOT EXISTS scratch (id INTEGER PRIMARY KEY, body TEXT)');
  const insert = mirror.sqlite.prepare('INSERT INTO scratch (body) VALUES (?)');
  mirror.sqlite.transaction(() => {
    for (let i = 0; i < 2_000; i += 1) insert.run(`row ${i} `.padEnd(1_000, '.'));
  })();
}

const fileSize = (suffix = ''): number => statSync(`${mirror.path}${suffix}`).size;

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const late = deadlineIn(timeoutMs);
  while (!condition()) {
    if (late()) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the checkpointing thread', () => {
  it('copies committed pages from the WAL into the database file while the writer leaves checkpoints alone', async () => {
    const autocheckpoint = mirror.sqlite.pragma('wal_autocheckpoint', { simple: true });
    const checkpointer = startCheckpointer(mirror);
    expect(mirror.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = fileSize();
    commitRows();
    // The writer's commit went to the WAL only; the thread's checkpoint grows the file.
    await until(() => fileSize() > before + 1_000_000);
    await checkpointer.stop();
    expect(mirror.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(autocheckpoint);
    expect(mirror.sqlite.prepare('SELECT COUNT(*) FROM scratch').pluck().get()).toBe(2_000);
    expect(mirror.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('keeps the WAL file near its restart size however much the writer commits', async () => {
    const checkpointer = startCheckpointer(mirror, 4 * 1024 * 1024);
    for (let round = 0; round < 12; round += 1) {
      commitRows();
      checkpointer.afterCommit();
    }
    // About 24 MB committed; without the restart the WAL would hold all of it.
    expect(fileSize('-wal')).toBeLessThan(10 * 1024 * 1024);
    await checkpointer.stop();
    expect(mirror.sqlite.prepare('SELECT COUNT(*) FROM scratch').pluck().get()).toBe(24_000);
  });

  it('gives checkpoints back to the writer when the thread cannot open the mirror', async () => {
    const autocheckpoint = mirror.sqlite.pragma('wal_autocheckpoint', { simple: true });
    // The writer's connection keeps the file it opened; the thread, opening by path, finds none.
    renameSync(mirror.path, `${mirror.path}.moved`);
    const checkpointer = startCheckpointer(mirror);
    await until(() => mirror.sqlite.pragma('wal_autocheckpoint', { simple: true }) === autocheckpoint);
    await checkpointer.stop();
    renameSync(`${mirror.path}.moved`, mirror.path);
  });

  it('does nothing for a mirror in memory, which has no WAL', async () => {
    const memory = openMirror(':memory:');
    const autocheckpoint = memory.sqlite.pragma('wal_autocheckpoint', { simple: true });
    const checkpointer = startCheckpointer(memory);
    expect(memory.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(autocheckpoint);
    await checkpointer.stop();
    memory.close();
  });
});
