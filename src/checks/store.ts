/**
 * The checks' reads, typed and async: the SQL of the query checks in the two-halves shape
 * (RowsCheck), one method per read, each returning typed rows; the decisions over them are the
 * checks' own, pure. The checks stage writes nothing. The reads are in parts by what they read:
 * this file the syncs, merchants, unlisted and quarantined records and the books' matching;
 * `.cards` (store-cards.ts), `.coupons` (store-coupons.ts), `.orders` (store-orders.ts) and
 * `.wallets` (store-wallets.ts).
 */
import { BooksReads, type MatchGroup } from '../books/store.js';
import type { MatchStatus } from '../books/match.js';
import type { Mirror, MirrorQueries, SqlDialect } from '../db/mirror.js';
import type { SqlConnection } from '../db/connection.js';
import { edgeOf, type SyncEdge } from './ledger-reads.js';
import { CardReads } from './store-cards.js';
import { CouponReads } from './store-coupons.js';
import { OrderReads } from './store-orders.js';
import { WalletReads } from './store-wallets.js';

export type { CardInFlight, EntryRewrite, KeyedEntry, ListedNotFound, OrphanEntry, StuckCard } from './store-cards.js';
export type { CouponCounts, CouponStep } from './store-coupons.js';
export type {
  ConvertedLine,
  DeliveredVoucher,
  OpenOrder,
  OrderLineDelivery,
  OrderLineFigures,
  OrderTotals,
  SharedReference,
  SharedVoucher,
} from './store-orders.js';
export type { WalletMove, WalletPair, WalletRead } from './store-wallets.js';

/** A record the sync set aside, with why. */
export interface Quarantined {
  quarantineId: number;
  resource: string;
  recordId: string | null;
  reason: string;
  rawSha256: string;
}

/** The checks' store over a mirror's typed queries. */
export function checksStore(context: { mirror: Mirror }): ChecksStore {
  return new ChecksStore(context.mirror);
}

/** A record the service no longer lists, and since which sync. */
export interface UnlistedRecord {
  type: string;
  id: string;
  since: number;
}

/** A merchant's cards and coupons in the mirror. */
export interface MerchantCount {
  merchantId: string;
  n: number;
}

export class ChecksStore {
  readonly #books: BooksReads;
  private readonly db: MirrorQueries;
  readonly #c: SqlConnection;
  readonly #dialect: SqlDialect;

  readonly cards: CardReads;
  readonly coupons: CouponReads;
  readonly orders: OrderReads;
  readonly wallets: WalletReads;

  constructor(mirror: Mirror) {
    this.cards = new CardReads(mirror);
    this.coupons = new CouponReads(mirror);
    this.orders = new OrderReads(mirror);
    this.wallets = new WalletReads(mirror);
    this.db = mirror.queries;
    this.#c = mirror.connection;
    this.#dialect = mirror.dialect;
    this.#books = new BooksReads(mirror.queries);
  }

  /** The mirror's newest sync (whatever its status), or undefined when there is none. */
  async newestSync(): Promise<SyncEdge | undefined> {
    const row = await this.#syncs().orderBy('sync_run_id', 'desc').limit(1).executeTakeFirst();
    return row && edgeOf(row);
  }

  /** The newest completed sync before `beforeSyncRunId` (every completed sync when absent). */
  async newestCompletedSync(beforeSyncRunId?: number): Promise<SyncEdge | undefined> {
    let query = this.#syncs().where('status', '=', 'completed');
    if (beforeSyncRunId !== undefined) query = query.where('sync_run_id', '<', beforeSyncRunId);
    const row = await query.orderBy('sync_run_id', 'desc').limit(1).executeTakeFirst();
    return row && edgeOf(row);
  }

  /** Sync `syncRunId` (whatever its status), or undefined. */
  async sync(syncRunId: number): Promise<SyncEdge | undefined> {
    const row = await this.#syncs().where('sync_run_id', '=', syncRunId).executeTakeFirst();
    return row && edgeOf(row);
  }

  /** Whether sync `syncRunId` recorded each record it rejected (quarantine_sightings), so its rejections can be read as they stood. */
  async sightingsKept(syncRunId: number): Promise<boolean> {
    const kept = await this.#c
      .pluck<number>('SELECT CASE WHEN sightings_kept THEN 1 ELSE 0 END FROM sync_runs WHERE sync_run_id = ?')
      .get(syncRunId);
    return Number(kept ?? 0) === 1;
  }

  #syncs() {
    return this.db
      .selectFrom('sync_runs')
      .select([
        'sync_run_id as syncRunId',
        'status',
        'error',
        'started_at_ms as startedAtMs',
        'summary_json as summaryJson',
      ]);
  }

  /** Each merchant's cards and coupons, most first. */
  async merchantCounts(): Promise<MerchantCount[]> {
    return this.#c
      .read<MerchantCount>(`SELECT merchant_id AS "merchantId", SUM(n) AS n FROM (SELECT merchant_id, COUNT(*) AS n FROM gift_cards GROUP BY merchant_id UNION ALL SELECT merchant_id, COUNT(*) FROM coupons GROUP BY merchant_id) counts
       GROUP BY merchant_id ORDER BY SUM(n) DESC, merchant_id`)
      .all();
  }

  /** Coupons and orders the service no longer lists. */
  async unlisted(): Promise<UnlistedRecord[]> {
    const coupons = await this.db
      .selectFrom('coupons')
      .select(['coupon_id as id', 'vanished_sync_run_id as since'])
      .where('vanished_sync_run_id', 'is not', null)
      .execute();
    const orders = await this.db
      .selectFrom('dp_orders')
      .select(['order_id as id', 'vanished_sync_run_id as since'])
      .where('vanished_sync_run_id', 'is not', null)
      .execute();
    return [
      ...coupons.map((row) => ({ type: 'coupon', id: row.id, since: Number(row.since) })),
      ...orders.map((row) => ({ type: 'dpOrder', id: row.id, since: Number(row.since) })),
    ];
  }

  /** The latest matching's groups of these kinds in these states (the books stage keeps them). */
  async matchGroups(kinds: readonly string[], statuses: readonly MatchStatus[]): Promise<MatchGroup[]> {
    return this.#books.matchGroups(kinds, statuses);
  }

  /**
   * Records rejected by the sync `syncRunId`, and ledger entries rejected earlier of which no
   * valid copy has arrived since (an entry is not read again after its sync). `asOf`
   * (re-performance): as they stood when that sync finished, from the syncs each record's
   * rejection was recorded by (quarantine_sightings) and the entries the mirror had then.
   */
  async quarantinedAt(syncRunId: number, asOf = false): Promise<Quarantined[]> {
    if (asOf)
      return this.#quarantine()
        .where((eb) =>
          eb.or([
            eb.exists(
              eb
                .selectFrom('quarantine_sightings as s')
                .select('s.quarantine_id')
                .whereRef('s.quarantine_id', '=', 'q.quarantine_id')
                .where('s.sync_run_id', '=', syncRunId),
            ),
            eb.and([
              eb('q.resource', '=', 'giftCardTransactions'),
              eb('q.first_sync_run_id', '<=', syncRunId),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('gift_card_transactions as t')
                    .select('t.transaction_id')
                    .whereRef('t.transaction_id', '=', 'q.record_id')
                    .where('t.first_sync_run_id', '<=', syncRunId),
                ),
              ),
            ]),
          ]),
        )
        .orderBy('q.quarantine_id')
        .execute();
    return this.#quarantine()
      .where((eb) =>
        eb.or([
          eb('q.last_sync_run_id', '=', syncRunId),
          eb.and([
            eb('q.resource', '=', 'giftCardTransactions'),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('gift_card_transactions as t')
                  .select('t.transaction_id')
                  .whereRef('t.transaction_id', '=', 'q.record_id'),
              ),
            ),
          ]),
        ]),
      )
      .orderBy('q.quarantine_id')
      .execute();
  }

  #quarantine() {
    return this.db
      .selectFrom('quarantine as q')
      .select([
        'q.quarantine_id as quarantineId',
        'q.resource',
        'q.record_id as recordId',
        'q.reason',
        'q.raw_sha256 as rawSha256',
      ]);
  }
}
