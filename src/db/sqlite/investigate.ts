/**
 * What an investigator asks of a SQLite mirror directly: one read-only statement of their own,
 * bounded in rows, size and time. (A second backend answers the same through its own
 * Mirror.readOnlyStatement.)
 *
 * better-sqlite3 steps a statement on the thread that asks, and nothing can interrupt it there
 * (it exposes no sqlite3_interrupt; a worker thread cannot be stopped inside native code). So the
 * statement is checked here (one statement, a read) and run in a child process of its own, on a
 * read-only connection, its rows streamed back a line each: a runaway statement (a recursive CTE
 * without end, a cross join sorted) is ended by killing that process when its time is up, and
 * its memory goes with it.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import type Database from 'better-sqlite3';
import { MirrorError } from '../../errors.js';
import {
  boundCrossed,
  DEFAULT_STATEMENT_BOUNDS,
  SEVERAL_STATEMENTS,
  type StatementBounds,
  type StatementResult,
} from '../types.js';

/**
 * The child's whole program (CommonJS, so that it runs the same from src/ under the tests and
 * from dist/): the statement from stdin, its columns as the first line, then each row as a JSON
 * array (an integer as {"b":"…"}, a blob as {"x":"hex"}), then how it ended. It stops itself at
 * the row and size bounds; its parent ends it at the time bound.
 */
const CHILD = `
const Database = require(process.env.LEDGER_RECON_SQLITE_MODULE);
const maxRows = Number(process.env.LEDGER_RECON_MAX_ROWS);
const maxBytes = Number(process.env.LEDGER_RECON_MAX_BYTES);
const out = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { text += chunk; });
process.stdin.on('end', () => {
  try {
    const db = new Database(process.env.LEDGER_RECON_DB, { readonly: true, fileMustExist: true });
    db.pragma('query_only = 1');
    const statement = db.prepare(text).safeIntegers(true).raw(true);
    out({ columns: statement.columns().map((c) => c.name) });
    let rows = 0;
    let bytes = 0;
    let lines = [];
    for (const row of statement.iterate()) {
      if (++rows > maxRows) { flush(); out({ end: 'maxRows' }); return; }
      const encoded = row.map((v) => typeof v === 'bigint' ? { b: v.toString() } : Buffer.isBuffer(v) ? { x: v.toString('hex') } : v);
      const line = JSON.stringify(encoded);
      bytes += line.length;
      if (bytes > maxBytes) { flush(); out({ end: 'maxBytes' }); return; }
      lines.push(line);
      if (lines.length === 1000) flush();
    }
    flush();
    out({ end: 'done' });
    function flush() { if (lines.length > 0) process.stdout.write(lines.join('\\n') + '\\n'); lines = []; }
  } catch (error) {
    // A value past what one string can hold is past the size bound too.
    out(error instanceof RangeError ? { end: 'maxBytes' } : { error: String(error && error.message) });
  }
});
`;

/**
 * Runs one statement that only reads, within `bounds`. @throws MirrorError when it does not
 * parse, is several statements, would write, fails, or crosses a bound.
 */
export async function runReadOnlyStatement(
  sqlite: Database.Database,
  text: string,
  bounds: StatementBounds = DEFAULT_STATEMENT_BOUNDS,
): Promise<StatementResult> {
  let prepared;
  try {
    prepared = sqlite.prepare(text);
  } catch (error) {
    if (/more than one statement/.test((error as Error).message)) throw new MirrorError(SEVERAL_STATEMENTS);
    throw new MirrorError(`the statement was refused: ${(error as Error).message}`);
  }
  if (!prepared.reader || !prepared.readonly)
    throw new MirrorError('this statement would change the mirror, and `sql` only reads: it was not run');
  // A mirror in memory (a test's) has no file another process could open: its rows are read here.
  if (sqlite.memory) return { columns: prepared.columns().map((c) => c.name), rows: rowsHere(prepared) };
  return inAChild(sqlite.name, text, bounds);
}

function rowsHere(prepared: Database.Statement): Record<string, unknown>[] {
  try {
    return prepared.safeIntegers(true).all() as Record<string, unknown>[];
  } catch (error) {
    throw new MirrorError(`the statement failed: ${(error as Error).message}`);
  }
}

/** The statement run in a child process, as {@link CHILD} runs it; killed when its time is up. */
function inAChild(path: string, text: string, bounds: StatementBounds): Promise<StatementResult> {
  const child = spawn(process.execPath, ['-e', CHILD], {
    env: {
      ...process.env,
      LEDGER_RECON_SQLITE_MODULE: createRequire(import.meta.url).resolve('better-sqlite3'),
      LEDGER_RECON_DB: path,
      LEDGER_RECON_MAX_ROWS: String(bounds.maxRows),
      LEDGER_RECON_MAX_BYTES: String(bounds.maxBytes),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(text);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  return new Promise<StatementResult>((resolve, reject) => {
    let columns: string[] = [];
    const rows: Record<string, unknown>[] = [];
    let ended: { end?: keyof StatementBounds | 'done'; error?: string } | undefined;
    const timer = setTimeout(() => {
      ended = { end: 'timeoutMs' };
      child.kill('SIGKILL');
    }, bounds.timeoutMs);
    timer.unref();
    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      const value = JSON.parse(line) as unknown;
      if (Array.isArray(value)) rows.push(rowOf(columns, value));
      else if (ended === undefined) {
        const message = value as { columns?: string[]; end?: keyof StatementBounds | 'done'; error?: string };
        if (message.columns) columns = message.columns;
        else ended = message;
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new MirrorError(`the statement could not be run: ${error.message}`));
    });
    child.once('close', () => {
      clearTimeout(timer);
      if (ended?.end === 'done') resolve({ columns, rows });
      else if (ended?.end !== undefined) reject(boundCrossed(ended.end, bounds));
      else
        reject(
          new MirrorError(
            `the statement failed: ${ended?.error ?? (stderr.trim().split('\n')[0] || 'its process ended')}`,
          ),
        );
    });
  });
}

/** A row as the child sent it, keyed by column name, its integers BigInt and its blobs Buffers again. */
function rowOf(columns: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const value = values[i];
    row[column] =
      value !== null && typeof value === 'object'
        ? 'b' in value
          ? BigInt((value as { b: string }).b)
          : Buffer.from((value as { x: string }).x, 'hex')
        : value;
  });
  return row;
}
