/**
 * The checks' reads of the DP's wallets: consecutive snapshots, and the orders that moved a
 * wallet between them (see store.ts).
 */
import type { Mirror, MirrorQueries } from '../db/mirror.js';

/** A wallet read: the wallet carries no timestamp, so the read is an interval from the request sent to the answer received. */
export interface WalletRead {
  walletId: string;
  currency: string;
  balanceCents: number;
  requestedAtMs: number;
  answeredAtMs: number;
  syncRunId: number;
}

/** What moved a wallet between two reads: orders placed (deducted) and orders that failed (credited back), with when. */
export interface WalletMove {
  cents: number;
  atMs: number;
  kind: 'placed' | 'failed';
}

/** Two consecutive snapshots of a wallet, with the orders that moved it in between (from the first request to the second answer). */
export interface WalletPair {
  previous: WalletRead;
  current: WalletRead;
  moves: WalletMove[];
}

export class WalletReads {
  private readonly db: MirrorQueries;

  constructor(mirror: Mirror) {
    this.db = mirror.queries;
  }

  /**
   * Every pair of consecutive snapshots of a wallet up to sync `syncRunId`, not only the newest
   * (a drift is an event between two snapshots, found again on every later night), each with
   * the orders placed and failed in its currency between its first request and its second answer.
   * Snapshots kept before the request was stamped: their read is the instant of the answer.
   */
  async walletPairs(syncRunId: number): Promise<WalletPair[]> {
    const pairs = await this.db
      .selectFrom('dp_wallet_snapshots as s')
      .innerJoin('dp_wallet_snapshots as p', (join) =>
        join.onRef('p.wallet_id', '=', 's.wallet_id').on('p.sync_run_id', '=', (eb) =>
          eb
            .selectFrom('dp_wallet_snapshots as q')
            .select((q) => q.fn.max('q.sync_run_id').as('run'))
            .whereRef('q.wallet_id', '=', 's.wallet_id')
            .whereRef('q.sync_run_id', '<', 's.sync_run_id'),
        ),
      )
      .select([
        's.wallet_id as walletId',
        's.currency',
        's.balance_cents as balanceCents',
        's.requested_at_ms as requestedAtMs',
        's.read_at_ms as readAtMs',
        's.sync_run_id as syncRunId',
        'p.balance_cents as previousBalanceCents',
        'p.requested_at_ms as previousRequestedAtMs',
        'p.read_at_ms as previousReadAtMs',
        'p.sync_run_id as previousSyncRunId',
      ])
      .where('s.sync_run_id', '<=', syncRunId)
      .orderBy('s.wallet_id')
      .orderBy('s.sync_run_id')
      .execute();
    const result: WalletPair[] = [];
    for (const w of pairs) {
      if (w.balanceCents === null || w.previousBalanceCents === null) continue;
      const previous: WalletRead = {
        walletId: w.walletId,
        currency: w.currency,
        balanceCents: w.previousBalanceCents,
        requestedAtMs: w.previousRequestedAtMs ?? w.previousReadAtMs,
        answeredAtMs: w.previousReadAtMs,
        syncRunId: w.previousSyncRunId,
      };
      const current: WalletRead = {
        walletId: w.walletId,
        currency: w.currency,
        balanceCents: w.balanceCents,
        requestedAtMs: w.requestedAtMs ?? w.readAtMs,
        answeredAtMs: w.readAtMs,
        syncRunId: w.syncRunId,
      };
      result.push({
        previous,
        current,
        moves: await this.#walletMoves(w.currency, previous.requestedAtMs, current.answeredAtMs),
      });
    }
    return result;
  }

  /** The orders placed, and the orders that failed, in a currency between two instants (both included). */
  async #walletMoves(currency: string, fromMs: number, toMs: number): Promise<WalletMove[]> {
    const placed = await this.db
      .selectFrom('dp_orders')
      .select(['total_amount_cents as cents', 'created_at_ms as atMs'])
      .where('currency', '=', currency)
      .where('created_at_ms', '>=', fromMs)
      .where('created_at_ms', '<=', toMs)
      .where('total_amount_cents', 'is not', null)
      .execute();
    const failed = await this.db
      .selectFrom('dp_orders')
      .select(['total_amount_cents as cents', 'updated_at_ms as atMs'])
      .where('currency', '=', currency)
      .where('status', '=', 'FAILED')
      .where('updated_at_ms', '>=', fromMs)
      .where('updated_at_ms', '<=', toMs)
      .where('total_amount_cents', 'is not', null)
      .execute();
    const move =
      (kind: WalletMove['kind']) =>
      (row: { cents: number | null; atMs: number }): WalletMove[] =>
        row.cents === null ? [] : [{ cents: row.cents, atMs: row.atMs, kind }];
    return [...placed.flatMap(move('placed')), ...failed.flatMap(move('failed'))];
  }
}
