/**
 * The mirror as every stage sees it, whichever database holds it: each dialect folder
 * (src/db/sqlite/) opens one of these. Nothing here names a driver.
 */
import type { SqlConnection } from './connection.js';
import type { SqlDialect } from './dialect.js';
import type { MirrorQueries } from './queries.js';

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
  readOnlyStatement(text: string): Promise<StatementResult>;
  /** The database's own integrity check (quick): 'ok', or what it found. */
  integrity(): Promise<string>;
  /** The migrations the mirror has applied, and the number this version knows. */
  schemaVersion(): Promise<{ applied: number; known: number }>;
  close(): Promise<void>;
}

/** What an investigator is told when the text holds more than one statement: none of them ran. */
export const SEVERAL_STATEMENTS =
  'the text holds several statements: `ledger-recon sql` runs one, and none of them was run; give them one at a time';
