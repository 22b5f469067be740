import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Checkpointer } from '../types.js';
import type Database from 'better-sqlite3';

export type { Checkpointer } from '../types.js';

/** How often the checkpointing thread copies what the WAL holds into the database file. */
const INTERVAL_MS = 100;
/** Past this size the writer lets the WAL start again from its beginning (see {@link Checkpointer.afterCommit}). */
const WAL_RESTART_BYTES = 256 * 1024 * 1024;

/**
 * The thread's whole program (CommonJS, so that it runs the same from src/ under the tests
 * and from dist/): its own connection, a passive checkpoint every interval until told to stop.
 * A passive checkpoint never waits for a lock and never blocks the writer; one that finds
 * another checkpoint running is skipped.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const db = new Database(workerData.path, { fileMustExist: true });
let timer;
const tick = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { if (error.code !== 'SQLITE_BUSY') throw error; }
  timer = setTimeout(tick, workerData.intervalMs);
};
parentPort.on('message', () => { clearTimeout(timer); db.close(); parentPort.close(); });
tick();
`;

/**
 * Moves the WAL's checkpoints off the writing thread while a sync runs. A checkpoint copies
 * every page the WAL holds into the database file and fsyncs it; done by the writer, at each
 * commit that crosses wal_autocheckpoint, it stalls the sync for the copy and the disk (a
 * first sync writes about 1 GB twice). On a second thread it overlaps the sync's own work.
 * Committed data stays safe either way: the WAL keeps every frame until it is copied.
 */
export function startCheckpointer(
  mirror: { path: string; sqlite: Database.Database },
  walRestartBytes = WAL_RESTART_BYTES,
): Checkpointer {
  const { sqlite } = mirror;
  const inWal = mirror.path !== ':memory:' && sqlite.pragma('journal_mode', { simple: true }) === 'wal';
  const none: Checkpointer = { afterCommit: () => undefined, stop: async () => undefined };
  if (!inWal) return none;
  const autocheckpoint = sqlite.pragma('wal_autocheckpoint', { simple: true }) as number;
  const restore = (): void => {
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  };
  // The thread failing, or not starting, costs speed, never data: the writer keeps (or takes
  // back) its own checkpoints.
  let worker: Worker;
  try {
    const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(THREAD, {
      eval: true,
      workerData: { path: mirror.path, intervalMs: INTERVAL_MS, betterSqlite3 },
    });
  } catch {
    return none;
  }
  const exited = new Promise<void>((resolve) => {
    worker.once('error', restore);
    worker.once('exit', () => resolve());
  });
  sqlite.pragma('wal_autocheckpoint = 0');
  const walPath = `${mirror.path}-wal`;
  return {
    afterCommit() {
      // A checkpoint already running in the thread makes this one a no-op: next commit, then.
      if ((statSync(walPath, { throwIfNoEntry: false })?.size ?? 0) > walRestartBytes)
        sqlite.pragma('wal_checkpoint(PASSIVE)');
    },
    async stop() {
      worker.postMessage('stop');
      await exited;
      restore();
    },
  };
}
