/**
 * The stores' SQL on SQLite (see SqlConnection): better-sqlite3's prepared statements, which
 * run synchronously, handed out as promises. The one cast from the driver's untyped rows is
 * here. Statements are prepared when declared, so a store's constructor fails on a table or
 * column the mirror lacks (test/db/stores.test.ts constructs every store).
 */
import type Database from 'better-sqlite3';
import { BATCH_ROWS, singleTransactions, type Read, type SqlConnection, type Write } from '../connection.js';
import { sqliteDialect } from './dialect.js';
import { threadRead } from './thread-read.js';

class SqliteRead<Row> implements Read<Row> {
  constructor(private readonly statement: Database.Statement) {}

  async get(...params: unknown[]): Promise<Row | undefined> {
    return this.statement.get(...params) as Row | undefined;
  }

  async all(...params: unknown[]): Promise<Row[]> {
    return this.statement.all(...params) as Row[];
  }

  async *batches(params: readonly unknown[] = [], size = BATCH_ROWS): AsyncGenerator<Row[]> {
    const rows = this.statement.iterate(...params) as IterableIterator<Row>;
    try {
      for (;;) {
        const batch: Row[] = [];
        for (let next = rows.next(); !next.done; next = rows.next()) {
          batch.push(next.value);
          if (batch.length === size) break;
        }
        if (batch.length === 0) return;
        yield batch;
        if (batch.length < size) return;
      }
    } finally {
      rows.return?.();
    }
  }
}

/** The SQLite mirror's connection: statements prepared on better-sqlite3, transactions one at a time. */
export function sqliteConnection(sqlite: Database.Database): SqlConnection {
  const begin = sqlite.prepare('BEGIN');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const inserts = new Map<string, Database.Statement>();
  return {
    dialect: sqliteDialect,
    remote: false,
    read: <Row>(sql: string) => new SqliteRead<Row>(sqlite.prepare(sql)),
    pluck: <V>(sql: string) => new SqliteRead<V>(sqlite.prepare(sql).pluck()),
    readRaw: <Row extends unknown[]>(sql: string, options?: { onAThread?: boolean }) => {
      // Prepared here either way: a statement the mirror cannot run fails at once, on this thread.
      const here = new SqliteRead<Row>(sqlite.prepare(sql).raw(true));
      return options?.onAThread ? threadRead<Row>(sqlite, sql, here) : here;
    },
    write: (sql: string): Write => {
      const statement = sqlite.prepare(sql);
      return {
        run: async (...params) => statement.run(...params).changes,
        later: (...params) => {
          statement.run(...params);
        },
      };
    },
    insertMany: async (table, columns, rows) => {
      const key = `${table} (${columns.join(', ')})`;
      let insert = inserts.get(key);
      if (insert === undefined) {
        insert = sqlite.prepare(`INSERT INTO ${key} VALUES (${columns.map(() => '?').join(', ')})`);
        inserts.set(key, insert);
      }
      for (const row of rows) insert.run(...row);
    },
    exec: async (sql) => {
      sqlite.exec(sql);
    },
    transaction: singleTransactions({
      begin: async () => {
        begin.run();
      },
      commit: async () => {
        commit.run();
      },
      // SQLite may have rolled back already (a full disk, an interrupt).
      rollback: async () => {
        if (sqlite.inTransaction) rollback.run();
      },
    }),
  };
}
