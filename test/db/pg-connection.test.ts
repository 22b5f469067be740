/**
 * The PostgreSQL connection's own logic: placeholders written for SQLite as PostgreSQL reads
 * them, deferred writes sent in order (many inserts as one statement), committed with their
 * transaction or dropped with it, and a session killed (mid-run or while the mirror opens) told in one line.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import type { Mirror } from '../../src/db/mirror.js';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import pg from 'pg';
import { openForWriting } from '../../src/db/mirror.js';
import { convertPlaceholders, serverGone } from '../../src/db/pg/connection.js';
import { MirrorError } from '../../src/errors.js';
import { BACKENDS } from '../support/backends.js';
import { newSchema } from '../support/postgres.js';
import { deadlineIn } from '../support/test-clock.js';

describe('placeholders', () => {
  it('become $n by position or by name, never inside quoted text or names', () => {
    expect(convertPlaceholders('SELECT a FROM t WHERE b = ? AND c = ?')).toEqual({
      text: 'SELECT a FROM t WHERE b = $1 AND c = $2',
      names: null,
      count: 2,
    });
    expect(
      convertPlaceholders('SELECT \'?\' AS q, "@x" FROM t WHERE m = @merchant OR @merchant IS NULL AND f >= @from'),
    ).toEqual({
      text: 'SELECT \'?\' AS q, "@x" FROM t WHERE m = $1 OR $1 IS NULL AND f >= $2',
      names: ['merchant', 'from'],
      count: 2,
    });
    expect(() => convertPlaceholders('SELECT ? WHERE a = @a')).toThrow(/both by position and by name/);
  });

  it('keep the text outside the placeholders as written, whatever it holds', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom('a', ' ', '=', ',', '(', ')', 'x1'),
            fc.string({ unit: 'grapheme-ascii' }).map((s) => `'${s.replaceAll("'", '')}'`),
          ),
          { maxLength: 12 },
        ),
        (parts) => {
          const sql = parts.join('');
          const converted = convertPlaceholders(sql);
          const strings = (text: string) => text.match(/'[^']*'/g) ?? [];
          expect(strings(converted.text)).toEqual(strings(sql));
        },
      ),
    );
  });
});

const postgres = BACKENDS.find((backend) => backend.name === 'postgres')!;

describe.skipIf(inject('postgresUrl') === '')('deferred writes on PostgreSQL', () => {
  let mirror: Mirror;
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it('go in order, many inserts as one statement, and commit with their transaction', async () => {
    ({ mirror, cleanup } = await postgres.open());
    const c = mirror.connection;
    const product = c.write(
      "INSERT INTO dp_products (product_id, product_name, display_name, currency, raw_json) VALUES (?, 'p', 'p', 'USD', '{}')",
    );
    const variant = c.write(
      'INSERT INTO dp_variants (variant_id, product_id, variant_name, mrp_cents, price_cents, converted_selling_price_cents, stock, raw_json) VALUES (?, ?, ?, 1, 1, 1, 1, ?)',
    );
    const rename = c.write('UPDATE dp_variants SET variant_name = ? WHERE variant_id = ?');
    await c.transaction(async () => {
      for (let i = 0; i < 3_000; i += 1) {
        product.later(`p${i}`);
        variant.later(`v${i}`, `p${i}`, 'first', '{}');
      }
      // An update ends the run: the inserts before it are in, the update sees them.
      rename.later('renamed', 'v7');
      variant.later('v-last', 'p7', 'last', '{}');
    });
    expect(await c.pluck<number>('SELECT COUNT(*) FROM dp_variants').get()).toBe(3_001);
    expect(await c.pluck<string>("SELECT variant_name FROM dp_variants WHERE variant_id = 'v7'").get()).toBe('renamed');
  });

  it('are dropped with a transaction that fails, and the failure is the write’s', async () => {
    ({ mirror, cleanup } = await postgres.open());
    const c = mirror.connection;
    const product = c.write(
      "INSERT INTO dp_products (product_id, product_name, display_name, currency, raw_json) VALUES (?, 'p', 'p', 'USD', '{}')",
    );
    const failed = c.transaction(async () => {
      product.later('p1');
      product.later('p1');
      await c.pluck<number>('SELECT COUNT(*) FROM dp_products').get();
    });
    await expect(failed).rejects.toThrow(/duplicate key/);
    expect(await c.pluck<number>('SELECT COUNT(*) FROM dp_products').get()).toBe(0);
    product.later('p2');
    expect(await c.pluck<number>('SELECT COUNT(*) FROM dp_products').get()).toBe(1);
  });
});

describe.skipIf(inject('postgresUrl') === '')('a transaction two walks share on PostgreSQL', () => {
  it('tells the walk that meets "current transaction is aborted" what aborted it', async () => {
    const { mirror, cleanup } = await postgres.open();
    try {
      const c = mirror.connection;
      await c.exec('BEGIN');
      // Two walks' statements at once, one after the other on the session: the first fails, the
      // second then meets an aborted transaction and would hear only 25P02.
      const first = c.exec('SELECT * FROM no_such_table');
      const second = c.pluck<number>('SELECT 1').get();
      await expect(first).rejects.toThrow(/relation "no_such_table" does not exist/);
      await expect(second).rejects.toThrow(/relation "no_such_table" does not exist/);
      await c.exec('ROLLBACK');
      // A new transaction starts clean: its own failure is its own.
      await c.exec('BEGIN');
      await expect(c.exec('SELECT * FROM another_missing')).rejects.toThrow(/another_missing/);
      await expect(c.pluck<number>('SELECT 1').get()).rejects.toThrow(/another_missing/);
      await c.exec('ROLLBACK');
      expect(await c.pluck<number>('SELECT 1').get()).toBe(1);
    } finally {
      await cleanup();
    }
  });
});

describe.skipIf(inject('postgresUrl') === '')('integers on PostgreSQL', () => {
  it('reads a bigint and a SUM of them as numbers, a fraction as one, and refuses one past 2^53 rather than lose its digits', async () => {
    const { mirror, cleanup } = await postgres.open();
    try {
      const read = (sql: string) => mirror.connection.pluck<number>(sql).get();
      expect(await read('SELECT 9007199254740991::bigint')).toBe(9_007_199_254_740_991);
      expect(await read('SELECT -42::bigint')).toBe(-42);
      expect(await read('SELECT SUM(x) FROM (VALUES (1::bigint), (2::bigint)) v(x)')).toBe(3);
      expect(await read('SELECT 2.5::numeric')).toBe(2.5);
      await expect(read('SELECT 9007199254740993::bigint')).rejects.toThrow(
        'the integer 9007199254740993 is past 2^53: it cannot be read as a number without losing digits',
      );
      await expect(read('SELECT -9007199254740993::numeric')).rejects.toThrow(/past 2\^53/);
    } finally {
      await cleanup();
    }
  });
});

describe('a server gone while a statement runs', () => {
  it('is the one line that names the mirror, also when Drizzle’s migrator wrapped the driver’s error', () => {
    const killed = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    for (const error of [killed, new DrizzleQueryError('rollback', [], killed)]) {
      const said = serverGone('postgres://h/db?schema=s', error);
      expect(said).toBeInstanceOf(MirrorError);
      expect((said as Error).message).toBe(
        'the mirror postgres://h/db?schema=s went away mid-run (terminating connection due to administrator command): what was committed stays, and the next run resumes from it once the server is back',
      );
    }
    const other = new DrizzleQueryError('select 1', [], Object.assign(new Error('syntax error'), { code: '42601' }));
    expect(serverGone('postgres://h/db?schema=s', other)).toBe(other);
  });
});

describe.skipIf(inject('postgresUrl') === '')('a mirror whose session is killed while it opens', () => {
  it('stops in the one line a killed session gives mid-run, not "cannot be opened"', async () => {
    const server = inject('postgresUrl');
    const { url, schema, drop } = newSchema(server);
    // Two sessions: one holds the lock in a transaction; the other watches (in a transaction, pg_stat_activity stays as first read).
    const [holder, watcher] = [
      new pg.Client({ connectionString: server }),
      new pg.Client({ connectionString: server }),
    ];
    await holder.connect();
    await watcher.connect();
    try {
      await (await openForWriting(url, 'sync')).release();
      // The opening waits on this lock (it reads which migrations the schema has) until its session is ended.
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE "${schema}".__drizzle_migrations IN ACCESS EXCLUSIVE MODE`);
      const opening = openForWriting(url, 'sync').then(
        () => undefined,
        (error: unknown) => error,
      );
      const endWaiting = async () =>
        (
          await watcher.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1 AND wait_event_type = 'Lock'",
            [`ledger-recon sync ${process.pid} %`],
          )
        ).rowCount;
      const late = deadlineIn(20_000);
      while ((await endWaiting()) === 0 && !late()) await new Promise((resolve) => setTimeout(resolve, 20));
      const error = await opening;
      expect(error).toBeInstanceOf(MirrorError);
      expect((error as Error).message).toMatch(
        /^the mirror postgres:\/\/127\.0\.0\.1:\d+\/postgres\?schema=t_\w+ went away mid-run \(terminating connection due to administrator command\): what was committed stays/,
      );
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await watcher.end();
      await drop();
    }
  });
});
