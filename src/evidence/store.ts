/**
 * The evidence stage's store: the chain of manifests (its one table, `evidence_manifests`) and
 * the reads a manifest needs besides the run's own figures: the mirror's identity, the coupons',
 * orders' and wallets' records in ID order, and the books files the matching read. The only code
 * of the stage that writes SQL.
 */
import type { Mirror, MirrorQueries } from '../db/mirror.js';
import type { SqlConnection } from '../db/connection.js';
import type { giftCards, giftCardTransactions } from '../db/schema.js';
import { fillScratchTable } from '../db/scratch.js';

export interface StoredManifest {
  sequence: number;
  kind: string;
  subject: string;
  digest: string;
  previousDigest: string | null;
  manifestJson: string;
}

/** A record as the population's Merkle tree takes it: its ID, its raw JSON, and the figures its controls sum. */
export interface RecordRow {
  id: string;
  raw: string;
  currency: string | null;
  cents: number | null;
}

const BATCH = 1_000;

export class EvidenceStore {
  readonly #db: MirrorQueries;
  readonly #c: SqlConnection;

  constructor(mirror: Mirror) {
    this.#db = mirror.queries;
    this.#c = mirror.connection;
  }

  /**
   * Writes `rows` (each its values in the order of `columns`) into `table` of this mirror, in one
   * transaction: for a scratch mirror alone, into which re-performance copies the ledger as of a
   * night beside its books (night-books.ts). The table's indexes but `keep` are dropped first
   * (db/scratch.ts).
   */
  async intoScratch(
    table: typeof giftCards | typeof giftCardTransactions,
    columns: readonly string[],
    batches: AsyncIterable<unknown[][]>,
    keep: readonly string[] = [],
  ): Promise<void> {
    await fillScratchTable(this.#c, table, columns, batches, keep);
  }

  /** The newest manifest of the chain, or undefined. */
  async newest(): Promise<StoredManifest | undefined> {
    return this.#manifests().orderBy('sequence', 'desc').limit(1).executeTakeFirst();
  }

  #manifests() {
    return this.#db
      .selectFrom('evidence_manifests')
      .select([
        'sequence',
        'kind',
        'subject',
        'digest',
        'previous_digest as previousDigest',
        'manifest_json as manifestJson',
      ]);
  }

  /** Every manifest of the chain, in its order: the mirror's log of seals (log.ts). */
  async all(): Promise<StoredManifest[]> {
    return this.#manifests().orderBy('sequence').execute();
  }

  /** The manifests that seal `subject` (a report written again with other outputs seals it anew), oldest first. */
  async bySubject(subject: string): Promise<StoredManifest[]> {
    return this.#manifests().where('subject', '=', subject).orderBy('sequence').execute();
  }

  async append(manifest: StoredManifest, writtenAtMs: number): Promise<void> {
    await this.#db
      .insertInto('evidence_manifests')
      .values({
        sequence: manifest.sequence,
        kind: manifest.kind,
        subject: manifest.subject,
        digest: manifest.digest,
        previous_digest: manifest.previousDigest,
        manifest_json: manifest.manifestJson,
        written_at_ms: writtenAtMs,
      })
      .execute();
  }

  /** Whom the mirror reads (the services' addresses and client IDs, never a secret), or undefined before a first sync. */
  async identity(): Promise<string[] | undefined> {
    const row = await this.#db
      .selectFrom('mirror_identity')
      .select(['giftcard_base_url', 'giftcard_client_id', 'dp_base_url', 'dp_client_id'])
      .executeTakeFirst();
    return row && [row.giftcard_base_url, row.giftcard_client_id, row.dp_base_url, row.dp_client_id];
  }

  /**
   * The sync that rebound the mirror to other services (`sync --rebind`) after sync `syncRunId`,
   * and when; undefined when the mirror reads the services it read then. A rebind takes the
   * earlier services' cards, coupons, products and orders out of the current tables, so a
   * night or close before it cannot be rebuilt from the mirror.
   */
  async reboundAfter(syncRunId: number): Promise<{ syncRunId: number; at: string } | undefined> {
    // The syncs that say so; a rebind from before they did (migration 0022, pg 0008) is the
    // binding's: the last sync started by the time the mirror was bound, when it is a later one.
    const [row] = await this.#c
      .read<{ sync_run_id: number | null; at: string | null }>(
        `SELECT s.sync_run_id, s.started_at AS at FROM sync_runs s
         WHERE s.sync_run_id = COALESCE(
           (SELECT MIN(r.sync_run_id) FROM sync_runs r WHERE r.rebound AND r.sync_run_id > @after),
           (SELECT MAX(b.sync_run_id) FROM sync_runs b, mirror_identity i WHERE b.started_at <= i.bound_at))
           AND s.sync_run_id > @after`,
      )
      .all({ after: syncRunId });
    return row?.sync_run_id === null || row?.sync_run_id === undefined || row.at === null
      ? undefined
      : { syncRunId: Number(row.sync_run_id), at: row.at };
  }

  /** The coupons listed as of sync `asOf`, in ID order: each one's newest version of that sync or before. */
  coupons(asOf: number): AsyncGenerator<RecordRow[]> {
    return this.#c
      .read<RecordRow>(
        `SELECT v.coupon_id AS id, v.raw_json AS raw, NULL AS currency, NULL AS cents FROM coupon_versions v
         WHERE v.version_id = (SELECT MAX(w.version_id) FROM coupon_versions w WHERE w.coupon_id = v.coupon_id AND w.sync_run_id <= ?)
         AND v.raw_json IS NOT NULL ORDER BY v.coupon_id`,
      )
      .batches([asOf], BATCH);
  }

  /** The orders listed as of sync `asOf`, in ID order, with their totals: each one's newest version of that sync or before. */
  orders(asOf: number): AsyncGenerator<RecordRow[]> {
    return this.#c
      .read<RecordRow>(
        `SELECT v.order_id AS id, v.raw_json AS raw, v.currency, v.total_amount_cents AS cents FROM dp_order_versions v
         WHERE v.version_id = (SELECT MAX(w.version_id) FROM dp_order_versions w WHERE w.order_id = v.order_id AND w.sync_run_id <= ?)
         AND v.raw_json IS NOT NULL ORDER BY v.order_id`,
      )
      .batches([asOf], BATCH);
  }

  /**
   * The first sync whose coupons and orders the mirror keeps as of it (their versions' first
   * sync): a mirror made before the versions kept its records from its newest sync then. Null
   * when it has none.
   */
  async listsKeptSince(): Promise<number | null> {
    const [row] = await this.#c
      .read<{ since: number | null }>(
        'SELECT MIN(since) AS since FROM (SELECT MIN(sync_run_id) AS since FROM coupon_versions UNION ALL SELECT MIN(sync_run_id) FROM dp_order_versions) firsts',
      )
      .all();
    return row?.since === null || row?.since === undefined ? null : Number(row.since);
  }

  /** The wallets as one sync read them, in ID order, with their balances. */
  wallets(syncRunId: number): AsyncGenerator<RecordRow[]> {
    return this.#c
      .read<RecordRow>(
        'SELECT wallet_id AS id, raw_json AS raw, currency, balance_cents AS cents FROM dp_wallet_snapshots WHERE sync_run_id = ? ORDER BY wallet_id',
      )
      .batches([syncRunId], BATCH);
  }

  /**
   * The newest version of every books file, by kind and source, with its SHA-256: of those
   * imported up to file `throughFileId` (what a night's matching read; none for null), or of all
   * when it is not known (a night from before it was kept).
   */
  async booksFiles(throughFileId?: number | null): Promise<{ kind: string; source: string; sha256: string }[]> {
    if (throughFileId === null) return [];
    return this.#db
      .selectFrom('books_files as f')
      .select(['f.kind', 'f.source', 'f.sha256'])
      .where(({ eb, selectFrom }) =>
        eb(
          'f.file_id',
          '=',
          selectFrom('books_files as g')
            .select(({ fn }) => fn.max('g.file_id').as('newest'))
            .whereRef('g.kind', '=', 'f.kind')
            .whereRef('g.source', '=', 'f.source')
            .$if(throughFileId !== undefined, (newest) => newest.where('g.file_id', '<=', throughFileId!)),
        ),
      )
      .orderBy('f.kind')
      .orderBy('f.source')
      .execute();
  }
}
