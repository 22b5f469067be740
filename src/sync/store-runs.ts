/**
 * The sync's own records: its runs, the mirror's binding to one pair of services, each walk's
 * checkpoint, and the records set aside in quarantine.
 */
import type { SqlRow } from '../db/connection.js';
import type { PayloadValidationError } from '../errors.js';
import { carriesSecret, redact } from '../log.js';
import type { Resource } from '../api/wire-types.js';
import { recordIdOf, storedRawJson } from './rows.js';
import { sha256Hex } from '../hash.js';
import type { SyncSession } from './store-session.js';

export interface Checkpoint {
  resource: string;
  walkId: number;
  mode: 'full' | 'incremental';
  cursor: string | null;
  pages: number;
  records: number;
  stopBeforeMs: number | null;
  done: boolean;
}

/** The tables whose rows came from the services (the rest derive from them, or are the sync's own). */
const SERVICE_RECORDS = [
  'gift_cards',
  'quarantine',
  'coupons',
  'dp_products',
  'dp_orders',
  'dp_wallet_snapshots',
] as const;

export class SyncRunStore {
  readonly #session: SyncSession;
  readonly #s;

  constructor(session: SyncSession) {
    this.#session = session;
    const { c } = session;
    const p = (sql: string) => c.write(sql);
    this.#s = {
      quarantine:
        p(`INSERT INTO quarantine (resource, record_id, reason, raw_json, raw_sha256, first_sync_run_id, last_sync_run_id) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (resource, raw_sha256) DO UPDATE SET last_sync_run_id = excluded.last_sync_run_id, reason = excluded.reason`),
      sighting:
        p(`INSERT INTO quarantine_sightings (quarantine_id, sync_run_id) SELECT quarantine_id, last_sync_run_id FROM quarantine WHERE resource = ? AND raw_sha256 = ?
        ON CONFLICT (sync_run_id, quarantine_id) DO NOTHING`),
      checkpointGet: c.read<SqlRow<'sync_checkpoints'>>('SELECT * FROM sync_checkpoints WHERE resource = ?'),
      checkpointPut:
        p(`INSERT INTO sync_checkpoints (resource, walk_id, mode, cursor, pages, records, stop_before_ms, done, updated_at_ms) VALUES (@resource, @walkId, @mode, @cursor, @pages, @records, @stopBeforeMs, @done, @updatedAtMs)
        ON CONFLICT (resource) DO UPDATE SET walk_id = excluded.walk_id, mode = excluded.mode, cursor = excluded.cursor, pages = excluded.pages, records = excluded.records, stop_before_ms = excluded.stop_before_ms, done = excluded.done, updated_at_ms = excluded.updated_at_ms`),
    };
  }

  /** Marks failed every sync still marked running: the caller holds the lock, so each was stopped before it could finish. */
  async failInterruptedSyncs(): Promise<void> {
    await this.#session.db
      .updateTable('sync_runs')
      .set({ status: 'failed', error: 'interrupted: the process stopped before the sync finished' })
      .where('status', '=', 'running')
      .execute();
  }

  /** How many syncs completed. */
  async completedSyncs(): Promise<number> {
    const row = await this.#session.db
      .selectFrom('sync_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'completed')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The newest sync before `syncRunId` that completed (0: none). */
  async lastCompletedBefore(syncRunId: number): Promise<number> {
    const row = await this.#session.db
      .selectFrom('sync_runs')
      .select((eb) => eb.fn.max('sync_run_id').as('run'))
      .where('status', '=', 'completed')
      .where('sync_run_id', '<', syncRunId)
      .executeTakeFirst();
    return Number(row?.run ?? 0);
  }

  /** Records a sync as started. @returns its number. */
  async startSync(
    run: Pick<
      SqlRow<'sync_runs'>,
      'mode' | 'started_at' | 'started_at_ms' | 'pid' | 'giftcard_base_url' | 'dp_base_url'
    >,
  ): Promise<number> {
    const started = await this.#session.db
      .insertInto('sync_runs')
      // Each record it rejects is also recorded as rejected by this sync (quarantine_sightings).
      .values({ ...run, status: 'running', sightings_kept: 1 })
      .returning('sync_run_id')
      .executeTakeFirstOrThrow();
    return started.sync_run_id;
  }

  /** Records how a sync ended. */
  async finishSync(
    syncRunId: number,
    end: Pick<SqlRow<'sync_runs'>, 'status' | 'finished_at' | 'finished_at_ms' | 'error' | 'summary_json'>,
  ): Promise<void> {
    await this.#session.db.updateTable('sync_runs').set(end).where('sync_run_id', '=', syncRunId).execute();
  }

  /** The summary the newest failed sync recorded. */
  async lastFailedSyncSummary(): Promise<string | null | undefined> {
    const row = await this.#session.db
      .selectFrom('sync_runs')
      .select('summary_json')
      .where('status', '=', 'failed')
      .orderBy('sync_run_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.summary_json;
  }

  /** The identity the mirror is bound to, if any. */
  async boundIdentity(): Promise<SqlRow<'mirror_identity'> | undefined> {
    return this.#session.db.selectFrom('mirror_identity').selectAll().where('identity_id', '=', 1).executeTakeFirst();
  }

  /** The addresses the newest sync read (a mirror synced before identities were recorded). */
  async newestSyncAddresses(): Promise<SqlRow<'sync_runs', 'giftcard_base_url' | 'dp_base_url'> | undefined> {
    return this.#session.db
      .selectFrom('sync_runs')
      .select(['giftcard_base_url', 'dp_base_url'])
      .orderBy('sync_run_id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Whether the mirror holds anything either service sent: a record, a quarantined payload, a
   * wallet's snapshot. A binding that holds nothing (its first sync refused at the door: a
   * mistyped client ID or secret) binds nothing.
   */
  async holdsRecords(): Promise<boolean> {
    for (const table of SERVICE_RECORDS) {
      const row = await this.#session.db
        .selectFrom(table)
        .select((eb) => eb.lit(1).as('held'))
        .limit(1)
        .executeTakeFirst();
      if (row) return true;
    }
    return false;
  }

  /** Binds the mirror to this identity (unchanged rows are not rewritten). */
  async bindIdentity(identity: Omit<SqlRow<'mirror_identity'>, 'identity_id'>): Promise<void> {
    const fields = ['giftcard_base_url', 'giftcard_client_id', 'dp_base_url', 'dp_client_id'] as const;
    await this.#session.db
      .insertInto('mirror_identity')
      .values({ identity_id: 1, ...identity })
      .onConflict((oc) =>
        oc
          .column('identity_id')
          .doUpdateSet((eb) => ({
            ...Object.fromEntries(fields.map((field) => [field, eb.ref(`excluded.${field}`)])),
            bound_at: eb.ref('excluded.bound_at'),
          }))
          // Unchanged: the row (and when it was bound) stays as it was.
          .where((eb) =>
            eb.or(
              fields.map((field) => eb(`mirror_identity.${field}`, 'is distinct from', eb.ref(`excluded.${field}`))),
            ),
          ),
      )
      .execute();
  }

  /**
   * A rebind: what the previous services listed is no longer current, so two services' records
   * never merge. Ledger entries stay as last read, marked vanished by this sync without a
   * version row (no entry of theirs was rewritten: another service is being read); cards,
   * coupons, products and orders leave the current tables, their history staying in
   * gift_card_history, coupon_history and dp_order_history; walks in progress start again.
   * Records the new services list again (the same service at a new address) come back as read.
   * The sync is marked `rebound`.
   */
  async retireBinding(syncRunId: number): Promise<void> {
    const c = this.#session.c;
    await this.#session.serially(async () => {
      // Re-performance reads it: a night before it cannot be rebuilt, and what it closed is gone after it.
      await c.write('UPDATE sync_runs SET rebound = ? WHERE sync_run_id = ?').run(1, syncRunId);
      await c
        .write('UPDATE gift_card_transactions SET vanished_sync_run_id = ? WHERE vanished_sync_run_id IS NULL')
        .run(syncRunId);
      // The coupons' and orders' versions say they are no longer listed from this sync on.
      await c
        .write(
          'INSERT INTO coupon_versions (coupon_id, sync_run_id, raw_json) SELECT coupon_id, CAST(? AS INTEGER), NULL FROM coupons WHERE vanished_sync_run_id IS NULL',
        )
        .run(syncRunId);
      await c
        .write(
          'INSERT INTO dp_order_versions (order_id, sync_run_id, raw_json, currency, total_amount_cents) SELECT order_id, CAST(? AS INTEGER), NULL, NULL, NULL FROM dp_orders WHERE vanished_sync_run_id IS NULL',
        )
        .run(syncRunId);
      for (const table of [
        'missing_gift_cards',
        'gift_cards',
        'coupons',
        'dp_products',
        'dp_orders',
        'sync_checkpoints',
        'ledger_walk_seen',
      ])
        await c.write(`DELETE FROM ${table}`).run();
    });
  }

  async checkpoint(resource: string): Promise<Checkpoint | undefined> {
    const row = await this.#s.checkpointGet.get(resource);
    if (!row) return undefined;
    return {
      resource: row.resource,
      walkId: row.walk_id,
      mode: row.mode,
      cursor: row.cursor,
      pages: row.pages,
      records: row.records,
      stopBeforeMs: row.stop_before_ms,
      done: Boolean(row.done),
    };
  }

  /**
   * Keeps a walk's place. A cursor that carries a client secret is sent back to the service as
   * received but never stored: the checkpoint keeps no cursor, and a resumed walk starts the
   * list again from its head. `updatedAtMs`: when, by the sync's clock.
   */
  async saveCheckpoint(checkpoint: Checkpoint, updatedAtMs: number): Promise<void> {
    const cursor =
      checkpoint.cursor !== null && carriesSecret(checkpoint.cursor, this.#session.secrets) ? null : checkpoint.cursor;
    this.#s.checkpointPut.later({ ...checkpoint, cursor, done: checkpoint.done ? 1 : 0, updatedAtMs });
  }

  /** Sets a failed record aside with its raw JSON (voucher codes hashed, PINs removed) and reason. */
  async quarantine(resource: Resource, error: PayloadValidationError, syncRunId: number): Promise<void> {
    const raw = redact(storedRawJson(error.raw), this.#session.secrets);
    const digest = sha256Hex(raw);
    this.#s.quarantine.later(resource, recordIdOf(error.raw), error.reason, raw, digest, syncRunId, syncRunId);
    this.#s.sighting.later(resource, digest);
  }
}
