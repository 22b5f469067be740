/** Typed reads of what the books stage keeps: the latest matching, its groups and rates. */
import type Database from 'better-sqlite3';
import { sql } from 'kysely';
import type { MirrorQueries } from '../db/sqlite/queries.js';
import type { MatchStatus } from './match.js';

/** One record of a match group: a books row (with its file and line) or a service record. */
export interface MatchRecord {
  side: 'books' | 'ledger' | 'coupon' | 'dp-order';
  recordId: string;
  reference: string | null;
  entryType: string | null;
  amountCents: number | null;
  currency: string | null;
  atMs: number | null;
  booksCount: number | null;
  serviceCount: number | null;
  /** A books row's file and line. */
  file: string | null;
  line: number | null;
  /** A ledger entry's card. */
  giftCardId: string | null;
}

export interface MatchGroup {
  groupId: number;
  kind: string;
  status: MatchStatus;
  rule: string | null;
  records: MatchRecord[];
}

const GROUP_ROWS = `SELECT m.group_id AS groupId, m.kind, m.status, m.rule, m.side, m.record_id AS recordId, m.reference, m.entry_type AS entryType,
    m.amount_cents AS amountCents, m.currency, m.at_ms AS atMs, m.books_count AS booksCount, m.service_count AS serviceCount,
    b.source AS file, b.line_no AS line, t.gift_card_id AS giftCardId
  FROM books_match_rows m
  LEFT JOIN books_rows b ON m.side = 'books' AND b.row_id = CAST(m.record_id AS INTEGER)
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
      .leftJoin('books_rows as b', (join) => join.on('m.side', '=', 'books').on(sql<boolean>`b.row_id = CAST(m.record_id AS INTEGER)`))
      .leftJoin('gift_card_transactions as t', (join) => join.on('m.side', '=', 'ledger').onRef('t.transaction_id', '=', 'm.record_id'))
      .select([
        'm.group_id as groupId', 'm.kind', 'm.status', 'm.rule', 'm.side', 'm.record_id as recordId', 'm.reference', 'm.entry_type as entryType', 'm.amount_cents as amountCents',
        'm.currency', 'm.at_ms as atMs', 'm.books_count as booksCount', 'm.service_count as serviceCount', 'b.source as file', 'b.line_no as line', 't.gift_card_id as giftCardId',
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

/** Every record of the latest matching: those without a partner or matched only in part first, then the pairs, each group together. */
export function matchRows(sqlite: Database.Database): IterableIterator<MatchRow> {
  return sqlite.prepare(`${GROUP_ROWS} ORDER BY m.status = 'matched', m.kind, m.group_id, m.side <> 'books', m.at_ms`).iterate() as IterableIterator<MatchRow>;
}

/** Records of the latest matching without a partner or matched only in part. */
export function unmatchedCount(sqlite: Database.Database): number {
  return sqlite.prepare("SELECT COUNT(*) FROM books_match_rows WHERE status <> 'matched'").pluck().get() as number;
}

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

/** The latest matching in figures: records and amounts by kind, side, status, rule and currency. */
export function matchRates(sqlite: Database.Database): MatchRate[] {
  return sqlite
    .prepare(
      `SELECT kind, side, status, rule, currency, COUNT(*) AS records, COALESCE(SUM(amount_cents), 0) AS amountCents FROM books_match_rows
       GROUP BY kind, side, status, rule, currency ORDER BY kind, side, status <> 'matched', status, rule, currency`,
    )
    .all() as MatchRate[];
}

/** The books the mirror holds: rows still in their files, and rows that could not be imported. */
export function booksCounts(sqlite: Database.Database): { held: number; rejected: number } {
  const count = (sql: string): number => sqlite.prepare(sql).pluck().get() as number;
  return { held: count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL'), rejected: count('SELECT COUNT(*) FROM books_rejections') };
}
