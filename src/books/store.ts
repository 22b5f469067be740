/**
 * The books stage's store: the only code that holds the mirror's connection for the books
 * tables (files, rows, rejections, the matching's rows). Typed reads of the latest matching
 * through the query layer ({@link BooksReads}); the import's and the matching's writes as
 * sessions of one transaction each ({@link BooksStore}), whose statements are prepared here with
 * their row types declared beside them.
 */
import { sql } from 'kysely';
import { rowsOf, type SqlConnection } from '../db/connection.js';
import type { Mirror, MirrorQueries } from '../db/mirror.js';
import type { MatchStatus } from './match.js';
import { ImportSession } from './store-import.js';
import { MatchSession, type MatchRecord } from './store-matching.js';

export { ADD_AT_ONCE, ImportSession } from './store-import.js';
export {
  MatchSession,
  type MatchRecord,
  type BooksPurchase,
  type BooksUse,
  type CouponUses,
  type MatchWrite,
  type PlacedOrder,
  type UnpairedBooksTender,
} from './store-matching.js';

export interface MatchGroup {
  groupId: number;
  kind: string;
  status: MatchStatus;
  rule: string | null;
  records: MatchRecord[];
}

const GROUP_ROWS = `SELECT m.group_id AS "groupId", m.kind, m.status, m.rule, m.side, m.record_id AS "recordId", m.reference, m.entry_type AS "entryType",
    m.amount_cents AS "amountCents", m.currency, m.at_ms AS "atMs", m.books_count AS "booksCount", m.service_count AS "serviceCount",
    b.source AS file, b.line_no AS line, t.gift_card_id AS "giftCardId"
  FROM books_match_rows m
  LEFT JOIN books_rows b ON b.row_id = CASE WHEN m.side = 'books' THEN CAST(m.record_id AS BIGINT) END
  LEFT JOIN gift_card_transactions t ON m.side = 'ledger' AND t.transaction_id = m.record_id`;

/**
 * The books stage's reads through the typed query layer (the matching's groups, for the books
 * checks); the report's reads below still use the connection (#31).
 */
export class BooksReads {
  constructor(private readonly db: MirrorQueries) {}

  /** The groups of these kinds in these states, in group order, books side first. */
  async matchGroups(kinds: readonly string[], statuses: readonly MatchStatus[]): Promise<MatchGroup[]> {
    const rows = await this.db
      .selectFrom('books_match_rows as m')
      // A books row's ID is a number only where the record is a books row: cast there alone.
      .leftJoin('books_rows as b', (join) =>
        join.on(sql<boolean>`b.row_id = CASE WHEN m.side = 'books' THEN CAST(m.record_id AS BIGINT) END`),
      )
      .leftJoin('gift_card_transactions as t', (join) =>
        join.on('m.side', '=', 'ledger').onRef('t.transaction_id', '=', 'm.record_id'),
      )
      .select([
        'm.group_id as groupId',
        'm.kind',
        'm.status',
        'm.rule',
        'm.side',
        'm.record_id as recordId',
        'm.reference',
        'm.entry_type as entryType',
        'm.amount_cents as amountCents',
        'm.currency',
        'm.at_ms as atMs',
        'm.books_count as booksCount',
        'm.service_count as serviceCount',
        'b.source as file',
        'b.line_no as line',
        't.gift_card_id as giftCardId',
      ])
      .where('m.kind', 'in', [...kinds])
      .where('m.status', 'in', [...statuses])
      .orderBy('m.group_id')
      .orderBy(sql`CASE m.side WHEN 'books' THEN 0 ELSE 1 END`)
      .orderBy('m.at_ms')
      .orderBy('m.record_id')
      .execute();
    return toGroups(rows);
  }
}

/** One record of the latest matching with its group's status and rule: a row of the Matching sheet. */
export type MatchRow = MatchRecord & { groupId: number; kind: string; status: MatchStatus; rule: string | null };

function toGroups(rows: MatchRow[]): MatchGroup[] {
  const groups: MatchGroup[] = [];
  for (const { groupId, kind, status, rule, ...record } of rows) {
    const last = groups.at(-1);
    if (last?.groupId === groupId) last.records.push(record);
    else groups.push({ groupId, kind, status, rule, records: [record] });
  }
  return groups;
}

/** Records of one kind, side, status and rule (null for none), with their amount per currency. */
export interface MatchRate {
  kind: string;
  side: string;
  status: MatchStatus;
  rule: string | null;
  currency: string | null;
  records: number;
  amountCents: number;
}

/** A books row's time span per kind: the scope of its matching. */
export interface BooksSpan {
  kind: string;
  firstMs: number;
  lastMs: number;
}

/** The books stage's writes and the report's reads of the books tables. */
export class BooksStore {
  readonly #c: SqlConnection;
  readonly #db: MirrorQueries;

  constructor(mirror: Mirror) {
    this.#c = mirror.connection;
    this.#db = mirror.queries;
  }

  /**
   * The newest version of this file (same kind and source), when its content is `sha256`: the
   * file is unchanged since it was last imported. Bytes equal to an older version are not: that
   * version's rows come back (a file back to how it was two nights ago is a new version).
   */
  /**
   * The source whose newest version holds exactly these bytes, under another name: the same
   * export renamed (tenders.csv imported again as tenders-2026-11.csv). Undefined when none.
   */
  async knownFileElsewhere(kind: string, source: string, sha256: string): Promise<string | undefined> {
    // Another source's newest version holding these bytes: the same export under another name.
    const rows = await this.#db
      .selectFrom('books_files as f')
      .select('f.source')
      .where('f.kind', '=', kind)
      .where('f.source', '<>', source)
      .where('f.sha256', '=', sha256)
      .where((eb) =>
        eb(
          'f.file_id',
          '=',
          eb
            .selectFrom('books_files as g')
            .select((g) => g.fn.max('g.file_id').as('newest'))
            .whereRef('g.kind', '=', 'f.kind')
            .whereRef('g.source', '=', 'f.source'),
        ),
      )
      .orderBy('f.file_id')
      .limit(1)
      .execute();
    return rows[0]?.source;
  }

  async knownFile(kind: string, source: string, sha256: string): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom('books_files')
      .select(['file_id', 'sha256'])
      .where('kind', '=', kind)
      .where('source', '=', source)
      .orderBy('file_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.sha256 === sha256 ? row.file_id : undefined;
  }

  /**
   * A file's import as one transaction across the file's reads (the connection is this
   * process's alone while it imports): when `work` throws, the mirror stays as it was.
   */
  async importing<T>(work: (session: ImportSession) => Promise<T>): Promise<T> {
    return this.#c.transaction(() => work(new ImportSession(this.#c)));
  }

  /** The newest books file imported (its file_id), or null before the first import. */
  async newestFileId(): Promise<number | null> {
    const row = await this.#db
      .selectFrom('books_files')
      .select((eb) => eb.fn.max('file_id').as('newest'))
      .executeTakeFirst();
    return row?.newest === null || row?.newest === undefined ? null : Number(row.newest);
  }

  /** Each kind's time span among the rows held. */
  async spans(): Promise<BooksSpan[]> {
    const rows = await this.#db
      .selectFrom('books_rows')
      .select((eb) => ['kind', eb.fn.min('at_ms').as('firstMs'), eb.fn.max('at_ms').as('lastMs')])
      .where('withdrawn_file_id', 'is', null)
      .groupBy('kind')
      .execute();
    return rows.map((row) => ({ kind: row.kind, firstMs: Number(row.firstMs), lastMs: Number(row.lastMs) }));
  }

  /**
   * Replaces the stored matching with what `work` writes, in one transaction. @returns how many
   * groups it made and its records per status.
   */
  async replaceMatching(
    nowMs: number,
    work: (session: MatchSession) => Promise<void>,
  ): Promise<{ groups: number; byStatus: Partial<Record<MatchStatus, number>> }> {
    const c = this.#c;
    const session = new MatchSession(c, nowMs);
    await c.transaction(async () => {
      await session.start();
      await c.write('DELETE FROM books_match_rows').run();
      await work(session);
      await session.written();
    });
    const counts = await c
      .read<{ status: MatchStatus; n: number }>('SELECT status, COUNT(*) AS n FROM books_match_rows GROUP BY status')
      .all();
    return { groups: session.groups, byStatus: Object.fromEntries(counts.map((r) => [r.status, Number(r.n)])) };
  }

  /** Every record of the latest matching: those without a partner or matched only in part first, then the pairs, each group together. */
  async *matchRows(): AsyncGenerator<MatchRow> {
    yield* rowsOf(
      this.#c
        .read<MatchRow>(`${GROUP_ROWS} ORDER BY m.status = 'matched', m.kind, m.group_id, m.side <> 'books', m.at_ms`)
        .batches(),
    );
  }

  /** Records of the latest matching without a partner or matched only in part. */
  async unmatchedCount(): Promise<number> {
    const row = await this.#db
      .selectFrom('books_match_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '<>', 'matched')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The latest matching in figures: records and amounts by kind, side, status, rule and currency. */
  async matchRates(): Promise<MatchRate[]> {
    const rates = await this.#c
      .read<MatchRate>(
        `SELECT kind, side, status, rule, currency, COUNT(*) AS records, COALESCE(SUM(amount_cents), 0) AS "amountCents" FROM books_match_rows
         GROUP BY kind, side, status, rule, currency ORDER BY kind, side, status <> 'matched', status, rule, currency`,
      )
      .all();
    return rates.map((rate) => ({ ...rate, records: Number(rate.records), amountCents: Number(rate.amountCents) }));
  }

  /** The books the mirror holds: rows still in their files, and rows that could not be imported. */
  async counts(): Promise<{ held: number; rejected: number }> {
    const held = await this.#db
      .selectFrom('books_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('withdrawn_file_id', 'is', null)
      .executeTakeFirst();
    const rejected = await this.#db
      .selectFrom('books_rejections')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return { held: Number(held?.n ?? 0), rejected: Number(rejected?.n ?? 0) };
  }
}
