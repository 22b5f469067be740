/**
 * The sync's ledger entries: each entry as read, the earlier versions of those that changed,
 * the entries a --full walk no longer found (vanished), and the reads the settle pass makes.
 */
import type { SqlRow } from '../db/connection.js';
import { ENTRY_VERSIONED_COLUMNS } from '../db/schema.js';
import type { TransactionRow } from './rows.js';
import {
  list,
  statesOf,
  type EntryBefore,
  type EntryLooked,
  type Keyed,
  type SyncSession,
  type WriteOutcome,
} from './store-session.js';

/** A ledger entry's figures as mirrored. */
export type MirroredEntry = SqlRow<
  'gift_card_transactions',
  | 'gift_card_id'
  | 'type'
  | 'amount_cents'
  | 'balance_before_cents'
  | 'balance_after_cents'
  | 'created_at_ms'
  | 'vanished_sync_run_id'
>;

export class LedgerEntryStore {
  readonly #session: SyncSession;
  readonly #s;

  constructor(session: SyncSession) {
    this.#session = session;
    const { c, mirror } = session;
    const p = (sql: string) => c.write(sql);
    this.#s = {
      entryGet: c.read<EntryBefore>(
        'SELECT entry_id, vanished_sync_run_id, CASE WHEN raw_json = ? THEN 1 ELSE 0 END AS unchanged FROM gift_card_transactions WHERE transaction_id = ?',
      ),
      entryRaw: c.pluck<string>('SELECT raw_json FROM gift_card_transactions WHERE entry_id = ?'),
      entriesGet: c.read<EntryLooked & Keyed>(
        `SELECT transaction_id AS id, entry_id, raw_json, vanished_sync_run_id FROM gift_card_transactions WHERE ${mirror.dialect.inJsonArray('transaction_id', '?')}`,
      ),
      // Bound by position: the ledger's hot path (named binding of a fresh object costs several µs a row).
      entryInsert: p(
        mirror.dialect.insertOrSkip('gift_card_transactions', [
          'transaction_id',
          'gift_card_id',
          'type',
          'amount_cents',
          'balance_before_cents',
          'balance_after_cents',
          'reference_id',
          'idempotency_key',
          'created_at',
          'created_at_ms',
          'list_order',
          'first_sync_run_id',
          'raw_json',
        ]),
      ),
      entryUpdate:
        p(`UPDATE gift_card_transactions SET gift_card_id = @gift_card_id, type = @type, amount_cents = @amount_cents, balance_before_cents = @balance_before_cents, balance_after_cents = @balance_after_cents,
        reference_id = @reference_id, idempotency_key = @idempotency_key, created_at = @created_at, created_at_ms = @created_at_ms, vanished_sync_run_id = NULL, raw_json = @raw_json WHERE transaction_id = @transaction_id`),
      entrySeen: p('INSERT INTO ledger_walk_seen (walk_id, entry_id) VALUES (?, ?)'),
      // The entry's figures before the change are copied from its row, which still holds them
      // (the version is written before the entry's update): a past night re-performs with them.
      entryVersion: p(
        `INSERT INTO gift_card_transaction_versions (transaction_id, sync_run_id, change, previous_raw_json, new_raw_json, ${list(ENTRY_VERSIONED_COLUMNS.map((column) => `previous_${column}`))})
         SELECT t.transaction_id, CAST(? AS INTEGER), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ${list(ENTRY_VERSIONED_COLUMNS.map((column) => `t.${column}`))}
         FROM gift_card_transactions t WHERE t.transaction_id = ?`,
      ),
      // Entries first mirrored by this walk were seen by it; earlier ones must be in its seen list.
      vanishedSelect: c.read<
        SqlRow<'gift_card_transactions', 'transaction_id' | 'raw_json'>
      >(`SELECT transaction_id, raw_json FROM gift_card_transactions
        WHERE first_sync_run_id < @walkId AND vanished_sync_run_id IS NULL AND ${mirror.dialect.notIn('gift_card_transactions.entry_id', 'seen.entry_id', 'ledger_walk_seen seen', 'seen.walk_id = @walkId')}`),
      seenClear: p('DELETE FROM ledger_walk_seen'),
      vanishedMark: p('UPDATE gift_card_transactions SET vanished_sync_run_id = ? WHERE transaction_id = ?'),
      newestEntry: c.pluck<number | null>('SELECT MAX(created_at_ms) FROM gift_card_transactions'),
      entryState: c.read<MirroredEntry>(
        'SELECT gift_card_id, type, amount_cents, balance_before_cents, balance_after_cents, created_at_ms, vanished_sync_run_id FROM gift_card_transactions WHERE transaction_id = ?',
      ),
    };
  }

  /** Inside a batch on a server: these entries' mirrored state, read in one statement. */
  async lookUp(ids: readonly string[]): Promise<void> {
    this.#session.lookedUp.entries = await statesOf(this.#s.entriesGet, ids);
  }

  /**
   * A ledger entry's mirrored state against the one just read: as the batch looked it up (its
   * JSON at hand, on a server) or asked of the database (whether its JSON is the same).
   */
  async #entryBefore(row: TransactionRow): Promise<(EntryBefore & { raw_json?: string }) | undefined> {
    const looked = this.#session.lookedUp.entries;
    if (!looked?.has(row.transaction_id)) return this.#s.entryGet.get(row.raw_json, row.transaction_id);
    const state = looked.get(row.transaction_id);
    return state && { ...state, unchanged: state.raw_json === row.raw_json ? 1 : 0 };
  }

  /**
   * Upserts a ledger entry; one that comes back different keeps its previous version. A bulk
   * load into an empty ledger tries the insert first (nearly every entry is new, and the
   * lookup is skipped); otherwise most entries are known and the lookup comes first. A --full
   * walk passes its ID: an entry the mirror held before is then noted as found by that walk.
   */
  async entry(
    read: TransactionRow,
    syncRunId: number,
    listOrder: number,
    how: { bulkLoad?: boolean; fullWalkId?: number | undefined } = {},
  ): Promise<WriteOutcome> {
    const row = this.#session.storable(read);
    // Built only for an insert: most entries a night reads are known and unchanged.
    const values = () => [
      row.transaction_id,
      row.gift_card_id,
      row.type,
      row.amount_cents,
      row.balance_before_cents,
      row.balance_after_cents,
      row.reference_id,
      row.idempotency_key,
      row.created_at,
      row.created_at_ms,
      listOrder,
      syncRunId,
      row.raw_json,
    ];
    // A bulk load has no unique index to meet: every insert is a new row (endLoad collapses repeats).
    if (how.bulkLoad) {
      this.#s.entryInsert.later(...values());
      return 'new';
    }
    const id = row.transaction_id;
    let before = await this.#entryBefore(row);
    if (!before) {
      // Met again in this batch, it is looked up as the mirror then holds it.
      this.#session.lookedUp.entries?.delete(id);
      const inserted = await this.#s.entryInsert.run(...values());
      if (inserted === 1) return 'new';
      before = await this.#s.entryGet.get(row.raw_json, id);
      if (!before) throw new Error(`ledger entry ${id} neither inserted nor found`);
    }
    this.#session.lookedUp.entries?.set(id, {
      entry_id: before.entry_id,
      raw_json: row.raw_json,
      vanished_sync_run_id: null,
    });
    if (how.fullWalkId !== undefined) this.#s.entrySeen.later(how.fullWalkId, before.entry_id);
    // Unchanged: nothing to write.
    if (before.unchanged === 1 && before.vanished_sync_run_id === null) return 'same';
    if (before.unchanged !== 1)
      this.#s.entryVersion.later(
        syncRunId,
        'changed',
        before.raw_json ?? (await this.#s.entryRaw.get(before.entry_id)),
        row.raw_json,
        id,
      );
    this.#s.entryUpdate.later(row);
    return 'changed';
  }

  /**
   * After a complete --full walk: the entries the mirror held before it that it did not find
   * have vanished from the service. Empties the walk's seen list.
   */
  async markVanished(walkId: number, syncRunId: number): Promise<number> {
    const gone = await this.#s.vanishedSelect.all({ walkId });
    for (const entry of gone) {
      this.#s.entryVersion.later(syncRunId, 'vanished', entry.raw_json, null, entry.transaction_id);
      this.#s.vanishedMark.later(syncRunId, entry.transaction_id);
    }
    this.#s.seenClear.later();
    return gone.length;
  }

  /** The newest mirrored entry's creation time (0: none). */
  async newestEntryMs(): Promise<number> {
    return (await this.#s.newestEntry.get()) ?? 0;
  }

  /** The cards of the given ledger entries. */
  async cardsOfEntries(transactionIds: readonly string[]): Promise<string[]> {
    const card = this.#session.c.pluck<string>(
      'SELECT gift_card_id FROM gift_card_transactions WHERE transaction_id = ?',
    );
    const cards: string[] = [];
    for (const id of transactionIds) {
      const found = await card.get(id);
      if (found !== undefined) cards.push(found);
    }
    return cards;
  }

  /** A ledger entry as mirrored, for a re-read to compare with. */
  async mirroredEntry(transactionId: string): Promise<MirroredEntry | undefined> {
    return await this.#s.entryState.get(transactionId);
  }
}
