/**
 * What the sync's stores share: the mirror's connection, the client secrets no stored row may
 * carry, the transaction turn of walks read at the same time, and what the current batch looked
 * up. Only the sync's stores (store.ts and its parts, store-*.ts) hold it.
 */
import type { Read, SqlConnection, SqlRow } from '../db/connection.js';
import type { Mirror, MirrorQueries } from '../db/mirror.js';
import { carriesSecret, redact } from '../log.js';

/** A card's mirrored state, as a write compares with it. */
export type CardBefore = SqlRow<'gift_cards', 'status' | 'remaining_balance_cents' | 'version' | 'raw_json'>;
/**
 * A ledger entry's mirrored state, as a write compares with it: whether its raw JSON is the one
 * just read is asked of the database, so that a night of known entries (a weekly --full reads
 * every one) copies no stored JSON into the process.
 */
export type EntryBefore = SqlRow<'gift_card_transactions', 'entry_id' | 'vanished_sync_run_id'> & { unchanged: number };
/** A ledger entry's mirrored state as a batch's lookup reads it (on a server), JSON included. */
export type EntryLooked = SqlRow<'gift_card_transactions', 'entry_id' | 'raw_json' | 'vanished_sync_run_id'>;
/** A coupon's mirrored state, as a write compares with it. */
export type CouponBefore = SqlRow<
  'coupons',
  'status' | 'redemption_count' | 'version' | 'raw_json' | 'vanished_sync_run_id'
>;
/** A record's mirrored state read for a batch, under its ID. */
export type Keyed = { id: string };
/** An order's mirrored state, as its write compares it. */
export type OrderBefore = SqlRow<'dp_orders', 'status' | 'fulfillment_status' | 'raw_json' | 'vanished_sync_run_id'>;

export type WriteOutcome = 'new' | 'changed' | 'same';

/** Columns that hold a value of one of the specs' enumerations: never a secret, and read by the checks as sent. */
const ENUMERATED = new Set(['status', 'type', 'currency', 'fulfillment_status', 'line_currency']);

/*
 * The hot statements bind by position from column lists: better-sqlite3 binds the named
 * parameters of a freshly built object several times slower, per row.
 */
export const list = (columns: readonly string[]): string => columns.join(', ');
export const marks = (count: number): string => Array.from({ length: count }, () => '?').join(', ');

export class SyncSession {
  readonly c: SqlConnection;
  readonly db: MirrorQueries;
  readonly mirror: Mirror;
  /** The client secrets: no raw record and no checkpoint is stored carrying one. */
  readonly secrets: readonly string[];

  /** The last transaction asked for: walks that run at the same time commit one after another. */
  #turn: Promise<unknown> = Promise.resolve();

  /**
   * The IDs a bulk load into an empty table on a server has written so far: a record not among
   * them cannot be in the mirror, so it is inserted without a lookup (a round trip per record).
   */
  readonly loading = new Map<'gift_cards' | 'coupons', Set<string>>();

  /** The state of the records the current batch looked up (lookUp), kept as the batch writes them. */
  lookedUp: {
    cards?: Map<string, CardBefore | undefined>;
    coupons?: Map<string, CouponBefore | undefined>;
    entries?: Map<string, EntryLooked | undefined>;
    orders?: Map<string, OrderBefore | undefined>;
  } = {};

  constructor(mirror: Mirror, secrets: readonly string[]) {
    this.c = mirror.connection;
    this.db = mirror.queries;
    this.mirror = mirror;
    this.secrets = secrets;
  }

  /** Runs `work` as one transaction once every transaction asked for before it has ended. */
  serially<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#turn.then(() => this.c.transaction(work));
    this.#turn = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Whether a bulk load into `table` has not met this record yet (it cannot be in the mirror):
   * noted as met from now on. False outside a bulk load.
   */
  unseen(table: 'gift_cards' | 'coupons', id: string): boolean {
    const met = this.loading.get(table);
    if (met === undefined || met.has(id)) return false;
    met.add(id);
    return true;
  }

  /**
   * A row as it may be stored: its raw JSON and every free text read from it (a reference, an
   * idempotency key, an ID) with any client secret the service echoed replaced by `[redacted]`.
   * A value of one of the spec's enumerations (a status, a type, a currency) is public text, not
   * a secret, and is what the checks read: it stays as sent. Every field comes from the raw
   * record, so a row whose raw JSON carries no secret has none (most rows: the same row).
   */
  storable<T extends { raw_json: string }>(row: T): T {
    if (!carriesSecret(row.raw_json, this.secrets)) return row;
    const redacted = Object.entries(row).map(([key, value]) => [
      key,
      typeof value === 'string' && !ENUMERATED.has(key) ? redact(value, this.secrets) : value,
    ]);
    return Object.fromEntries(redacted) as T;
  }
}

/** The mirrored state of each of these IDs (undefined: not mirrored), read in one statement. */
export async function statesOf<Row extends Keyed>(
  read: Read<Row>,
  ids: readonly string[],
): Promise<Map<string, Row | undefined>> {
  const found = new Map<string, Row | undefined>(ids.map((id) => [id, undefined]));
  for (const row of await read.all(JSON.stringify(ids))) found.set(row.id, row);
  return found;
}
