/**
 * The checks' reads of gift cards and their ledger entries: the cards in flight, rewritten and
 * orphaned entries, idempotency keys used twice. One method per query check's read, typed rows
 * back (see store.ts).
 */
import type { Mirror, MirrorQueries, SqlDialect } from '../db/mirror.js';
import type { SqlConnection } from '../db/connection.js';

/** A card the sync recorded in flight, with its currency where the mirror holds the card. */
export interface CardInFlight {
  giftCardId: string;
  detail: string;
  currency: string | null;
}

/** A card in flight on every one of the recent syncs, since which. */
export interface StuckCard {
  giftCardId: string;
  currency: string | null;
  sinceSyncRunId: number;
}

/** A current ledger entry under an idempotency key that more than one entry carries. */
export interface KeyedEntry {
  idempotencyKey: string;
  transactionId: string;
  giftCardId: string;
  currency: string | null;
  amountCents: number | null;
}

/** A rewrite or disappearance of a ledger entry the mirror recorded, with the fields that changed. */
export interface EntryRewrite {
  transaction_id: string;
  gift_card_id: string | null;
  change: 'changed' | 'vanished';
  sync_run_id: number;
  fields: string | null;
}

/** An entry of a card the mirror lacks, and whether the service answered 404 for the card. */
/** A card the list met that a read by ID answered 404 for. */
export interface ListedNotFound {
  gift_card_id: string;
}

export interface OrphanEntry {
  transaction_id: string;
  gift_card_id: string;
  type: string;
  reference_id: string;
  confirmed: number;
}

/** An entry's columns a rewrite can change, as sync @asOf read them (see entriesAsOf). */
const AS_WAS = ['gift_card_id', 'type', 'amount_cents', 'reference_id', 'idempotency_key', 'created_at_ms'];

/**
 * The ledger's entries as sync @asOf left them, as the table `s` (re-performance): those it had
 * seen and not yet found vanished, each column a later rewrite changed read from the entry's
 * first version after that sync (as the ledger's walk as of a sync reads them; a version
 * recorded before versions kept an entry's figures reads as now). Only the entries rewritten
 * since and those `candidates` admits are read, each by an index: the caller's condition, on
 * the entry's row `c` as it is now, must admit every entry that can be its as it was.
 */
function entriesAsOf(candidates: string): string {
  return `WITH first_change AS (
    SELECT v.transaction_id, MIN(v.version_id) AS version_id FROM gift_card_transaction_versions v
    WHERE v.sync_run_id > @asOf AND v.change = 'changed' GROUP BY v.transaction_id),
  s AS (
    SELECT t.entry_id, t.transaction_id, t.list_order,
      ${AS_WAS.map((column) => `CASE WHEN p.previous_created_at_ms IS NULL THEN t.${column} ELSE p.previous_${column} END AS ${column}`).join(', ')}
    FROM gift_card_transactions t
    LEFT JOIN first_change f ON f.transaction_id = t.transaction_id
    LEFT JOIN gift_card_transaction_versions p ON p.version_id = f.version_id
    WHERE t.transaction_id IN (SELECT c.transaction_id FROM gift_card_transactions c WHERE ${candidates} UNION SELECT transaction_id FROM first_change)
      AND t.first_sync_run_id <= @asOf AND (t.vanished_sync_run_id IS NULL OR t.vanished_sync_run_id > @asOf))`;
}

export class CardReads {
  private readonly db: MirrorQueries;
  readonly #c: SqlConnection;
  readonly #dialect: SqlDialect;

  constructor(mirror: Mirror) {
    this.db = mirror.queries;
    this.#c = mirror.connection;
    this.#dialect = mirror.dialect;
  }

  /** The cards a sync recorded in flight. */
  async cardIdsInFlight(syncRunId: number): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('gift_cards_in_flight')
      .select('gift_card_id')
      .where('sync_run_id', '=', syncRunId)
      .execute();
    return new Set(rows.map((row) => row.gift_card_id));
  }

  /** Every rewrite and disappearance of a ledger entry recorded by sync `upToSyncRunId` or before, with the top-level fields that changed. */
  async entryRewrites(upToSyncRunId: number): Promise<EntryRewrite[]> {
    return this.#c
      .read<EntryRewrite>(`SELECT v.transaction_id, ${this.#dialect.jsonField('v.previous_raw_json', 'giftCardId')} AS gift_card_id, v.change, v.sync_run_id,
              ${this.#dialect.changedJsonKeys('v.previous_raw_json', 'v.new_raw_json')} AS fields
       FROM gift_card_transaction_versions v WHERE v.sync_run_id <= ?
       ORDER BY v.transaction_id, v.version_id`)
      .all(upToSyncRunId);
  }

  /**
   * The cards sync `syncRunId` met in the list that a read by ID answered 404 for, but those
   * with ledger entries the mirror had by then (each entry of those is a GC_ORPHAN_ENTRY).
   */
  async listedNotFound(syncRunId: number): Promise<ListedNotFound[]> {
    return this.#c
      .read<ListedNotFound>(`SELECT l.gift_card_id FROM listed_not_found l
       WHERE l.sync_run_id = ?
         AND NOT EXISTS (SELECT 1 FROM gift_card_transactions t WHERE t.gift_card_id = l.gift_card_id AND t.first_sync_run_id <= ?)
       ORDER BY l.gift_card_id`)
      .all(syncRunId, syncRunId);
  }

  /**
   * The current entries of cards the mirror lacks: of `orphanCardIds` when the card walk found them, else found here.
   * `asOfSync` (re-performance): the entries sync `asOfSync` had seen, as they were then, of the cards it had not.
   */
  async orphanEntries(orphanCardIds: readonly string[] | undefined, asOfSync?: number): Promise<OrphanEntry[]> {
    if (orphanCardIds?.length === 0) return [];
    if (asOfSync !== undefined) {
      // The cards the walk as of that sync found missing, else those the mirror did not have then.
      const missing = orphanCardIds
        ? (column: string) => this.#dialect.inJsonArray(column, '@cards')
        : (column: string) => `${column} NOT IN (SELECT gift_card_id FROM gift_cards WHERE first_sync_run_id <= @asOf)`;
      return this.#c
        .read<OrphanEntry>(`${entriesAsOf(missing('c.gift_card_id'))}
         SELECT s.transaction_id, s.gift_card_id, s.type, s.reference_id, m.gift_card_id IS NOT NULL AS confirmed
         FROM s LEFT JOIN missing_gift_cards m ON m.gift_card_id = s.gift_card_id
         WHERE ${missing('s.gift_card_id')}
         ORDER BY s.gift_card_id, s.created_at_ms, s.list_order`)
        .all({ asOf: asOfSync, ...(orphanCardIds ? { cards: JSON.stringify(orphanCardIds) } : {}) });
    }
    const orphans = orphanCardIds
      ? this.#dialect.inJsonArray('t.gift_card_id', '@cards')
      : 't.gift_card_id IN (SELECT DISTINCT gift_card_id FROM gift_card_transactions EXCEPT SELECT gift_card_id FROM gift_cards)';
    return this.#c
      .read<OrphanEntry>(`SELECT t.transaction_id, t.gift_card_id, t.type, t.reference_id, m.gift_card_id IS NOT NULL AS confirmed
       FROM gift_card_transactions t
       LEFT JOIN missing_gift_cards m ON m.gift_card_id = t.gift_card_id
       WHERE ${orphans}
         AND t.vanished_sync_run_id IS NULL
       ORDER BY t.gift_card_id, t.created_at_ms, t.list_order`)
      .all(...(orphanCardIds ? [{ cards: JSON.stringify(orphanCardIds) }] : []));
  }

  /**
   * The cards in flight on each of the last `runs` syncs: `syncRunId` and the completed ones
   * before it (a failed sync between counts for nothing), with since which sync.
   */
  async cardsInFlightOnEach(syncRunId: number, runs: number): Promise<StuckCard[]> {
    const recent = await this.db
      .selectFrom('sync_runs')
      .select('sync_run_id')
      .where((eb) =>
        eb.or([
          eb('sync_run_id', '=', syncRunId),
          eb.and([eb('sync_run_id', '<', syncRunId), eb('status', '=', 'completed')]),
        ]),
      )
      .orderBy('sync_run_id', 'desc')
      .limit(runs)
      .execute();
    if (recent.length < runs) return [];
    return this.db
      .selectFrom('gift_cards_in_flight as f')
      .leftJoin('gift_cards as c', 'c.gift_card_id', 'f.gift_card_id')
      .select((eb) => [
        'f.gift_card_id as giftCardId',
        'c.currency',
        eb.fn.min<number>('f.sync_run_id').as('sinceSyncRunId'),
      ])
      .where(
        'f.sync_run_id',
        'in',
        recent.map((row) => row.sync_run_id),
      )
      .groupBy(['f.gift_card_id', 'c.currency'])
      .having((eb) => eb.fn.countAll(), '=', runs)
      .orderBy('f.gift_card_id')
      .execute();
  }

  /**
   * The current ledger entries under an idempotency key more than one current entry carries,
   * by key, then in the order they were mirrored. Candidates come from the index alone
   * (vanished entries included); the count over current entries keeps the real ones.
   * `asOfSync` (re-performance): the entries sync `asOfSync` had seen, as they were then.
   */
  async entriesSharingKey(asOfSync?: number): Promise<KeyedEntry[]> {
    if (asOfSync !== undefined)
      return this.#c
        .read<KeyedEntry>(`${entriesAsOf(
          // A key shared then is shared by two entries now, or was an entry's before a rewrite since.
          `c.idempotency_key IN (SELECT idempotency_key FROM gift_card_transactions GROUP BY idempotency_key HAVING COUNT(*) > 1
             UNION SELECT previous_idempotency_key FROM gift_card_transaction_versions WHERE sync_run_id > @asOf)`,
        )}
         SELECT s.idempotency_key AS "idempotencyKey", s.transaction_id AS "transactionId", s.gift_card_id AS "giftCardId",
                c.currency, s.amount_cents AS "amountCents"
         FROM s LEFT JOIN gift_cards c ON c.gift_card_id = s.gift_card_id AND c.first_sync_run_id <= @asOf
         WHERE s.idempotency_key IN (SELECT k.idempotency_key FROM s k GROUP BY k.idempotency_key HAVING COUNT(*) > 1)
         ORDER BY s.idempotency_key, s.entry_id`)
        .all({ asOf: asOfSync });
    return this.db
      .selectFrom('gift_card_transactions as t')
      .leftJoin('gift_cards as c', 'c.gift_card_id', 't.gift_card_id')
      .select([
        't.idempotency_key as idempotencyKey',
        't.transaction_id as transactionId',
        't.gift_card_id as giftCardId',
        'c.currency',
        't.amount_cents as amountCents',
      ])
      .where('t.vanished_sync_run_id', 'is', null)
      .where('t.idempotency_key', 'in', (eb) =>
        eb
          .selectFrom('gift_card_transactions as k')
          .select('k.idempotency_key')
          .where('k.vanished_sync_run_id', 'is', null)
          .where('k.idempotency_key', 'in', (inner) =>
            inner
              .selectFrom('gift_card_transactions')
              .select('idempotency_key')
              .groupBy('idempotency_key')
              .having((h) => h.fn.countAll(), '>', 1),
          )
          .groupBy('k.idempotency_key')
          .having((h) => h.fn.countAll(), '>', 1),
      )
      .orderBy('t.idempotency_key')
      .orderBy('t.entry_id')
      .execute();
  }

  /** The cards the sync `syncRunId` recorded in flight. */
  async cardsInFlight(syncRunId: number): Promise<CardInFlight[]> {
    return this.db
      .selectFrom('gift_cards_in_flight as f')
      .leftJoin('gift_cards as c', 'c.gift_card_id', 'f.gift_card_id')
      .select(['f.gift_card_id as giftCardId', 'f.detail', 'c.currency'])
      .where('f.sync_run_id', '=', syncRunId)
      .orderBy('f.gift_card_id')
      .execute();
  }
}
