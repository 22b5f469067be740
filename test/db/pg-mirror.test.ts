/**
 * A mirror in PostgreSQL as operators meet it: one schema a mirror, the lock an advisory lock
 * on the schema (a second writer refused naming the holder, freed when the holder's connection
 * dies), and the investigator's statement read-only whatever it tries.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import { openForReading, openForWriting, mirrorHolder, type OpenedMirror } from '../../src/db/mirror.js';
import { openPgMirror, type PgMirror } from '../../src/db/pg/open.js';
import { serverGone } from '../../src/db/pg/connection.js';
import { LockHeldError, MirrorError } from '../../src/errors.js';
import { newSchema } from '../support/postgres.js';
import { deadlineIn } from '../support/test-clock.js';

const serverUrl = inject('postgresUrl');

describe.skipIf(serverUrl === '')('a mirror in PostgreSQL', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const schema = () => {
    const made = newSchema(serverUrl);
    cleanups.push(made.drop);
    return made;
  };
  const writing = async (url: string, command: string): Promise<OpenedMirror> => {
    const opened = await openForWriting(url, command);
    cleanups.push(() => opened.release());
    return opened;
  };

  it('lets two writers work on two schemas at once, and refuses a second on one schema, naming the holder', async () => {
    const a = schema();
    const b = schema();
    await writing(a.url, 'sync');
    await writing(b.url, 'sync');
    const refused = openForWriting(a.url, 'check');
    await expect(refused).rejects.toBeInstanceOf(LockHeldError);
    await expect(refused).rejects.toThrow(
      new RegExp(
        `another ledger-recon sync holds the mirror postgres://127\\.0\\.0\\.1:\\d+/postgres\\?schema=${a.schema} \\(process ${process.pid}, started 20\\d\\d-`,
      ),
    );
    expect(await mirrorHolder(a.url)).toMatchObject({ command: 'sync', pid: process.pid });
  });

  it("never lets two merchants' schemas block each other, even where a 32-bit hash of their names is one (merchant_8537, merchant_92549)", async () => {
    const names = ['merchant_8537', 'merchant_92549'];
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const hashes = await client.query<{ a: number; b: number }>('SELECT hashtext($1) AS a, hashtext($2) AS b', names);
      expect(hashes.rows[0]?.a).toBe(hashes.rows[0]?.b);
    } finally {
      await client.end();
    }
    for (const name of names) {
      cleanups.push(async () => {
        const c = new pg.Client({ connectionString: serverUrl });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`).finally(() => c.end());
      });
    }
    await writing(`${serverUrl}?schema=${names[0]}`, 'sync');
    await writing(`${serverUrl}?schema=${names[1]}`, 'sync');
    expect(await mirrorHolder(`${serverUrl}?schema=${names[0]}`)).toMatchObject({ command: 'sync', pid: process.pid });
    await expect(openForWriting(`${serverUrl}?schema=${names[1]}`, 'check')).rejects.toThrow(
      new RegExp(`holds the mirror postgres://127\\.0\\.0\\.1:\\d+/postgres\\?schema=${names[1]} `),
    );
  });

  it("never makes a mirror in public, information_schema or a schema that holds another application's tables, and leaves them as they were", async () => {
    for (const name of ['public', 'information_schema', 'pg_catalog']) {
      await expect(openForWriting(`${serverUrl}?schema=${name}`, 'sync')).rejects.toThrow(
        `${name} is the server's or every application's schema, not a mirror's`,
      );
    }
    const other = schema();
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${other.schema}`);
      await client.query(`CREATE TABLE ${other.schema}.gift_cards (id int)`);
      await expect(openForWriting(other.url, 'sync')).rejects.toThrow(
        new RegExp(`the schema ${other.schema} holds 1 tables, views or sequences of something else, and no mirror`),
      );
      const left = await client.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [
        other.schema,
      ]);
      expect(left.rows).toEqual([{ table_name: 'gift_cards' }]);
      const publicMigrations = await client.query(
        "SELECT COUNT(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public' AND table_name = '__drizzle_migrations'",
      );
      expect(publicMigrations.rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('frees the lock when the holder’s connection dies (pg_terminate_backend), so another process takes it and finds what was committed', async () => {
    const a = schema();
    const holder = (await openPgMirror(a.url, { command: 'sync', locked: true })) as PgMirror;
    await holder.connection
      .write(
        "INSERT INTO sync_checkpoints (resource, walk_id, mode, pages, records, done, updated_at_ms) VALUES ('giftCards', 1, 'full', 3, 300, false, 1)",
      )
      .run();
    const killer = new pg.Client({ connectionString: serverUrl });
    await killer.connect();
    await killer.query('SELECT pg_terminate_backend($1)', [holder.backendPid]);
    await killer.end();
    await holder.close().catch(() => undefined);
    const next = await writing(a.url, 'sync');
    expect(
      await next.mirror.connection
        .read<{ pages: number; done: boolean }>("SELECT pages, done FROM sync_checkpoints WHERE resource = 'giftCards'")
        .get(),
    ).toEqual({ pages: 3, done: false });
  });

  it('runs an investigator’s statement read-only, refusing every way to write', async () => {
    const a = schema();
    await (await writing(a.url, 'sync')).release();
    const mirror = await openForReading(a.url);
    cleanups.push(() => mirror.close());
    expect(await mirror.readOnlyStatement('SELECT COUNT(*) AS n FROM gift_cards')).toEqual({
      columns: ['n'],
      rows: [{ n: 0n }],
    });
    for (const text of [
      "INSERT INTO mirror_identity VALUES (1, 'a', 'b', 'c', 'd', 'e')",
      'DELETE FROM gift_cards',
      'DROP TABLE gift_cards',
      'CREATE TABLE x (a int)',
      "COPY gift_cards TO PROGRAM 'touch /tmp/ledger-recon-pwned'",
      'SET ROLE postgres',
      'SELECT 1; DELETE FROM gift_cards',
      'WITH gone AS (DELETE FROM gift_cards RETURNING 1) SELECT * FROM gone',
      'DO $$ BEGIN DELETE FROM gift_cards; END $$',
      'CALL nothing()',
    ]) {
      await expect(mirror.readOnlyStatement(text), text).rejects.toBeInstanceOf(MirrorError);
    }
    // Its transaction carries the statement timeout.
    expect(
      await mirror.readOnlyStatement(
        "SELECT current_setting('statement_timeout') AS timeout, current_setting('transaction_read_only') AS read_only",
      ),
    ).toEqual({ columns: ['timeout', 'read_only'], rows: [{ timeout: '1min', read_only: 'on' }] });
  });

  it("runs the night's statements past a statement_timeout the role sets, and names a statement timeout that fires with its fix", async () => {
    const a = schema();
    const role = `lr_${a.schema}`;
    const admin = async (sql: string): Promise<void> => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    // A role whose every statement is cancelled after a millisecond, as a DBA may set for people.
    await admin(`CREATE ROLE "${role}" LOGIN SUPERUSER`);
    await admin(`ALTER ROLE "${role}" SET statement_timeout = '1ms'`);
    cleanups.push(() => admin(`DROP OWNED BY "${role}" CASCADE; DROP ROLE IF EXISTS "${role}"`));
    const url = new URL(serverUrl);
    url.username = role;
    const roleUrl = `${url.toString()}?schema=${a.schema}`;
    // The migrations (dozens of statements, some long) and a write run whole: the job's own timeout, none, outranks the role's.
    const opened = await writing(roleUrl, 'sync');
    expect(await opened.mirror.readOnlyStatement('SELECT COUNT(*) AS n FROM gift_cards')).toEqual({
      columns: ['n'],
      rows: [{ n: 0n }],
    });
    // One that does fire is named with its variable, not as an unexpected error.
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query('SET statement_timeout = 50');
      const cancelled = await client.query('SELECT count(*) FROM generate_series(1, 10000000000)').catch((e) => e);
      const named = serverGone('postgres://db/recon?schema=m', cancelled);
      expect(named).toBeInstanceOf(MirrorError);
      expect((named as Error).message).toMatch(
        /^a statement on the mirror postgres:\/\/db\/recon\?schema=m ran past its statement timeout and was cancelled \(57014: canceling statement due to statement timeout\): nothing half-written stays; LEDGER_RECON_STATEMENT_TIMEOUT sets the job's own/,
      );
    } finally {
      await client.end();
    }
  });

  it('fails the statement, and only it, when the server drops a connection the mirror has handed out', async () => {
    const a = schema();
    await (await writing(a.url, 'sync')).release();
    const mirror = await openForReading(a.url);
    cleanups.push(() => mirror.close());
    // A statement of minutes (sql refuses pg_sleep): a count over ten billion rows.
    const marker = `count(*) FROM generate_series(1, 10000000000) AS g -- ${a.schema}`;
    // Its outcome is held at once: the statement fails while this test is still on the killer's line.
    const sleeping = mirror.readOnlyStatement(`SELECT ${marker}`).then(
      () => new Error('the statement ran to its end'),
      (error: unknown) => error,
    );
    const killer = new pg.Client({ connectionString: serverUrl });
    await killer.connect();
    try {
      let pid: number | undefined;
      // A loaded machine (another suite beside this one) may take seconds to start the statement.
      for (const late = deadlineIn(40_000); pid === undefined && !late(); ) {
        pid = (
          await killer.query<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE query LIKE '%' || $1 AND state = 'active' AND pid <> pg_backend_pid()",
            [marker],
          )
        ).rows[0]?.pid;
      }
      expect(pid, 'the statement is running on the server').toBeDefined();
      await killer.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await killer.end();
    }
    // Its own failure, as a line; the process carries on (an unheard error event would have ended it).
    expect(await sleeping).toBeInstanceOf(MirrorError);
    expect(String(await sleeping)).toMatch(/terminating connection/);
    expect(await mirror.readOnlyStatement('SELECT COUNT(*) AS n FROM gift_cards')).toEqual({
      columns: ['n'],
      rows: [{ n: 0n }],
    });
  }, 90_000);

  it('tells the planner the sizes a sync changed, and analyzes nothing after a quiet night', async () => {
    const a = schema();
    const mirror = (await writing(a.url, 'sync')).mirror;
    const analyzed = async (): Promise<Record<string, string | null>> => {
      const rows = await mirror.connection
        .read<{ name: string; at: string | null }>(
          'SELECT relname AS name, CAST(last_analyze AS text) AS at FROM pg_stat_user_tables WHERE schemaname = ?',
        )
        .all(a.schema);
      return Object.fromEntries(rows.map(({ name, at }) => [name, at]));
    };
    // A bulk load into an empty table: analyzed as it ends.
    expect(await mirror.beginLoad('coupons')).toBe(true);
    expect(await mirror.endLoad('coupons', 1)).toBe(0);
    expect((await analyzed())['coupons']).not.toBeNull();
    // The first night's end: every table the checks read that was never analyzed, is.
    await mirror.compact();
    const first = await analyzed();
    for (const table of [
      'gift_cards',
      'gift_card_transactions',
      'coupons',
      'dp_orders',
      'dp_order_lines',
      'gift_card_history',
      'coupon_history',
    ])
      expect(first[table], table).not.toBeNull();
    // A quiet night: nothing.
    await mirror.compact();
    expect(await analyzed()).toEqual(first);
    // A night that changed more than a tenth of a table (and 50 rows): that table alone.
    await mirror.connection.transaction(async () => {
      for (let i = 0; i < 60; i += 1)
        await mirror.connection
          .write(
            'INSERT INTO coupon_history (coupon_id, sync_run_id, status, redemption_count, version) VALUES (?, 1, ?, 0, 1)',
          )
          .run(`c${i}`, 'ACTIVE');
    });
    await mirror.compact();
    const after = await analyzed();
    expect(after['coupon_history']).not.toEqual(first['coupon_history']);
    expect({ ...after, coupon_history: null }).toEqual({ ...first, coupon_history: null });
  });

  it('says there is no mirror in a schema no sync made, and names a server it cannot reach', async () => {
    const a = schema();
    await expect(openForReading(a.url)).rejects.toThrow(
      /there is no mirror at postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=t_\w+: run `ledger-recon sync` first/,
    );
    await expect(openForReading('postgres://nobody:secret@127.0.0.1:1/db?schema=x')).rejects.toThrow(
      /the mirror postgres:\/\/127\.0\.0\.1:1\/db\?schema=x cannot be reached/,
    );
    await expect(openForReading('postgres://nobody:secret@127.0.0.1:1/db?schema=x')).rejects.not.toThrow(/secret/);
    await expect(openForWriting(`${serverUrl}?schema=Bad-Name`, 'sync')).rejects.toThrow(
      /a schema name is lower-case letters/,
    );
  });
});
