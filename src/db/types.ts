/**
 * The mirror as every stage sees it, whichever database holds it: each dialect folder
 * (src/db/sqlite/) opens one of these. Nothing here names a driver.
 */
import type { SqlConnection } from './connection.js';
import type { SqlDialect } from './dialect.js';
import type { MirrorQueries } from './queries.js';
import { MirrorError } from '../errors.js';

/** Who holds a mirror's lock: for the message a second process prints. */
export interface LockHolder {
  pid: number;
  command: string;
  startedAt: string;
}

/** The tables a first sync loads in bulk, their indexes dropped and built after. */
export type LoadedTable = 'gift_cards' | 'gift_card_transactions' | 'coupons';

/** An investigator's statement's result: its columns and rows, integers as BigInt (none past 2^53 loses a digit). */
export interface StatementResult {
  columns: string[];
  rows: Record<string, unknown>[];
}

/**
 * How far an investigator's statement may go: its rows, their size, and its time. What crosses
 * a bound is stopped, never half-printed, with one line naming the bound and the flag that raises it.
 */
export interface StatementBounds {
  maxRows: number;
  /** The rows' values, roughly as the text they print as. */
  maxBytes: number;
  timeoutMs: number;
}

export const DEFAULT_STATEMENT_BOUNDS: StatementBounds = {
  maxRows: 100_000,
  maxBytes: 64 * 1024 * 1024,
  timeoutMs: 60_000,
};

/** The bound a statement crossed, as the one line the investigator reads. */
export function boundCrossed(bound: keyof StatementBounds, bounds: StatementBounds): MirrorError {
  const narrow = 'narrow it (a WHERE, a LIMIT, fewer columns)';
  switch (bound) {
    case 'maxRows':
      return new MirrorError(
        `the statement returned more than ${bounds.maxRows.toLocaleString('en-US')} rows and was stopped, nothing printed: ${narrow}, or raise --max-rows`,
      );
    case 'maxBytes':
      return new MirrorError(
        `the statement's rows came to more than ${Math.round(bounds.maxBytes / (1024 * 1024))} MB and were stopped, nothing printed: ${narrow}, or raise --max-mb`,
      );
    case 'timeoutMs':
      return new MirrorError(
        `the statement ran longer than ${bounds.timeoutMs / 1000} s and was stopped, nothing printed: ${narrow}, or raise --max-seconds`,
      );
  }
}

/** About how many bytes a value prints as: what the size bound counts. */
export function printedSize(value: unknown): number {
  if (value === null || value === undefined) return 1;
  if (typeof value === 'string') return value.length;
  if (Buffer.isBuffer(value)) return 2 * value.byteLength + 3;
  if (typeof value === 'object' && !(value instanceof Date)) return JSON.stringify(value).length;
  return 24;
}

/** Keeps a writer's log from growing without bound while a sync commits (SQLite's WAL; nothing elsewhere). */
export interface Checkpointer {
  /** For the writer, outside a transaction, after each commit. */
  afterCommit(): void;
  /** Stops, giving checkpoints back to the mirror's own connection. */
  stop(): Promise<void>;
}

export interface Mirror {
  /** Where the mirror lives, as messages name it: a file's path, or a server's URL without its password. */
  path: string;
  /** The typed, async query layer the stores use (kysely), dialect-neutral above the stores. */
  queries: MirrorQueries;
  /** The stores' hand-written SQL, executed. For the stores (a stage's store.ts) only. */
  connection: SqlConnection;
  /** The fragments of hand-written SQL that differ between databases. */
  dialect: SqlDialect;
  /**
   * Before a walk of `table`: an empty table is loaded in bulk, its secondary indexes dropped
   * and built once, sorted, by {@link Mirror.endLoad}. @returns whether this is a bulk load.
   */
  beginLoad(table: LoadedTable): Promise<boolean>;
  /**
   * After a walk of `table`: builds any index {@link Mirror.beginLoad} dropped. For the ledger,
   * entries a bulk load mirrored twice (the list shifted under the walk) collapse onto their
   * first row, credited to `syncRunId`. @returns how many rows collapsed.
   */
  endLoad(table: LoadedTable, syncRunId: number): Promise<number>;
  /** For a sync: keeps the write-ahead log small while it commits. */
  startCheckpointer(): Checkpointer;
  /** After a large write: the write-ahead log copied into the database and started again. */
  compact(): Promise<void>;
  /** Runs a long streaming read with a small page cache (a report or a check reads each table once), restoring it after. */
  withSmallCache<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs one investigator's statement that only reads. @throws MirrorError when it does not
   * parse, is several statements, would write, or fails.
   */
  readOnlyStatement(text: string, bounds?: StatementBounds): Promise<StatementResult>;
  /** The database's own integrity check (quick): 'ok', or what it found. */
  integrity(): Promise<string>;
  /** The migrations the mirror has applied, and the number this version knows. */
  schemaVersion(): Promise<{ applied: number; known: number }>;
  close(): Promise<void>;
}

/** What an investigator is told when the text holds more than one statement: none of them ran. */
export const SEVERAL_STATEMENTS =
  'the text holds several statements: `ledger-recon sql` runs one, and none of them was run; give them one at a time';
