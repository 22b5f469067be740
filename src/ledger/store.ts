/**
 * The ledger stage's reads: the card walk's two ordered cursors over the mirrored cards and
 * their entries. The only code of the stage that writes SQL; it writes no table.
 */
import type { AnyColumn } from 'drizzle-orm';
import type { Mirror, SqlDialect } from '../db/mirror.js';
import type { SqlConnection } from '../db/connection.js';
import { selectList, type RowOf } from '../db/typed-rows.js';

/**
 * The ordered card walk's two cursors: cards by ID, and their entries by card, createdAt and
 * list order, each a raw positional row whose type comes from its schema columns (objects per
 * row cost a tenth of the walk), each streamed in batches. IDs are ordered byte by byte
 * (binaryOrder), as JavaScript compares them. `only`: a JSON array of card IDs, to walk those cards alone.
 */
export interface LedgerCursors<C extends readonly AnyColumn[], E extends readonly AnyColumn[]> {
  cards: AsyncGenerator<Array<RowOf<C>>>;
  entries: AsyncGenerator<Array<RowOf<E>>>;
}

/** A card's columns its history keeps: as of a sync, they are read from there (the others do not change). */
const AS_WAS = new Set(['status', 'remaining_balance_cents', 'read_at_ms']);

/** Rows the walk's cursors hand out at a time. */
const WALK_ROWS = 1_000;

export class LedgerStore {
  readonly #c: SqlConnection;
  readonly #dialect: SqlDialect;

  constructor(mirror: Mirror) {
    this.#c = mirror.connection;
    this.#dialect = mirror.dialect;
  }

  /**
   * Opens the card walk's cursors (see {@link LedgerCursors}): the caller merges them in one
   * ordered pass and closes the entries' cursor when done.
   */
  ledgerCursors<C extends readonly AnyColumn[], E extends readonly AnyColumn[]>(
    cardColumns: C,
    entryColumns: E,
    only?: string,
    asOfSync?: number,
  ): LedgerCursors<C, E> {
    if (asOfSync !== undefined) return this.#cursorsAsOf(cardColumns, entryColumns, asOfSync);
    const d = this.#dialect;
    const cardsOnly = only === undefined ? '' : `WHERE ${d.inJsonArray('gift_card_id', '@only')}`;
    const entriesOnly = only === undefined ? '' : `AND ${d.inJsonArray('gift_card_id', '@only')}`;
    const bound = only === undefined ? [] : [{ only }];
    return {
      cards: this.#c
        .readRaw<RowOf<C>>(
          `SELECT ${selectList(cardColumns)} FROM gift_cards ${d.indexedBy('gift_cards_ledger_walk')} ${cardsOnly} ORDER BY ${d.binaryOrder('gift_card_id')}`,
        )
        .batches(bound, WALK_ROWS),
      entries: this.#c
        .readRaw<RowOf<E>>(
          `SELECT ${selectList(entryColumns)} FROM gift_card_transactions ${d.indexedBy('gift_card_transactions_card')}
           WHERE vanished_sync_run_id IS NULL ${entriesOnly} ORDER BY ${d.binaryOrder('gift_card_id')}, created_at_ms, list_order`,
        )
        .batches(bound, WALK_ROWS),
    };
  }

  /**
   * The same cursors over the mirror as it stood when sync `asOf` finished, rebuilt from its
   * history: the cards it had seen, each card's status, balance and read time from its newest
   * history row of that sync or before; the entries it had seen and not yet found vanished. (An entry the
   * service rewrote later reads as now: see {@link LedgerStore.entriesRewrittenAfter}.)
   */
  #cursorsAsOf<C extends readonly AnyColumn[], E extends readonly AnyColumn[]>(
    cardColumns: C,
    entryColumns: E,
    asOf: number,
  ): LedgerCursors<C, E> {
    const d = this.#dialect;
    const asWas = (column: string) =>
      `(SELECT h.${column} FROM gift_card_history h WHERE h.gift_card_id = gift_cards.gift_card_id AND h.sync_run_id <= @asOf ORDER BY h.history_id DESC LIMIT 1)`;
    const cards = cardColumns
      .map((column) => (AS_WAS.has(column.name) ? asWas(column.name) : `"${column.name}"`))
      .join(', ');
    return {
      cards: this.#c
        .readRaw<RowOf<C>>(
          `SELECT ${cards} FROM gift_cards WHERE first_sync_run_id <= @asOf ORDER BY ${d.binaryOrder('gift_card_id')}`,
        )
        .batches([{ asOf }], WALK_ROWS),
      entries: this.#c
        .readRaw<RowOf<E>>(
          `SELECT ${selectList(entryColumns)} FROM gift_card_transactions ${d.indexedBy('gift_card_transactions_card')}
           WHERE first_sync_run_id <= @asOf AND (vanished_sync_run_id IS NULL OR vanished_sync_run_id > @asOf)
           ORDER BY ${d.binaryOrder('gift_card_id')}, created_at_ms, list_order`,
        )
        .batches([{ asOf }], WALK_ROWS),
    };
  }

  /** Entries the mirror had by sync `asOf` that the service rewrote after it (their earlier versions are kept apart). */
  async entriesRewrittenAfter(asOf: number): Promise<number> {
    const rows = await this.#c
      .read<{ n: number }>(
        `SELECT COUNT(DISTINCT v.transaction_id) AS n FROM gift_card_transaction_versions v
         JOIN gift_card_transactions t ON t.transaction_id = v.transaction_id
         WHERE v.sync_run_id > @asOf AND t.first_sync_run_id <= @asOf`,
      )
      .all({ asOf });
    return Number(rows[0]?.n ?? 0);
  }
}
