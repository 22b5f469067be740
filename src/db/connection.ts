/**
 * The stores' hand-written SQL, executed: one async interface that each dialect folder
 * implements over its driver (src/db/sqlite/connection.ts). A store declares a statement's row
 * type once, where it prepares it ({@link SqlRow}: a table's row as SQL names its columns), and
 * binds its parameters by position (`?`) or by name (`@name`, with one object); the dialect
 * makes of it what its driver reads. Nothing above the stores sees this interface.
 */
import type { SqlDialect } from './dialect.js';

export type { SqlRow } from './tables.js';

/** A prepared read yielding rows of `Row`. */
export interface Read<Row> {
  get(...params: unknown[]): Promise<Row | undefined>;
  all(...params: unknown[]): Promise<Row[]>;
  /**
   * Streams the rows in batches of about `size` (a turn of the event loop per row would cost
   * more than the row), never holding the whole result: a cursor over the result.
   */
  batches(params?: readonly unknown[], size?: number): AsyncGenerator<Row[]>;
}

/** A prepared write. */
export interface Write {
  /** Runs it. @returns how many rows it changed. */
  run(...params: unknown[]): Promise<number>;
  /**
   * Runs it when the connection next executes anything else, or commits: for a write whose
   * count nobody reads. A server's connection sends consecutive inserts of one statement as one
   * multi-row insert (a round trip per row would cost more than the row); SQLite runs it at once.
   * A deferred write that fails fails the statement that sends it, inside the same transaction.
   */
  later(...params: unknown[]): void;
}

/** Rows handed out per batch by default. */
export const BATCH_ROWS = 1_000;

/** One session with the database that holds the mirror. */
export interface SqlConnection {
  /** The fragments of SQL that differ between databases. */
  readonly dialect: SqlDialect;
  /**
   * Whether each statement is a round trip to a server (PostgreSQL), so that a store reads
   * many records in one statement rather than one at a time; SQLite's are calls in process,
   * and one at a time is fastest there and holds least.
   */
  readonly remote: boolean;
  /** Prepares a read whose rows are `Row` (its SELECT names each column as `Row` does). */
  read<Row>(sql: string): Read<Row>;
  /** Prepares a read of one column, each row that column's value `V`. */
  pluck<V>(sql: string): Read<V>;
  /**
   * Prepares a read yielding each row as a positional tuple `Row`, in its SELECT list's order.
   * `onAThread`: for a long walk whose rows the caller works on as they come, SQLite steps its
   * batches on a second thread with its own connection (src/db/sqlite/thread-read.ts), so that
   * reading overlaps the caller's work; a server's rows come from its own process already.
   */
  readRaw<Row extends unknown[]>(sql: string, options?: { onAThread?: boolean }): Read<Row>;
  /** Prepares a write. */
  write(sql: string): Write;
  /**
   * Inserts rows (each its values in the order of `columns`): one statement per row where that
   * is fastest (SQLite), rows a statement where a round trip costs more (a server).
   */
  insertMany(table: string, columns: readonly string[], rows: readonly unknown[][]): Promise<void>;
  /** Runs statements that bind nothing (DDL, a set-based pass), separated by semicolons. */
  exec(sql: string): Promise<void>;
  /**
   * Runs `work` as one transaction: all of it commits, or none. One at a time: a transaction
   * begun while another is open on the connection is refused (see singleTransactions).
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
}

/** How a connection begins, commits and rolls back a transaction. */
export interface TransactionStatements {
  begin(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * A connection's {@link SqlConnection.transaction}: one at a time. A transaction begun while
 * another is open on the connection is refused, never nested nor queued (a queue would wait
 * forever on a transaction begun inside another): a store whose callers overlap (the sync's
 * walks) runs its transactions one after another itself. No AsyncLocalStorage: on Node 20 it
 * hooks every promise of the process, which cost the sync some 10 % of its time.
 */
export function singleTransactions(statements: TransactionStatements): <T>(work: () => Promise<T>) => Promise<T> {
  let open = false;
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (open)
      throw new Error('a transaction is open on this connection already: transactions on one connection never overlap');
    open = true;
    try {
      await statements.begin();
      let result: T;
      try {
        result = await work();
      } catch (error) {
        // A rollback that fails too (the connection gone) must not hide why the work failed.
        await statements.rollback().catch(() => undefined);
        throw error;
      }
      await statements.commit();
      return result;
    } finally {
      open = false;
    }
  };
}

/** Every row of a batched read, one at a time. */
export async function* rowsOf<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}
