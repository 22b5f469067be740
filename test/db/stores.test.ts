/**
 * Every store's hand-written SQL against the real schema: each statement prepares on a freshly
 * migrated mirror (a table or column the schema lacks fails here), and each read runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BooksStore } from '../../src/books/store.js';
import { ChecksStore } from '../../src/checks/store.js';
import type { Mirror } from '../../src/db/mirror.js';
import { giftCards, giftCardTransactions } from '../../src/db/schema.js';
import { LedgerStore } from '../../src/ledger/store.js';
import { ReportStore } from '../../src/report/store.js';
import { SyncStore } from '../../src/sync/store.js';
import { BACKENDS } from '../support/backends.js';

const all = async <T>(batches: AsyncIterable<T[]>): Promise<T[]> => {
  const rows: T[] = [];
  for await (const batch of batches) rows.push(...batch);
  return rows;
};

describe.each(BACKENDS)('the stores against the migrated schema ($name)', (backend) => {
  let mirror: Mirror;
  let cleanup: () => Promise<void>;
  beforeEach(async (context) => {
    if (!backend.available) return context.skip();
    ({ mirror, cleanup } = await backend.open());
  });
  afterEach(async () => {
    await cleanup?.();
  });

  it("prepares and runs the sync's statements", async () => {
    const store = new SyncStore(mirror);
    expect(await store.lists.listedCount('dp_orders')).toBe(0);
    expect(await store.cards.cardStates('all')).toEqual([]);
    expect(await store.cards.unknownCards(1, true)).toEqual([]);
    expect(await store.cards.activeCards(1, 0)).toEqual(new Set());
    expect(await store.lists.oneRecordPerMerchant('coupons', 5)).toEqual([]);
    expect(await store.runs.checkpoint('giftCards')).toBeUndefined();
    expect(await store.runs.boundIdentity()).toBeUndefined();
    expect(await store.runs.completedSyncs()).toBe(0);
  });

  it("prepares and runs the checks' reads, the card walk's cursors included", async () => {
    const store = new ChecksStore(mirror);
    for (const read of [
      store.coupons.couponRegressions(),
      store.cards.entryRewrites(1),
      store.cards.orphanEntries(undefined),
      store.orders.orderLineFigures(),
      store.wallets.walletPairs(1),
      store.unlisted(),
      store.merchantCounts(),
    ])
      expect(await read).toEqual([]);
    const cursors = new LedgerStore(mirror).ledgerCursors(
      [giftCards.giftCardId] as const,
      [giftCardTransactions.giftCardId] as const,
    );
    expect([...(await all(cursors.cards)), ...(await all(cursors.entries))]).toEqual([]);
  });

  it("prepares and runs the report's and the books' reads", async () => {
    const reads = new ReportStore(mirror);
    for (const rows of [
      reads.coupons(null),
      reads.orderLines(null),
      reads.wallets(),
      reads.quarantine(),
      reads.activity({ fromMs: 0, toMs: 1, merchantId: null }, 10),
    ] as AsyncIterable<unknown[]>[])
      expect(await all(rows)).toEqual([]);
    expect(await reads.count('gift_card_transactions', true)).toBe(0);
    const books = new BooksStore(mirror);
    expect(await books.matchRates()).toEqual([]);
    expect(await books.counts()).toEqual({ held: 0, rejected: 0 });
    const rolledBack = books.importing(async (session) => {
      expect(await session.claimedBy(['no-such-row'])).toEqual(new Map());
      expect(await session.held('tenders', 'books.csv', 1)).toBe(0);
      throw new Error('rolled back');
    });
    await expect(rolledBack).rejects.toThrow('rolled back');
    const matching = await books.replaceMatching(1, async (session) => {
      expect(await session.pairExactTenders({ merchant: null, from: 0 })).toEqual({ books: [], ledger: [] });
      expect(await session.cardsByCode(null, new Set(['ab']))).toEqual(new Map());
      for (const read of [session.couponUses(), session.coupons(null), session.purchases(), session.orders()])
        expect(await read).toEqual([]);
    });
    expect(matching).toEqual({ groups: 0, byStatus: {} });
  });
});
