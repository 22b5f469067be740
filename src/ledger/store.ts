/**
 * The ledger stage's reads: the card walk's two ordered cursors over the mirrored cards and
 * their entries; and its one table, the population's leaves kept from the newest night
 * (leaves.ts). The only code of the stage that writes SQL.
 */
import type { AnyColumn } from 'drizzle-orm';
import type { Mirror, SqlDialect } from '../db/mirror.js';
import type { SqlConnection } from '../db/connection.js';
import { selectList, type RowOf } from '../db/typed-rows.js';
import { CARD_HISTORY_FIELDS, ENTRY_VERSIONED_COLUMNS } from '../db/schema.js';

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

/** A card's columns every history row keeps: as of a sync, they are read from its newest row then (`h`). */
const AS_WAS = new Set(['status', 'remaining_balance_cents', 'read_at_ms']);

/**
 * A card's other columns a history row keeps when it says so (`fields_kept`, since migration
 * 0020 / pg 0006); from an older row, or none, the card's row (`c`) as it is now.
 */
const KEPT: ReadonlySet<string> = new Set(CARD_HISTORY_FIELDS);

/** A card's column as a past sync read it, from its newest history row then (`h`) or its row (`c`). */
function cardAsWas(column: string): string {
  if (AS_WAS.has(column)) return `h."${column}"`;
  if (KEPT.has(column)) return `CASE WHEN h.fields_kept = 1 THEN h."${column}" ELSE c."${column}" END`;
  return `c."${column}"`;
}

/**
 * An entry's first change after sync @asOf (its version `p`'s entry): read from the versions,
 * which are few, never probed for every entry.
 */
const FIRST_CHANGE_AFTER = `SELECT MIN(v.version_id) FROM gift_card_transaction_versions v
  WHERE v.transaction_id = p.transaction_id AND v.sync_run_id > @asOf AND v.change = 'changed'`;

/** An entry's versioned columns (what a rewrite can change). */
const VERSIONED = new Set(ENTRY_VERSIONED_COLUMNS);

/**
 * An entry's column as a past sync read it: from the entry's first version after that sync
 * (joined as `p`), which keeps the figures it changed; else, or where that version predates
 * the kept figures, the entry's row (`t`).
 */
function entryAsWas(column: string): string {
  return VERSIONED.has(column)
    ? `CASE WHEN p.previous_created_at_ms IS NULL THEN t."${column}" ELSE p."previous_${column}" END`
    : `t."${column}"`;
}

/** A card's population leaf kept from the newest night (leaves.ts): its ID, stamp, sync, and the leaf in hex. */
export type KeptLeaf = [giftCardId: string, stamp: string, syncRunId: number, leaf: string];

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
   * ordered pass and closes the entries' cursor when done. `onAThread`: the mirror as it is now,
   * its rows stepped on other threads (SqlConnection.readRaw's `onAThread`), for a walk whose caller
   * has work of its own to do with each card (the report's Card sheet).
   */
  ledgerCursors<C extends readonly AnyColumn[], E extends readonly AnyColumn[]>(
    cardColumns: C,
    entryColumns: E,
    only?: string,
    asOfSync?: number,
    onAThread = false,
  ): LedgerCursors<C, E> {
    if (asOfSync !== undefined) return this.#cursorsAsOf(cardColumns, entryColumns, asOfSync, only);
    const d = this.#dialect;
    const cardsOnly = only === undefined ? '' : `WHERE ${d.inJsonArray('gift_card_id', '@only')}`;
    const entriesOnly = only === undefined ? '' : `AND ${d.inJsonArray('gift_card_id', '@only')}`;
    const bound = only === undefined ? [] : [{ only }];
    return {
      cards: this.#cards(cardColumns, cardsOnly, bound, onAThread),
      entries: this.#c
        .readRaw<RowOf<E>>(
          `SELECT ${selectList(entryColumns)} FROM gift_card_transactions ${d.indexedBy('gift_card_transactions_card')}
           WHERE vanished_sync_run_id IS NULL ${entriesOnly} ORDER BY ${d.binaryOrder('gift_card_id')}, created_at_ms, list_order`,
          { onAThread },
        )
        .batches(bound, WALK_ROWS),
    };
  }

  /**
   * The walk's cursor of cards alone, as the mirror holds them now, in the walk's order: every
   * card the walk hands out, one for one (a run's kept sums are zipped with it by position), or
   * those in `only` (a JSON array of IDs) alone.
   */
  cards<C extends readonly AnyColumn[]>(
    cardColumns: C,
    onAThread = false,
    only?: string,
  ): AsyncGenerator<Array<RowOf<C>>> {
    return only === undefined
      ? this.#cards(cardColumns, '', [], onAThread)
      : this.#cards(cardColumns, `WHERE ${this.#dialect.inJsonArray('gift_card_id', '@only')}`, [{ only }], onAThread);
  }

  /** The kept population leaves, in the walk's order (cards by ID, byte by byte). */
  keptLeaves(): AsyncGenerator<KeptLeaf[]> {
    return this.#c
      .readRaw<KeptLeaf>(
        `SELECT gift_card_id, stamp, sync_run_id, leaf FROM population_leaves ORDER BY ${this.#dialect.binaryOrder('gift_card_id')}`,
      )
      .batches([], WALK_ROWS);
  }

  /**
   * Per card, the newest sync that changed its snapshot (its history), or rewrote or found
   * vanished one of its entries (as its card now or before the rewrite), after the oldest kept
   * leaf's sync: the cards a night's syncs moved, few.
   */
  async movedSinceKept(): Promise<Map<string, number>> {
    // No leaf kept (a first night): every card is hashed, and none need be looked up.
    if ((await this.#c.pluck<number>('SELECT 1 FROM population_leaves LIMIT 1').get()) === undefined) return new Map();
    const rows = await this.#c
      .read<{ id: string; sync: number }>(
        `SELECT id, MAX(sync) AS sync FROM (
           SELECT h.gift_card_id AS id, h.sync_run_id AS sync FROM gift_card_history h
             WHERE h.sync_run_id > (SELECT COALESCE(MIN(sync_run_id), 0) FROM population_leaves)
           UNION ALL
           SELECT t.gift_card_id AS id, v.sync_run_id AS sync FROM gift_card_transaction_versions v
             JOIN gift_card_transactions t ON t.transaction_id = v.transaction_id
             WHERE v.sync_run_id > (SELECT COALESCE(MIN(sync_run_id), 0) FROM population_leaves)
           UNION ALL
           SELECT v.previous_gift_card_id, v.sync_run_id FROM gift_card_transaction_versions v
             WHERE v.previous_gift_card_id IS NOT NULL
               AND v.sync_run_id > (SELECT COALESCE(MIN(sync_run_id), 0) FROM population_leaves)
         ) moved GROUP BY id`,
      )
      .all();
    return new Map(rows.map((row) => [row.id, Number(row.sync)]));
  }

  /** Keeps the leaves made again and lets go of the cards gone, in one transaction. */
  async keepLeaves(
    made: { ids: readonly string[]; stamps: readonly string[]; leaf(i: number): string },
    syncRunId: number,
    gone: readonly string[],
  ): Promise<void> {
    if (made.ids.length === 0 && gone.length === 0) return;
    await this.#c.transaction(async () => {
      const drop = this.#c.write('DELETE FROM population_leaves WHERE gift_card_id = ?');
      for (const id of gone) drop.later(id);
      const keep = this.#c.write(
        `INSERT INTO population_leaves (gift_card_id, stamp, sync_run_id, leaf) VALUES (?, ?, ?, ?)
         ON CONFLICT (gift_card_id) DO UPDATE SET stamp = excluded.stamp, sync_run_id = excluded.sync_run_id, leaf = excluded.leaf`,
      );
      for (let i = 0; i < made.ids.length; i += 1) keep.later(made.ids[i], made.stamps[i], syncRunId, made.leaf(i));
    });
  }

  /** How many cards the walk of the mirror as it is now hands out. */
  async cardCount(): Promise<number> {
    const rows = await this.#c.read<{ n: number }>('SELECT COUNT(*) AS n FROM gift_cards').all();
    return Number(rows[0]?.n ?? 0);
  }

  #cards<C extends readonly AnyColumn[]>(
    cardColumns: C,
    where: string,
    bound: object[],
    onAThread: boolean,
  ): AsyncGenerator<Array<RowOf<C>>> {
    const d = this.#dialect;
    return this.#c
      .readRaw<RowOf<C>>(
        `SELECT ${selectList(cardColumns)} FROM gift_cards ${d.indexedBy('gift_cards_ledger_walk')} ${where} ORDER BY ${d.binaryOrder('gift_card_id')}`,
        { onAThread },
      )
      .batches(bound, WALK_ROWS);
  }

  /**
   * The same cursors over the mirror as it stood when sync `asOf` finished, rebuilt from its
   * history: the cards it had seen, each card's status, balance, read time and (kept since
   * migration 0020) its other fields from its newest history row of that sync or before; the entries it had seen and not yet found vanished, an
   * entry the service rewrote later read as it was then, from its first version after that sync
   * (one recorded before versions kept an entry's figures reads as now: see
   * {@link LedgerStore.entriesRewrittenAfter}), the card's entries ordered by their time then.
   */
  #cursorsAsOf<C extends readonly AnyColumn[], E extends readonly AnyColumn[]>(
    cardColumns: C,
    entryColumns: E,
    asOf: number,
    only?: string,
  ): LedgerCursors<C, E> {
    const d = this.#dialect;
    const cards = cardColumns.map((column) => cardAsWas(column.name)).join(', ');
    const cardsOnly = only === undefined ? '' : `AND ${d.inJsonArray('c.gift_card_id', '@only')}`;
    return {
      cards: this.#c
        .readRaw<RowOf<C>>(
          `SELECT ${cards} FROM gift_cards c
           LEFT JOIN gift_card_history h ON h.history_id = (SELECT MAX(x.history_id) FROM gift_card_history x WHERE x.gift_card_id = c.gift_card_id AND x.sync_run_id <= @asOf)
           WHERE c.first_sync_run_id <= @asOf ${cardsOnly} ORDER BY ${d.binaryOrder('c.gift_card_id')}`,
        )
        .batches([{ asOf, ...(only === undefined ? {} : { only }) }], WALK_ROWS),
      entries: this.#entriesAsOf(entryColumns, asOf, only),
    };
  }

  /**
   * The entries as of sync `asOf` (see #cursorsAsOf), in the walk's order: those the service
   * did not rewrite since, in the index's order as the night read them, with the few it did
   * merged in where their figures then place them. Each row carries its key after its columns
   * (its card, time and list order then, and its ID).
   */
  async *#entriesAsOf<E extends readonly AnyColumn[]>(
    entryColumns: E,
    asOf: number,
    only?: string,
  ): AsyncGenerator<Array<RowOf<E>>> {
    const d = this.#dialect;
    type Keyed = [...RowOf<E>, string, number, number, string];
    const seen = 't.first_sync_run_id <= @asOf AND (t.vanished_sync_run_id IS NULL OR t.vanished_sync_run_id > @asOf)';
    // Of the cards in `only` alone, when given: a rewritten entry by its card then (below), every other by its card now.
    const ofNow = only === undefined ? '' : ` AND ${d.inJsonArray('t.gift_card_id', '@only')}`;
    const bound = { asOf, ...(only === undefined ? {} : { only }) };
    const width = entryColumns.length;
    const everyRewritten = await this.#c
      .readRaw<Keyed>(
        `SELECT ${entryColumns.map((column) => entryAsWas(column.name)).join(', ')},
                ${entryAsWas('gift_card_id')}, ${entryAsWas('created_at_ms')}, t.list_order, t.transaction_id
         FROM gift_card_transaction_versions p JOIN gift_card_transactions t ON t.transaction_id = p.transaction_id
         WHERE p.version_id = (${FIRST_CHANGE_AFTER}) AND ${seen}
         ORDER BY ${d.binaryOrder(`(${entryAsWas('gift_card_id')})`)}, ${entryAsWas('created_at_ms')}, t.list_order`,
      )
      .all({ asOf });
    // Every rewritten entry is left out of the pass below; those of the cards asked for are merged in as they were.
    const rewrittenIds = new Set(everyRewritten.map((row) => row[width + 3] as string));
    const asked = only === undefined ? null : new Set(JSON.parse(only) as string[]);
    const rewritten = asked === null ? everyRewritten : everyRewritten.filter((row) => asked.has(row[width] as string));
    // Whether row `a` walks before row `b`: by card ID byte by byte, then time, then list order.
    const precedes = (a: Keyed, b: Keyed): boolean => {
      const [cardA, atA, orderA] = [a[width] as string, a[width + 1] as number, a[width + 2] as number];
      const [cardB, atB, orderB] = [b[width] as string, b[width + 1] as number, b[width + 2] as number];
      return cardA !== cardB ? cardA < cardB : atA !== atB ? atA < atB : orderA < orderB;
    };
    let next = 0;
    // The key is read only where there is something to merge: most nights, nothing was rewritten since.
    const key = rewritten.length === 0 ? '' : ', t.gift_card_id, t.created_at_ms, t.list_order, t.transaction_id';
    const rows = this.#c
      .readRaw<Keyed>(
        `SELECT ${entryColumns.map((column) => `t."${column.name}"`).join(', ')}${key}
         FROM gift_card_transactions t ${d.indexedBy('gift_card_transactions_card')}
         WHERE ${seen}${ofNow} ORDER BY ${d.binaryOrder('t.gift_card_id')}, t.created_at_ms, t.list_order`,
      )
      .batches([bound], WALK_ROWS);
    for await (const batch of rows) {
      if (rewritten.length === 0) {
        yield batch as unknown as Array<RowOf<E>>;
        continue;
      }
      const merged: Keyed[] = [];
      for (const row of batch) {
        while (next < rewritten.length && precedes(rewritten[next]!, row)) merged.push(rewritten[next++]!);
        if (!rewrittenIds.has(row[width + 3] as string)) merged.push(row);
      }
      yield merged as unknown as Array<RowOf<E>>;
    }
    if (next < rewritten.length) yield rewritten.slice(next) as unknown as Array<RowOf<E>>;
  }

  /**
   * Entries the mirror had by sync `asOf` that the service rewrote after it and whose figures
   * before the rewrite were not kept (versions recorded before the mirror kept them): these
   * alone read as they are now.
   */
  async entriesRewrittenAfter(asOf: number): Promise<number> {
    const rows = await this.#c
      .read<{ n: number }>(
        `SELECT COUNT(*) AS n FROM gift_card_transaction_versions p JOIN gift_card_transactions t ON t.transaction_id = p.transaction_id
         WHERE p.version_id = (${FIRST_CHANGE_AFTER}) AND t.first_sync_run_id <= @asOf AND p.previous_created_at_ms IS NULL`,
      )
      .all({ asOf });
    return Number(rows[0]?.n ?? 0);
  }
}
