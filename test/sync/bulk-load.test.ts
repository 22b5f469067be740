import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMirror, type SqliteMirror as Mirror } from '../../src/db/mirror.js';
import {
  createCardIndexes,
  createCouponIndexes,
  createLedgerIndexes,
  dropCardIndexes,
  dropCouponIndexes,
  dropLedgerIndexes,
} from '../../src/db/sqlite/indexes.js';
import { SyncStore } from '../../src/sync/store.js';
import { transactionRow } from '../../src/sync/rows.js';
import type { Transaction } from '../../src/api/wire-types.js';
import { runs } from '../support/property.js';

let dir: string;
let mirror: Mirror;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-bulk-'));
  mirror = openMirror(join(dir, 'ledger.db'));
});
afterEach(() => {
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

const entry = (id: string, amount: number): Transaction =>
  ({
    transactionId: id,
    giftCardId: 'card-1',
    type: 'DEBIT',
    amount,
    balanceBefore: 100,
    balanceAfter: 100 - amount,
    referenceId: `ORD-${id}`,
    idempotencyKey: `key-${id}`,
    createdAt: '2026-11-01T10:00:00.000Z',
  }) as Transaction;

const indexNames = () =>
  mirror.sqlite
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'gift_card_transactions' ORDER BY name",
    )
    .pluck()
    .all();

describe("the ledger's bulk load", () => {
  it('collapses entries mirrored twice onto their first row, keeping an earlier version that differs', async () => {
    const withIndexes = indexNames();
    const writer = new SyncStore(mirror);
    dropLedgerIndexes(mirror.sqlite);
    await writer.batch(async () => {
      for (const [i, e] of [
        entry('a', 10),
        entry('b', 20),
        entry('a', 10),
        entry('c', 30),
        entry('b', 25),
        entry('b', 26),
      ].entries())
        await writer.ledger.entry(transactionRow(e), 1, -i, { bulkLoad: true });
    });
    expect(mirror.sqlite.prepare('SELECT COUNT(*) FROM gift_card_transactions').pluck().get()).toBe(6);

    const settings = () => ({
      cache: mirror.sqlite.pragma('cache_size', { simple: true }),
      threads: mirror.sqlite.pragma('threads', { simple: true }),
    });
    const before = settings();
    expect(createLedgerIndexes(mirror.sqlite, 1)).toBe(3);

    expect(indexNames()).toEqual(withIndexes);
    // The index builds sort with a small cache and two threads, then give the connection back as it was.
    expect(settings()).toEqual(before);
    const rows = mirror.sqlite
      .prepare(
        'SELECT entry_id, transaction_id, amount_cents, list_order FROM gift_card_transactions ORDER BY entry_id',
      )
      .all();
    expect(rows).toEqual([
      { entry_id: 1, transaction_id: 'a', amount_cents: 1000, list_order: 0 },
      { entry_id: 2, transaction_id: 'b', amount_cents: 2600, list_order: -1 },
      { entry_id: 4, transaction_id: 'c', amount_cents: 3000, list_order: -3 },
    ]);
    const versions = mirror.sqlite
      .prepare(
        "SELECT transaction_id, previous_raw_json ->> '$.amount' AS was, new_raw_json ->> '$.amount' AS now FROM gift_card_transaction_versions ORDER BY version_id",
      )
      .all();
    expect(versions).toEqual([
      { transaction_id: 'b', was: 20, now: 25 },
      { transaction_id: 'b', was: 25, now: 26 },
    ]);
  });

  it('is rebuilt when a mirror left without its indexes is opened again', async () => {
    const withIndexes = indexNames();
    dropLedgerIndexes(mirror.sqlite);
    const writer = new SyncStore(mirror);
    await writer.batch(async () => {
      for (const [i, e] of [entry('a', 10), entry('a', 10)].entries())
        await writer.ledger.entry(transactionRow(e), 1, -i, { bulkLoad: true });
    });
    mirror.close();
    const warnings: string[] = [];
    mirror = openMirror(join(dir, 'ledger.db'), { warn: (message) => warnings.push(message) });
    expect(indexNames()).toEqual(withIndexes);
    // The command says why it pauses, once, before the build (about 2.5 s a million entries).
    expect(warnings).toEqual([
      'a first sync stopped while loading the ledger: building its indexes over 2 entries first (about 2.5 s a million)',
    ]);
    expect(mirror.sqlite.prepare('SELECT COUNT(*) FROM gift_card_transactions').pluck().get()).toBe(1);
    mirror.close();
    mirror = openMirror(join(dir, 'ledger.db'), { warn: (message) => warnings.push(message) });
    expect(warnings).toHaveLength(1);
    // With the unique index back, an entry seen again is an update, not a second row.
    expect(await new SyncStore(mirror).ledger.entry(transactionRow(entry('a', 10)), 2, 5)).toBe('same');
  });
});

describe('a --full walk over a mirror that held entries before it', () => {
  it('marks vanished exactly the earlier entries it did not find, clears those it found again, and empties its seen list', async () => {
    const writer = new SyncStore(mirror);
    const state = fc.record({ found: fc.boolean(), vanishedBefore: fc.boolean(), changed: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        fc.array(state, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 0, max: 3 }),
        async (earlier, newOnes) => {
          mirror.sqlite.exec(
            'DELETE FROM gift_card_transactions; DELETE FROM gift_card_transaction_versions; DELETE FROM ledger_walk_seen;',
          );
          const id = (i: number) => `e${i}`;
          await writer.batch(async () => {
            for (const i of earlier.keys()) await writer.ledger.entry(transactionRow(entry(id(i), 10)), 1, -i);
          });
          for (const [i, e] of earlier.entries())
            if (e.vanishedBefore)
              mirror.sqlite
                .prepare('UPDATE gift_card_transactions SET vanished_sync_run_id = 1 WHERE transaction_id = ?')
                .run(id(i));

          // Walk 2, in sync 2: the entries it finds (some changed), then a few it sees for the first time.
          const vanished = await writer.batch(async () => {
            for (const [i, e] of earlier.entries())
              if (e.found)
                await writer.ledger.entry(transactionRow(entry(id(i), e.changed ? 11 : 10)), 2, -i, { fullWalkId: 2 });
            for (let n = 0; n < newOnes; n += 1)
              await writer.ledger.entry(transactionRow(entry(`new${n}`, 5)), 2, 100 + n, { fullWalkId: 2 });
            return writer.ledger.markVanished(2, 2);
          });

          const expected = earlier.flatMap((e, i) => (!e.found && !e.vanishedBefore ? [id(i)] : []));
          expect(vanished).toBe(expected.length);
          const marked = (run: number) =>
            mirror.sqlite
              .prepare(
                'SELECT transaction_id FROM gift_card_transactions WHERE vanished_sync_run_id = ? ORDER BY entry_id',
              )
              .pluck()
              .all(run);
          expect(marked(2)).toEqual(expected);
          expect(marked(1)).toEqual(earlier.flatMap((e, i) => (!e.found && e.vanishedBefore ? [id(i)] : [])));
          expect(
            mirror.sqlite
              .prepare(
                "SELECT transaction_id FROM gift_card_transaction_versions WHERE change = 'vanished' ORDER BY version_id",
              )
              .pluck()
              .all(),
          ).toEqual(expected);
          expect(mirror.sqlite.prepare('SELECT COUNT(*) FROM ledger_walk_seen').pluck().get()).toBe(0);
        },
      ),
      runs(60),
    );
  });
});

describe("the cards' and coupons' bulk load", () => {
  const allIndexes = () =>
    mirror.sqlite
      .prepare("SELECT tbl_name, name FROM sqlite_master WHERE type = 'index' ORDER BY name")
      .all() as Array<{ tbl_name: string; name: string }>;

  it('drops the secondary indexes of the cards, coupons and their histories, and builds them back', () => {
    const withIndexes = allIndexes();
    dropCardIndexes(mirror.sqlite);
    dropCouponIndexes(mirror.sqlite);
    const left = allIndexes();
    const dropped = withIndexes.filter((index) => !left.some((l) => l.name === index.name));
    expect(dropped.map((index) => index.name).sort()).toEqual([
      'coupon_history_coupon',
      'gift_card_history_card',
      'gift_card_history_sync',
      'gift_cards_ledger_walk',
      'gift_cards_status',
    ]);
    createCardIndexes(mirror.sqlite);
    createCouponIndexes(mirror.sqlite);
    expect(allIndexes()).toEqual(withIndexes);
  });

  it('is rebuilt when a mirror left without them is opened again', () => {
    const withIndexes = allIndexes();
    dropCardIndexes(mirror.sqlite);
    dropCouponIndexes(mirror.sqlite);
    mirror.close();
    mirror = openMirror(join(dir, 'ledger.db'));
    expect(allIndexes()).toEqual(withIndexes);
  });
});

describe('a mirror made before entries had row numbers', () => {
  it('migrates with its entries in the order they were mirrored, and its views working', () => {
    // The migrations as they stood before 0006, applied to a fresh file.
    const before = join(dir, 'drizzle-0005');
    cpSync('drizzle', before, { recursive: true });
    const journalPath = join(before, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
    journal.entries = journal.entries.filter((e) => e.tag < '0006');
    writeFileSync(journalPath, JSON.stringify(journal));
    const path = join(dir, 'old.db');
    const old = new Database(path);
    migrate(drizzle(old), { migrationsFolder: before });
    const insert = old.prepare(
      `INSERT INTO gift_card_transactions (transaction_id, gift_card_id, type, amount_cents, balance_before_cents, balance_after_cents, reference_id, idempotency_key, created_at, created_at_ms, list_order, first_sync_run_id, last_seen_walk, raw_json)
       VALUES (?, 'card-1', 'DEBIT', 100, 1000, 900, 'ORD-1', ?, '2026-11-01T10:00:00.000Z', 0, ?, 1, 1, '{}')`,
    );
    for (const [i, id] of ['zz', 'aa', 'mm'].entries()) insert.run(id, `key-${id}`, -i);
    old.close();

    const migrated = openMirror(path);
    try {
      expect(
        migrated.sqlite.prepare('SELECT entry_id, transaction_id FROM gift_card_transactions ORDER BY entry_id').all(),
      ).toEqual([
        { entry_id: 1, transaction_id: 'zz' },
        { entry_id: 2, transaction_id: 'aa' },
        { entry_id: 3, transaction_id: 'mm' },
      ]);
      expect(migrated.sqlite.prepare('SELECT COUNT(*) FROM refunds_by_reference').pluck().get()).toBe(1);
      expect(() =>
        migrated.sqlite
          .prepare(
            "INSERT INTO gift_card_transactions (transaction_id, gift_card_id, type, reference_id, idempotency_key, created_at, created_at_ms, list_order, first_sync_run_id, raw_json) VALUES ('aa', 'c', 'DEBIT', 'r', 'k', 't', 0, 0, 1, '{}')",
          )
          .run(),
      ).toThrow(/UNIQUE/);
    } finally {
      migrated.close();
    }
  });
});
