/**
 * A long read stepped on a second thread. better-sqlite3 steps a statement on the thread that
 * asks for its rows: a report walking 3,000,000 entries spent a third of its time there while
 * the machine's second core waited. Here a worker thread opens the mirror's file on its own
 * read-only connection, steps the statement and hands its rows over a batch at a time, a few
 * batches ahead of the reader, so that reading overlaps what the caller does with the rows.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { BATCH_ROWS, type Read } from '../connection.js';

/** Batches the thread reads ahead of the caller: enough to keep both threads busy, few enough to hold little. */
const AHEAD = 4;

/**
 * The thread's whole program (CommonJS, so that it runs the same from src/ under the tests and
 * from dist/, as the checkpointer's does): its own connection, the statement stepped a batch
 * per credit, each batch's values in one flat array; a null after the last batch; told 'stop',
 * it lets go of the statement and the file.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('query_only = 1');
const statement = db.prepare(workerData.sql).raw(true);
const width = statement.columns().length;
const rows = statement.iterate(...workerData.params);
let credit = workerData.ahead;
let done = false;
const finish = () => { if (!done) { done = true; rows.return(); } db.close(); parentPort.close(); };
const pump = () => {
  while (credit > 0 && !done) {
    const values = [];
    let count = 0;
    for (let next = rows.next(); !next.done; next = rows.next()) {
      for (const value of next.value) values.push(value);
      if (++count === workerData.size) break;
    }
    credit -= 1;
    if (count > 0) parentPort.postMessage({ width, values });
    if (count < workerData.size) { done = true; parentPort.postMessage(null); }
  }
};
parentPort.on('message', (message) => { if (message === 'stop') finish(); else { credit += 1; pump(); } });
pump();
`;

/**
 * `here` (a read of `sql` returning arrays, over the mirror `sqlite`) with its batches stepped
 * on a second thread, as {@link Read.batches} gives them; its other reads stay here. A mirror
 * in memory has no file another connection could open: its rows are stepped here.
 */
export function threadRead<Row extends unknown[]>(sqlite: Database.Database, sql: string, here: Read<Row>): Read<Row> {
  if (sqlite.memory) return here;
  return {
    get: (...params) => here.get(...params),
    all: (...params) => here.all(...params),
    batches: (params = [], size = BATCH_ROWS) => batchesOnAThread<Row>(sqlite.name, sql, params, size),
  };
}

async function* batchesOnAThread<Row>(
  path: string,
  sql: string,
  params: readonly unknown[],
  size: number,
): AsyncGenerator<Row[]> {
  const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, {
    eval: true,
    workerData: { betterSqlite3, path, sql, params, size, ahead: AHEAD },
  });
  // What the thread handed over and the caller has not taken yet; then how it ended.
  const arrived: Array<Row[] | null> = [];
  let failure: Error | undefined;
  let exited = false;
  let wake: (() => void) | undefined;
  const woken = () => {
    wake?.();
    wake = undefined;
  };
  // A batch crosses as one flat array of its values: cloned as one array, not one per row.
  worker.on('message', (batch: { width: number; values: unknown[] } | null) => {
    arrived.push(batch === null ? null : unflattened<Row>(batch.width, batch.values));
    woken();
  });
  worker.once('error', (error) => {
    failure = error;
    woken();
  });
  worker.once('exit', () => {
    exited = true;
    woken();
  });
  try {
    for (;;) {
      while (arrived.length === 0 && failure === undefined && !exited) await new Promise<void>((r) => (wake = r));
      const batch = arrived.shift();
      if (batch === undefined) {
        if (failure) throw failure;
        throw new Error(`the thread reading ${path} stopped before its last row`);
      }
      if (batch === null) return;
      worker.postMessage('more');
      yield batch;
    }
  } finally {
    // Read to the end, or left early (a failed sheet): the thread lets go of the file either way.
    if (!exited) {
      worker.postMessage('stop');
      await new Promise<void>((resolve) => (exited ? resolve() : worker.once('exit', () => resolve())));
    }
  }
}

/** A flat array's values as rows of `width`. */
function unflattened<Row>(width: number, values: unknown[]): Row[] {
  const rows: Row[] = [];
  for (let at = 0; at < values.length; at += width) rows.push(values.slice(at, at + width) as Row);
  return rows;
}
