/**
 * The stores' SQL on PostgreSQL (see SqlConnection), over node-postgres. Statements are
 * written as for SQLite, bound by position (`?`) or by name (`@name`); here they become `$n`
 * and run as named prepared statements on the mirror's one session, so that a transaction, its
 * temporary tables and the mirror's lock are that session's. A streamed read runs on a
 * connection of its own through a server-side cursor (pg-cursor), and sees what is committed.
 * Integers come back as numbers (none of ours passes 2^53: one that did would throw).
 */
import pg from 'pg';
import Cursor from 'pg-cursor';
import { MirrorError } from '../../errors.js';
import { BATCH_ROWS, singleTransactions, type Read, type SqlConnection, type Write } from '../connection.js';
import { pgDialect } from './dialect.js';

/** bigint (int8) and numeric (a SUM of bigints) as JavaScript numbers, refused past 2^53. */
function exactNumber(text: string): number {
  const value = Number(text);
  // A safe integer, or a fraction (a numeric's), is the number the text says. Tested in that
  // order because the walk reads millions of these: a pattern test on each cost more than the read.
  if (Number.isSafeInteger(value) || !Number.isInteger(value) || text.includes('.')) return value;
  throw new RangeError(`the integer ${text} is past 2^53: it cannot be read as a number without losing digits`);
}
/** PostgreSQL's type parsers, but bigint and numeric (integers, and sums of them) read by `parse`. */
export function integerTypes(parse: (text: string) => unknown) {
  const INT8 = 20;
  const NUMERIC = 1700;
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8 || oid === NUMERIC
        ? parse
        : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
  };
}

/** The type parsers of the mirror's connections: PostgreSQL's, but integers as numbers. */
export const numberTypes = integerTypes(exactNumber);

/** A statement written for both databases, as PostgreSQL reads it. */
export interface Converted {
  text: string;
  /** The names bound (`@name`), in the order of their `$n`; null when bound by position. */
  names: string[] | null;
  /** How many values it binds. */
  count: number;
}

/** Turns `?` and `@name` placeholders into `$n`, outside quoted strings and names. */
export function convertPlaceholders(sql: string): Converted {
  let text = '';
  let position = 0;
  const names: string[] = [];
  for (let i = 0; i < sql.length; i += 1) {
    const c = sql[i] ?? '';
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      const stop = end === -1 ? sql.length : end;
      text += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === '?') {
      position += 1;
      text += `$${position}`;
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const name = /^[A-Za-z_]\w*/.exec(sql.slice(i + 1))?.[0] ?? '';
      let at = names.indexOf(name);
      if (at === -1) at = names.push(name) - 1;
      text += `$${at + 1}`;
      i += name.length;
    } else {
      text += c;
    }
  }
  if (names.length > 0 && position > 0) throw new Error(`a statement binds both by position and by name: ${sql}`);
  return { text, names: names.length > 0 ? names : null, count: names.length + position };
}

/**
 * The values to bind, in `$n` order: one object of named values, or the values by position. A
 * statement that binds nothing takes none (as SQLite ignores an object of names it does not use).
 */
function valuesOf(converted: Converted, params: readonly unknown[]): unknown[] {
  if (converted.count === 0) return [];
  const values =
    converted.names === null
      ? [...params]
      : converted.names.map((name) => (params[0] as Record<string, unknown>)[name]);
  return values.map((value) => (value === undefined ? null : value));
}

type RowMode = 'object' | 'array' | 'pluck';

/** A session's prepared statements, by their text: a statement declared again is prepared once. */
class Prepared {
  readonly #names = new Map<string, { converted: Converted; name: string }>();

  of(sql: string): { converted: Converted; name: string } {
    let found = this.#names.get(sql);
    if (found === undefined) {
      found = { converted: convertPlaceholders(sql), name: `ledger_recon_${this.#names.size + 1}` };
      this.#names.set(sql, found);
    }
    return found;
  }
}

/** SQLSTATE class 53, the server short of a resource: what it lacks, and what a person does about it. */
const SHORT_OF: Record<string, { what: string; fix: string }> = {
  '53100': {
    what: 'has no disk space left',
    fix: "free space on the server's disk (or move the schema's tablespace to a larger one)",
  },
  '53200': { what: 'ran out of memory', fix: 'give the server more memory, or lower its work_mem' },
  '53300': {
    what: 'accepts no more connections',
    fix: 'raise max_connections, or run fewer jobs at once (each holds up to six connections)',
  },
  '53400': { what: 'reached a configured limit', fix: "see the server's log for the limit, and raise it" },
};

/** SQLSTATE classes and driver messages that mean the server or the connection is gone. */
const GONE = /^(57P0[1-3]|08\w{3})$/;
const GONE_MESSAGE =
  /Connection terminated|ECONNRESET|ECONNREFUSED|EPIPE|Client has encountered a connection error|not queryable/i;

/**
 * A statement that failed because the server went away (shut down, restarted, the connection
 * killed) as one line naming the mirror: nothing half-written stays (a transaction is rolled
 * back with its connection), and the next run resumes from what was committed.
 */
export function serverGone(shown: string, error: unknown): unknown {
  // Drizzle's migrator wraps the driver's error ("Failed query: …") and keeps it as the cause.
  const { cause } = error as { cause?: unknown };
  const { code, message } = (typeof cause === 'object' && cause !== null ? cause : error) as {
    code?: string;
    message?: string;
  };
  if (code === '55P03')
    return new MirrorError(
      `the mirror ${shown} waited too long for a lock another session holds on its tables (${code}: ${message}; LEDGER_RECON_LOCK_WAIT): nothing half-written stays; find that session (SELECT pid, application_name, state, query FROM pg_stat_activity WHERE pid IN (SELECT unnest(pg_blocking_pids(pid)) FROM pg_stat_activity)), let it finish or end it, then run again: it resumes from what was committed`,
    );
  if (code === '57014' && /statement timeout/.test(message ?? ''))
    return new MirrorError(
      `a statement on the mirror ${shown} ran past its statement timeout and was cancelled (${code}: ${message}): nothing half-written stays; LEDGER_RECON_STATEMENT_TIMEOUT sets the job's own (0, the default, is none, over the role's and the database's): unset it or raise it, then run again: it resumes from what was committed`,
    );
  const short = typeof code === 'string' ? SHORT_OF[code] : undefined;
  if (short !== undefined)
    return new MirrorError(
      `the PostgreSQL server holding the mirror ${shown} ${short.what} (${code}: ${message}): nothing half-written stays (the statement's transaction is rolled back); ${short.fix}, then run again: it resumes from what was committed`,
    );
  if (!(typeof code === 'string' && GONE.test(code)) && !GONE_MESSAGE.test(message ?? '')) return error;
  return new MirrorError(
    `the mirror ${shown} went away mid-run (${message}): what was committed stays, and the next run resumes from it once the server is back`,
  );
}

/**
 * The mirror's session, one statement at a time: walks run at the same time, and node-postgres
 * no longer queues a second query on a client behind the first.
 */
class Session {
  #last: Promise<unknown> = Promise.resolve();
  /** Deferred writes (Write.later), in order, sent before the next statement. */
  #deferred: Array<{ converted: Converted; name: string; values: unknown[] }> = [];

  constructor(
    private readonly client: pg.ClientBase,
    readonly shown: string,
  ) {}

  defer(converted: Converted, name: string, values: unknown[]): void {
    this.#deferred.push({ converted, name, values });
  }

  /** Drops the deferred writes of a transaction being rolled back. */
  discard(): void {
    this.#deferred = [];
  }

  /**
   * Waits until every statement asked before it has run, deferred writes included: a read on
   * another of the pool's connections (a cursor, the typed query layer) then sees them.
   */
  settled(): Promise<void> {
    const next = this.#last
      .then(() => this.#flush())
      .catch((error: unknown) => {
        throw serverGone(this.shown, this.#causeOf(error));
      });
    this.#last = next.catch(() => undefined);
    return next;
  }

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig | string): Promise<pg.QueryResult<R>> {
    const next = this.#last
      .then(() => this.#flush())
      .then(() => this.client.query<R>(config as pg.QueryConfig))
      .then((result) => {
        // A transaction's end (or a new one) clears what aborted the one before.
        if (typeof config === 'string' && /^(BEGIN|COMMIT|ROLLBACK)$/.test(config)) this.#aborted = undefined;
        return result;
      })
      .catch((error: unknown) => {
        throw serverGone(this.shown, this.#causeOf(error));
      });
    this.#last = next.catch(() => undefined);
    return next;
  }

  /** The error that aborted the session's transaction: walks share it, and the next statement of any of them only hears 25P02. */
  #aborted: unknown;

  /**
   * What a failed statement tells: its own error, or, for "current transaction is aborted"
   * (25P02), the error that aborted the transaction, which another walk met first.
   */
  #causeOf(error: unknown): unknown {
    if ((error as { code?: unknown }).code !== '25P02') {
      this.#aborted ??= error;
      return error;
    }
    return this.#aborted ?? error;
  }

  /**
   * Sends the deferred writes in order. A run of plain inserts between two other writes (a card
   * and its history row, a card and its history row, …) goes as one multi-row insert per
   * statement, in the order each statement first appears in the run: inserts into different
   * tables commute, and an insert that depends on another row (an order's lines) follows the
   * upsert of that row, which ends the run. Any other write is sent alone.
   */
  async #flush(): Promise<void> {
    const deferred = this.#deferred;
    this.#deferred = [];
    let at = 0;
    while (at < deferred.length) {
      const first = deferred[at]!;
      if (multiRow(first.converted) === undefined) {
        at += 1;
        await this.client.query({ name: first.name, text: first.converted.text, values: first.values });
        continue;
      }
      let end = at;
      while (end < deferred.length && multiRow(deferred[end]!.converted) !== undefined) end += 1;
      const groups = new Map<Converted, unknown[][]>();
      for (let i = at; i < end; i += 1) {
        const write = deferred[i]!;
        const group = groups.get(write.converted);
        if (group) group.push(write.values);
        else groups.set(write.converted, [write.values]);
      }
      at = end;
      for (const [converted, rows] of groups) {
        const shape = multiRow(converted)!;
        for (const statement of multiRowStatements(shape.head, shape.tail, rows)) await this.client.query(statement);
      }
    }
  }
}

/**
 * A plain insert of one row (`INSERT INTO t (…) VALUES ($1, …)`, or skipping a repeated key),
 * split around its VALUES list so that rows can be added; undefined for any other statement
 * (an upsert that updates could meet its own key twice in one statement).
 */
const multiRowShapes = new WeakMap<Converted, { head: string; tail: string } | null>();
function multiRow(converted: Converted): { head: string; tail: string } | undefined {
  let shape = multiRowShapes.get(converted);
  if (shape === undefined) {
    const match =
      /^\s*(INSERT INTO [\w.]+\s*\([^)]*\))\s*VALUES\s*\((?:\$\d+\s*,\s*)*\$\d+\)\s*((?:ON CONFLICT DO NOTHING)?)\s*$/is.exec(
        converted.text,
      );
    shape = match ? { head: match[1] ?? '', tail: match[2] ? ` ${match[2]}` : '' } : null;
    multiRowShapes.set(converted, shape);
  }
  return shape ?? undefined;
}

class PgRead<Row> implements Read<Row> {
  readonly #converted: Converted;
  readonly #name: string;

  constructor(
    private readonly session: Session,
    private readonly pool: pg.Pool,
    prepared: { converted: Converted; name: string },
    private readonly mode: RowMode,
  ) {
    this.#converted = prepared.converted;
    this.#name = prepared.name;
  }

  async #query(params: readonly unknown[]): Promise<Row[]> {
    const result = await this.session.query({
      name: this.#name,
      text: this.#converted.text,
      values: valuesOf(this.#converted, params),
      ...(this.mode === 'object' ? {} : { rowMode: 'array' as const }),
    });
    return this.#shape(result.rows);
  }

  #shape(rows: unknown[]): Row[] {
    return (this.mode === 'pluck' ? rows.map((row) => (row as unknown[])[0]) : rows) as Row[];
  }

  async get(...params: unknown[]): Promise<Row | undefined> {
    return (await this.#query(params))[0];
  }

  async all(...params: unknown[]): Promise<Row[]> {
    return this.#query(params);
  }

  async *batches(params: readonly unknown[] = [], size = BATCH_ROWS): AsyncGenerator<Row[]> {
    await this.session.settled();
    const client = await this.pool.connect().catch((error: unknown) => {
      throw serverGone(this.session.shown, error);
    });
    const cursor = client.query(
      new Cursor(
        this.#converted.text,
        valuesOf(this.#converted, params),
        this.mode === 'object' ? {} : { rowMode: 'array' },
      ),
    );
    let failed = false;
    // The next batch is asked for before this one is handed out: the server steps it while the
    // caller works on this one (a report over a million cards waited 4 s for rows without this).
    let next: Promise<unknown[]> | null = null;
    try {
      for (next = cursor.read(size); ; ) {
        const rows = await next;
        next = null;
        if (rows.length === 0) return;
        next = cursor.read(size);
        // Handled where it is awaited: a caller that stops early must not leave it unhandled.
        next.catch(() => undefined);
        yield this.#shape(rows);
      }
    } catch (error) {
      failed = true;
      throw serverGone(this.session.shown, error);
    } finally {
      await next?.catch(() => undefined);
      await cursor.close().catch(() => undefined);
      client.release(failed);
    }
  }
}

/** Rows a multi-row insert carries: PostgreSQL binds at most 65,535 values a statement. */
const VALUES_PER_INSERT = 30_000;

/** `head VALUES (…), (…) tail`, as many statements as the rows need, each at most VALUES_PER_INSERT values. */
function* multiRowStatements(head: string, tail: string, rows: readonly unknown[][]): Generator<pg.QueryConfig> {
  const perStatement = Math.max(1, Math.floor(VALUES_PER_INSERT / (rows[0]?.length ?? 1)));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    let n = 0;
    const tuples = chunk.map((row) => `(${row.map(() => `$${(n += 1)}`).join(', ')})`).join(', ');
    yield {
      text: `${head} VALUES ${tuples}${tail}`,
      values: chunk.flat().map((value) => (value === undefined ? null : value)),
    };
  }
}

/** The mirror's connection on PostgreSQL, and a wait for what it was asked before (Session.settled). */
export type PgConnection = SqlConnection & { settled(): Promise<void> };

/** The mirror's session (`client`, held for the mirror's life) and the pool its cursors draw from. */
export function pgConnection(client: pg.ClientBase, pool: pg.Pool, shown: string): PgConnection {
  const session = new Session(client, shown);
  const prepared = new Prepared();
  return {
    settled: () => session.settled(),
    dialect: pgDialect,
    remote: true,
    read: <Row>(sql: string) => new PgRead<Row>(session, pool, prepared.of(sql), 'object'),
    pluck: <V>(sql: string) => new PgRead<V>(session, pool, prepared.of(sql), 'pluck'),
    readRaw: <Row extends unknown[]>(sql: string) => new PgRead<Row>(session, pool, prepared.of(sql), 'array'),
    write: (sql: string): Write => {
      const { converted, name } = prepared.of(sql);
      return {
        run: async (...params) =>
          (await session.query({ name, text: converted.text, values: valuesOf(converted, params) })).rowCount ?? 0,
        later: (...params) => session.defer(converted, name, valuesOf(converted, params)),
      };
    },
    insertMany: async (table, columns, rows) => {
      for (const statement of multiRowStatements(`INSERT INTO ${table} (${columns.join(', ')})`, '', rows))
        await session.query(statement);
    },
    exec: async (sql) => {
      await session.query(sql);
    },
    transaction: singleTransactions({
      begin: async () => {
        await session.query('BEGIN');
      },
      // The deferred writes go first: COMMIT is a statement like any other.
      commit: async () => {
        await session.query('COMMIT');
      },
      rollback: async () => {
        session.discard();
        await session.query('ROLLBACK');
      },
    }),
  };
}
