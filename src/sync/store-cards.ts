/**
 * The sync's gift cards: their snapshots and history, the cards the ledger names that the
 * service cannot find, the cards found in flight, and the settle pass's reads of them.
 */
import type { SqlDialect } from '../db/mirror.js';
import type { SqlRow } from '../db/connection.js';
import type { GiftCardRow } from './rows.js';
import { CARD_HISTORY_FIELDS } from '../db/schema.js';
import {
  list,
  marks,
  statesOf,
  type CardBefore,
  type Keyed,
  type SyncSession,
  type WriteOutcome,
} from './store-session.js';

const CARD_COLUMNS = [
  'gift_card_id',
  'merchant_id',
  'program_id',
  'template_id',
  'status',
  'currency',
  'initial_balance_cents',
  'remaining_balance_cents',
  'version',
  'issued_at',
  'issued_at_ms',
  'expires_at',
  'expires_at_ms',
  'created_at',
  'updated_at',
  'updated_at_ms',
  'raw_json',
] as const satisfies ReadonlyArray<keyof GiftCardRow>;

/** A card's snapshot beside its newest ledger entry (tail_*), for the settle pass. */
export type CardState = SqlRow<
  'gift_cards',
  'gift_card_id' | 'version' | 'status' | 'updated_at_ms' | 'read_sync_run_id'
> & {
  remaining: number | null;
  tail_after: number | null;
  tail_created_ms: number;
};

const newestEntry = (column: string): string => `(
  SELECT t.${column} FROM gift_card_transactions t WHERE t.gift_card_id = c.gift_card_id AND t.vanished_sync_run_id IS NULL
  ORDER BY t.created_at_ms DESC, t.list_order DESC LIMIT 1)`;
const cardStateSql = (settleCards: string, d: SqlDialect): string => `
  SELECT * FROM (
    SELECT c.gift_card_id, c.version, c.status, c.remaining_balance_cents AS remaining, c.updated_at_ms, c.read_sync_run_id,
           ${newestEntry('balance_after_cents')} AS tail_after, ${newestEntry('created_at_ms')} AS tail_created_ms
    FROM ${settleCards} s ${d.joinInOrder} gift_cards c ON c.gift_card_id = s.gift_card_id) states
  WHERE tail_created_ms IS NOT NULL`;

export class CardStore {
  readonly #session: SyncSession;
  readonly #s;

  constructor(session: SyncSession) {
    this.#session = session;
    const { c, mirror } = session;
    const p = (sql: string) => c.write(sql);
    this.#s = {
      cardGet: c.read<CardBefore>(
        'SELECT status, remaining_balance_cents, version, raw_json FROM gift_cards WHERE gift_card_id = ?',
      ),
      cardsGet: c.read<CardBefore & Keyed>(
        `SELECT gift_card_id AS id, status, remaining_balance_cents, version, raw_json FROM gift_cards WHERE ${mirror.dialect.inJsonArray('gift_card_id', '?')}`,
      ),
      cardInsert: p(
        `INSERT INTO gift_cards (${list(CARD_COLUMNS)}, read_at_ms, read_sync_run_id, first_sync_run_id) VALUES (${marks(CARD_COLUMNS.length + 3)})`,
      ),
      cardUpdate: p(
        `UPDATE gift_cards SET (${list(CARD_COLUMNS)}, read_at_ms, read_sync_run_id) = (${marks(CARD_COLUMNS.length + 2)}) WHERE gift_card_id = ?`,
      ),
      cardHistory: p(
        `INSERT INTO gift_card_history (gift_card_id, sync_run_id, read_at_ms, status, remaining_balance_cents, version, fields_kept, ${list(CARD_HISTORY_FIELDS)})
         VALUES (${marks(7 + CARD_HISTORY_FIELDS.length)})`,
      ),
      missing: p(
        'INSERT INTO missing_gift_cards (gift_card_id, sync_run_id, checked_at_ms) VALUES (?, ?, ?) ON CONFLICT (gift_card_id) DO UPDATE SET sync_run_id = excluded.sync_run_id, checked_at_ms = excluded.checked_at_ms',
      ),
      found: p('DELETE FROM missing_gift_cards WHERE gift_card_id = ?'),
      listedNotFound: p(
        'INSERT INTO listed_not_found (sync_run_id, gift_card_id) VALUES (?, ?) ON CONFLICT (sync_run_id, gift_card_id) DO NOTHING',
      ),
      inFlight: p(
        'INSERT INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?) ON CONFLICT (sync_run_id, gift_card_id) DO UPDATE SET detail = excluded.detail',
      ),
      cardStatus: c.pluck<string>('SELECT status FROM gift_cards WHERE gift_card_id = ?'),
      cardState: c.read<SqlRow<'gift_cards', 'version' | 'remaining_balance_cents' | 'status'>>(
        'SELECT version, remaining_balance_cents, status FROM gift_cards WHERE gift_card_id = ?',
      ),
    };
  }

  /** Inside a batch on a server: these cards' mirrored state, read in one statement. */
  async lookUp(ids: readonly string[]): Promise<void> {
    this.#session.lookedUp.cards = await statesOf(this.#s.cardsGet, ids);
  }

  /** A card's mirrored state: as looked up for the batch (then as this batch wrote it), or read now. */
  async #cardBefore(id: string): Promise<CardBefore | undefined> {
    const looked = this.#session.lookedUp.cards;
    return looked?.has(id) ? looked.get(id) : this.#s.cardGet.get(id);
  }

  /** Upserts a card snapshot; a history row marks a new card or a changed one, with the fields the ledger walk reads. */
  async card(read: GiftCardRow, syncRunId: number, readAtMs: number): Promise<WriteOutcome> {
    const row = this.#session.storable(read);
    const before = this.#session.unseen('gift_cards', row.gift_card_id)
      ? undefined
      : await this.#cardBefore(row.gift_card_id);
    // The same card met again in this batch compares with what the batch wrote.
    this.#session.lookedUp.cards?.set(row.gift_card_id, {
      status: row.status,
      remaining_balance_cents: row.remaining_balance_cents,
      version: row.version,
      raw_json: row.raw_json,
    });
    const values = [...CARD_COLUMNS.map((column) => row[column]), readAtMs, syncRunId];
    const history = (): void =>
      this.#s.cardHistory.later(
        row.gift_card_id,
        syncRunId,
        readAtMs,
        row.status,
        row.remaining_balance_cents,
        row.version,
        1,
        ...CARD_HISTORY_FIELDS.map((column) => row[column]),
      );
    if (!before) {
      this.#s.cardInsert.later(...values, syncRunId);
      history();
      return 'new';
    }
    // Unchanged: nothing to write. Its snapshot keeps the sync that last saw it change, and
    // the settle pass re-reads it if its ledger moved since.
    if (before.raw_json === row.raw_json) return 'same';
    this.#s.cardUpdate.later(...values, row.gift_card_id);
    // Any change is kept as of this sync, not only its balance, status or version: a night
    // re-performed later reads the card's fields (its expiry, its merchant) as that night did.
    history();
    return 'changed';
  }

  /**
   * A card a read by ID answered 404 for. `listed`: the list answered with it this sync (the
   * service disagrees with itself), kept as that night's sighting for GC_LISTED_NOT_FOUND.
   */
  async missingCard(giftCardId: string, syncRunId: number, checkedAtMs: number, listed = false): Promise<void> {
    this.#s.missing.later(giftCardId, syncRunId, checkedAtMs);
    if (listed) this.#s.listedNotFound.later(syncRunId, giftCardId);
  }

  async foundCard(giftCardId: string): Promise<void> {
    this.#s.found.later(giftCardId);
  }

  async inFlight(syncRunId: number, giftCardId: string, detail: string): Promise<void> {
    this.#s.inFlight.later(syncRunId, giftCardId, detail);
  }

  /** The mirrored status of each of these cards that the mirror holds. */
  async cardStatuses(giftCardIds: readonly string[]): Promise<Map<string, string>> {
    const statusOf = this.#s.cardStatus;
    const found = new Map<string, string>();
    for (const id of giftCardIds) {
      const status = await statusOf.get(id);
      if (status !== undefined) found.set(id, status);
    }
    return found;
  }

  /** A card as mirrored, for a re-read to compare with. */
  async mirroredCard(
    giftCardId: string,
  ): Promise<SqlRow<'gift_cards', 'version' | 'remaining_balance_cents' | 'status'> | undefined> {
    return await this.#s.cardState.get(giftCardId);
  }

  /**
   * The given cards (or every mirrored card) that have ledger entries, each with its snapshot
   * and its newest entry: two backward seeks per card into the covering index
   * gift_card_transactions_card. The dialect's joinInOrder keeps the listed cards as the outer loop, so
   * unlisted cards are never sought.
   */
  async cardStates(cards: Iterable<string> | 'all'): Promise<CardState[]> {
    const c = this.#session.c;
    return this.#session.serially(async () => {
      const settleCards = c.dialect.temporary('settle_cards');
      await c.exec(
        `CREATE TEMP TABLE IF NOT EXISTS settle_cards (gift_card_id ${c.dialect.idText} PRIMARY KEY); DELETE FROM ${settleCards};`,
      );
      if (cards === 'all') {
        await c.exec(`INSERT INTO ${settleCards} SELECT gift_card_id FROM gift_cards`);
      } else {
        // One transaction: committed one by one, each insert wrote a page and its journal copy
        // to the temporary file (165 MB for the 4,780 cards a 1 % night moves).
        const insert = c.write(c.dialect.insertOrSkip(settleCards, ['gift_card_id']));
        for (const id of cards) await insert.run(id);
      }
      return c.read<CardState>(cardStateSql(settleCards, c.dialect)).all();
    });
  }

  /**
   * Cards whose snapshot may be older than their ledger: entries first mirrored since the last
   * completed sync (`since`), by this sync or by one killed before it re-read their cards; a
   * snapshot changed in this sync; and the cards a sync since `since` (or `since` itself) found
   * in flight, read again whether or not they moved since.
   */
  async activeCards(syncRunId: number, since: number): Promise<Set<string>> {
    const active = this.#session.c.pluck<string>(
      `SELECT DISTINCT gift_card_id FROM gift_card_transactions WHERE first_sync_run_id > @since
       UNION SELECT gift_card_id FROM gift_card_history WHERE sync_run_id = @run
       UNION SELECT gift_card_id FROM gift_cards_in_flight WHERE sync_run_id >= @since AND sync_run_id < @run`,
    );
    return new Set(await active.all({ run: syncRunId, since }));
  }

  /**
   * Cards the ledger names that the mirror does not hold (and this sync has not found missing):
   * over every current entry (`everyEntry`), or over this sync's new entries and the cards
   * already missing.
   */
  async unknownCards(syncRunId: number, everyEntry: boolean): Promise<string[]> {
    const scope = everyEntry
      ? ''
      : 'AND (t.first_sync_run_id = @run OR t.gift_card_id IN (SELECT gift_card_id FROM missing_gift_cards))';
    return this.#session.c
      .pluck<string>(
        `SELECT DISTINCT t.gift_card_id FROM gift_card_transactions t
       LEFT JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
       LEFT JOIN missing_gift_cards m ON m.gift_card_id = t.gift_card_id AND m.sync_run_id = @run
       WHERE c.gift_card_id IS NULL AND m.gift_card_id IS NULL AND t.vanished_sync_run_id IS NULL ${scope}`,
      )
      .all({ run: syncRunId });
  }
}
