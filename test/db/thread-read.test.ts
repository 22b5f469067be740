import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMirror, type SqliteMirror } from '../../src/db/mirror.js';
import { runs } from '../support/property.js';

let dir: string;
let mirror: SqliteMirror;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-thread-read-'));
  mirror = openMirror(join(dir, 'ledger.db'));
  mirror.sqlite.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, label TEXT, amount INTEGER, note TEXT)');
});
afterEach(async () => {
  await mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

function fill(rows: number): void {
  const insert = mirror.sqlite.prepare('INSERT INTO scratch (label, amount, note) VALUES (?, ?, ?)');
  mirror.sqlite.transaction(() => {
    for (let i = 0; i < rows; i += 1) insert.run(`row ${i}`, i * 7 - 3, i % 3 === 0 ? null : `n${i}`);
  })();
}

async function collect<T>(batches: AsyncIterable<T[]>): Promise<T[][]> {
  const all: T[][] = [];
  for await (const batch of batches) all.push(batch);
  return all;
}

const SQL = 'SELECT id, label, amount, note FROM scratch WHERE amount >= @from ORDER BY id';

describe('a read stepped on another thread', () => {
  it('hands over the very batches the read here gives, for any number of rows and batch size', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2_500 }), fc.integer({ min: 1, max: 700 }), async (rows, size) => {
        mirror.sqlite.exec('DELETE FROM scratch');
        fill(rows);
        const here = await collect(mirror.connection.readRaw(SQL).batches([{ from: 10 }], size));
        const there = await collect(mirror.connection.readRaw(SQL, { onAThread: true }).batches([{ from: 10 }], size));
        expect(there).toEqual(here);
      }),
      runs(12),
    );
  });

  it('lets go of its thread and the file when the reader stops early', async () => {
    fill(5_000);
    const batches = mirror.connection
      .readRaw<[number, string, number, string | null]>(SQL, { onAThread: true })
      .batches([{ from: 0 }], 100);
    let seen = 0;
    for await (const batch of batches) {
      seen += batch.length;
      if (seen >= 300) break;
    }
    expect(seen).toBe(300);
    // The thread's connection is closed: the writer checkpoints the whole WAL and truncates it.
    const [checkpoint] = mirror.sqlite.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    expect(checkpoint?.busy).toBe(0);
  });

  it('tells a failure the thread meets as the reader’s own error', async () => {
    fill(10);
    // Bound to a value SQLite cannot take: the thread's statement fails on its first step.
    const batches = mirror.connection.readRaw(SQL, { onAThread: true }).batches([{ from: 1n << 70n }], 100);
    await expect(collect(batches)).rejects.toThrow();
  });

  it('reads a mirror in memory on the calling thread: another connection could not open it', async () => {
    const memory = openMirror(':memory:');
    try {
      memory.sqlite.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, label TEXT, amount INTEGER, note TEXT)');
      memory.sqlite.prepare("INSERT INTO scratch (label, amount, note) VALUES ('a', 20, NULL)").run();
      expect(await collect(memory.connection.readRaw(SQL, { onAThread: true }).batches([{ from: 10 }], 10))).toEqual([
        [[1, 'a', 20, null]],
      ]);
    } finally {
      await memory.close();
    }
  });
});
