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
  ): LedgerCursors<C, E> {
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
}
