/**
 * The sync's lists as of a past sync: the reads of what the mirror kept of its coupons, DP
 * orders and wallets (their versions, history rows and snapshots of that sync or before), and
 * the writes that put them, made rows again, into a scratch mirror. The only code of the
 * rebuild that writes SQL (see as-of.ts).
 */
import type { Mirror } from '../db/mirror.js';
import type { SqlConnection, SqlRow } from '../db/connection.js';

/** A record's newest version of a sync or before, with its newest listed text then and its first sync. */
export interface KeptVersion {
  id: string;
  /** The newest version's sync: the record was unlisted from it on when `raw` is null. */
  sync_run_id: number;
  raw: string | null;
  /** Its newest version then that holds its text (the record as last listed). */
  listed_raw: string | null;
  first_sync_run_id: number;
}

const COUPON_HISTORY = ['history_id', 'coupon_id', 'sync_run_id', 'status', 'redemption_count', 'version'] as const;
const WALLET_SNAPSHOTS = [
  'snapshot_id',
  'sync_run_id',
  'wallet_id',
  'currency',
  'balance_cents',
  'selected',
  'requested_at_ms',
  'read_at_ms',
  'raw_json',
] as const;

const BATCH = 1_000;

/**
 * The versions of the kept records of `table` (coupons' or orders'), as of sync `@asOf`, in ID
 * order; a record a rebind took out of the current tables (its newest version then closed by
 * the rebinding sync) is not among them, as it was not in the mirror's tables then.
 */
function versionsAsOf(versions: 'coupon_versions' | 'dp_order_versions', id: 'coupon_id' | 'order_id'): string {
  return `SELECT v.${id} AS id, v.sync_run_id, v.raw_json AS raw,
            (SELECT w.raw_json FROM ${versions} w WHERE w.${id} = v.${id} AND w.sync_run_id <= @asOf AND w.raw_json IS NOT NULL
             ORDER BY w.version_id DESC LIMIT 1) AS listed_raw,
            (SELECT MIN(f.sync_run_id) FROM ${versions} f WHERE f.${id} = v.${id}) AS first_sync_run_id
          FROM ${versions} v
          WHERE v.version_id = (SELECT MAX(x.version_id) FROM ${versions} x WHERE x.${id} = v.${id} AND x.sync_run_id <= @asOf)
            AND NOT (v.raw_json IS NULL AND v.sync_run_id IN (SELECT r.sync_run_id FROM sync_runs r WHERE r.rebound))
          ORDER BY v.${id}`;
}

/** What the mirror kept, read as of a sync. */
export class KeptReads {
  readonly #c: SqlConnection;

  constructor(mirror: Mirror) {
    this.#c = mirror.connection;
  }

  couponVersions(asOf: number): AsyncGenerator<KeptVersion[]> {
    return this.#c.read<KeptVersion>(versionsAsOf('coupon_versions', 'coupon_id')).batches([{ asOf }], BATCH);
  }

  orderVersions(asOf: number): AsyncGenerator<KeptVersion[]> {
    return this.#c.read<KeptVersion>(versionsAsOf('dp_order_versions', 'order_id')).batches([{ asOf }], BATCH);
  }

  couponHistory(asOf: number): AsyncGenerator<SqlRow<'coupon_history', (typeof COUPON_HISTORY)[number]>[]> {
    return this.#c
      .read<SqlRow<'coupon_history', (typeof COUPON_HISTORY)[number]>>(
        `SELECT ${COUPON_HISTORY.join(', ')} FROM coupon_history WHERE sync_run_id <= ? ORDER BY history_id`,
      )
      .batches([asOf], BATCH);
  }

  walletSnapshots(asOf: number): AsyncGenerator<SqlRow<'dp_wallet_snapshots', (typeof WALLET_SNAPSHOTS)[number]>[]> {
    return this.#c
      .read<SqlRow<'dp_wallet_snapshots', (typeof WALLET_SNAPSHOTS)[number]>>(
        `SELECT ${WALLET_SNAPSHOTS.join(', ')} FROM dp_wallet_snapshots WHERE sync_run_id <= ? ORDER BY snapshot_id`,
      )
      .batches([asOf], BATCH);
  }
}

/** The rows written into the scratch mirror, table by table. */
export class ScratchWrites {
  readonly #c: SqlConnection;

  constructor(scratch: Mirror) {
    this.#c = scratch.connection;
  }

  /** Inserts `rows` into `table`, each row's values by column name (a flag as 0 or 1, as SQLite keeps it). */
  async insert(table: string, rows: readonly Readonly<Record<string, unknown>>[]): Promise<void> {
    const first = rows[0];
    if (first === undefined) return;
    const columns = Object.keys(first);
    await this.#c.insertMany(
      table,
      columns,
      rows.map((row) => columns.map((column) => flag(row[column]))),
    );
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.#c.transaction(work);
  }
}

/** PostgreSQL's booleans as SQLite's 0 and 1 (the scratch mirror is SQLite's). */
function flag(value: unknown): unknown {
  return value === true ? 1 : value === false ? 0 : value;
}
