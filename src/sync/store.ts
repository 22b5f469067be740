/**
 * The sync's store: the only code that holds the mirror's connection for the tables the sync
 * owns, in four parts by concern, each its own file: the gift cards (store-cards.ts), the
 * ledger's entries (store-ledger.ts), the lists read whole every run (store-lists.ts: coupons,
 * wallets, products, orders) and the sync's own records (store-runs.ts: runs, the mirror's
 * binding, checkpoints, quarantine). Reads are async; the writes of one batch (a walk's pages
 * and their checkpoint) run inside {@link SyncStore.batch} as one unit, so no row is ever
 * committed without its checkpoint. The hot writes are prepared statements bound by position: a
 * bulk load, the one place where SQL stays hand-written (#31); each read's row type comes from
 * the schema.
 */
import type { LoadedTable, Mirror } from '../db/mirror.js';
import { CardStore } from './store-cards.js';
import { LedgerEntryStore } from './store-ledger.js';
import { ListStore } from './store-lists.js';
import { SyncRunStore } from './store-runs.js';
import { SyncSession } from './store-session.js';

export type { LoadedTable } from '../db/mirror.js';
export type { CardState } from './store-cards.js';
export type { MirroredEntry } from './store-ledger.js';
export type { CountedTable, ListedTable } from './store-lists.js';
export type { Checkpoint } from './store-runs.js';
export type { WriteOutcome } from './store-session.js';

/**
 * Every read and write the sync makes, by part. The per-record writes (a card, an entry, a
 * coupon, …) are valid only inside {@link SyncStore.batch}: a page's writes and its checkpoint
 * are one unit.
 */
export class SyncStore {
  readonly cards: CardStore;
  readonly ledger: LedgerEntryStore;
  readonly lists: ListStore;
  readonly runs: SyncRunStore;
  readonly #session: SyncSession;

  /** `secrets`: the client secrets, which no stored row or checkpoint may carry. */
  constructor(mirror: Mirror, secrets: readonly string[] = []) {
    this.#session = new SyncSession(mirror, secrets);
    this.cards = new CardStore(this.#session);
    this.ledger = new LedgerEntryStore(this.#session);
    this.lists = new ListStore(this.#session);
    this.runs = new SyncRunStore(this.#session);
  }

  /**
   * Runs a batch of writes (`work` awaits the per-record writes, and nothing else) as one
   * transaction: all of it commits, or none. Batches asked for at the same time (walks read at
   * the same time) run one after another, never sharing a transaction.
   */
  async batch<T>(work: () => Promise<T>): Promise<T> {
    return this.#session.serially(async () => {
      try {
        return await work();
      } finally {
        this.#session.lookedUp = {};
      }
    });
  }

  /**
   * Inside a batch, before its writes: reads the mirrored state of these cards (or coupons) in
   * one statement, so that each record's write needs no lookup of its own (a round trip per
   * record, on a server). A bulk load has nothing to read; SQLite's lookups one at a time are
   * faster than one statement over a JSON list, so there it reads nothing ahead.
   */
  async lookUp(
    table: 'gift_cards' | 'coupons' | 'gift_card_transactions' | 'dp_orders',
    ids: readonly string[],
  ): Promise<void> {
    const session = this.#session;
    if (
      !session.c.remote ||
      ((table === 'gift_cards' || table === 'coupons') && session.loading.has(table)) ||
      ids.length === 0
    )
      return;
    if (table === 'gift_card_transactions') await this.ledger.lookUp(ids);
    else if (table === 'gift_cards') await this.cards.lookUp(ids);
    else if (table === 'dp_orders') await this.lists.lookUpOrders(ids);
    else await this.lists.lookUpCoupons(ids);
  }

  /**
   * Before a walk of `table`: an empty table is loaded in bulk, its secondary indexes dropped
   * and built once, sorted, by {@link endLoad}. @returns whether this is a bulk load.
   */
  async beginLoad(table: LoadedTable): Promise<boolean> {
    const empty = await this.#session.mirror.beginLoad(table);
    // On a server a lookup is a round trip; in process it costs less than remembering every ID.
    if (empty && table !== 'gift_card_transactions' && this.#session.c.remote)
      this.#session.loading.set(table, new Set());
    return empty;
  }

  /**
   * After a walk of `table`: builds any index {@link beginLoad} dropped. For the ledger,
   * entries a bulk load mirrored twice (the list shifted under the walk) collapse onto their
   * first row, credited to `syncRunId`. @returns how many rows collapsed.
   */
  async endLoad(table: LoadedTable, syncRunId: number): Promise<number> {
    if (table !== 'gift_card_transactions') this.#session.loading.delete(table);
    return this.#session.mirror.endLoad(table, syncRunId);
  }

  /** After a sync: the WAL's frames copied into the database file, the WAL started again. */
  async compact(): Promise<void> {
    await this.#session.mirror.compact();
  }
}
