/**
 * Past check runs as the reports, history, accept and verify read them back: a completed run,
 * the recent ones, a run's largest findings, what it resolved, and
 * a fingerprint's newest finding. Reads only, through the typed query layer.
 */
import type { MirrorQueries } from '../db/mirror.js';
import { fromSql } from '../db/rows.js';
import { checkRuns, findings, resolvedFindings } from '../db/schema.js';
import type { KeptCardSums } from '../ledger/card-sums.js';
import type { Finding } from './finding.js';
import { findingOf, type CheckRunRow, type ResolvedRow } from './store-rows.js';

/** Past check runs and their findings, read back. */
export class RunHistory {
  constructor(private readonly db: MirrorQueries) {}

  /** A completed check run: the newest, or the one named. */
  async completedRun(checkRunId?: number): Promise<CheckRunRow | null> {
    let query = this.db.selectFrom('check_runs').selectAll().where('status', '=', 'completed');
    query =
      checkRunId === undefined
        ? query.orderBy('check_run_id', 'desc').limit(1)
        : query.where('check_run_id', '=', checkRunId);
    const row = await query.executeTakeFirst();
    return row ? fromSql(checkRuns, row) : null;
  }

  /** Past check runs, newest first. */
  async recentRuns(limit: number): Promise<CheckRunRow[]> {
    const rows = await this.db
      .selectFrom('check_runs')
      .selectAll()
      .orderBy('check_run_id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => fromSql(checkRuns, row));
  }

  /** The `limit` completed runs up to run `checkRunId` (itself included), newest first: a night's trends. */
  async completedThrough(checkRunId: number, limit: number): Promise<CheckRunRow[]> {
    const rows = await this.db
      .selectFrom('check_runs')
      .selectAll()
      .where('status', '=', 'completed')
      .where('check_run_id', '<=', checkRunId)
      .orderBy('check_run_id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => fromSql(checkRuns, row));
  }

  /**
   * What run `checkRunId`'s confirmation pass re-read, as the run digested it: undefined for a run
   * recorded before the answers were kept (migration 0023, pg 0009), null for a run without a
   * confirmation pass (`check`).
   */
  async rereadsOf(checkRunId: number): Promise<string | null | undefined> {
    const row = await this.db
      .selectFrom('check_run_rereads')
      .select('rereads_json')
      .where('check_run_id', '=', checkRunId)
      .executeTakeFirst();
    return row === undefined ? undefined : row.rereads_json;
  }

  /** The sums run `checkRunId`'s walk made of every card's ledger, a chunk read at a time: null unless it is the newest run to keep them. */
  async cardSumsOf(checkRunId: number): Promise<KeptCardSums | null> {
    const row = await this.db
      .selectFrom('check_run_card_sums')
      .select((eb) => eb.fn.sum<number>('cards').as('cards'))
      .where('check_run_id', '=', checkRunId)
      .executeTakeFirst();
    if (row?.cards === null || row?.cards === undefined) return null;
    const chunk = async (index: number): Promise<Buffer> => {
      const found = await this.db
        .selectFrom('check_run_card_sums')
        .select('sums_base64')
        .where('check_run_id', '=', checkRunId)
        .where('chunk', '=', index)
        .executeTakeFirst();
      return Buffer.from(found?.sums_base64 ?? '', 'base64');
    };
    return { checkRunId, cards: Number(row.cards), chunk };
  }

  /** A run's `n` errors and warnings not accepted that put the most money at stake, largest first. */
  async largestOf(checkRunId: number, n: number): Promise<Finding[]> {
    const rows = await this.db
      .selectFrom('findings')
      .selectAll()
      .where('check_run_id', '=', checkRunId)
      .where('severity', 'in', ['error', 'warning'])
      .where('state', '<>', 'accepted')
      .where('stake_cents', '>', 0)
      .orderBy('stake_cents', 'desc')
      .orderBy('fingerprint')
      .limit(n)
      .execute();
    return rows.map((row) => findingOf(fromSql(findings, row)));
  }

  /** The previous findings a run resolved. */
  async resolvedOf(checkRunId: number): Promise<ResolvedRow[]> {
    const rows = await this.db
      .selectFrom('resolved_findings')
      .selectAll()
      .where('check_run_id', '=', checkRunId)
      .orderBy('code')
      .orderBy('entity_id')
      .execute();
    return rows.map((row) => fromSql(resolvedFindings, row));
  }

  /** The newest finding with this fingerprint, or null. */
  async latestFinding(fingerprint: string): Promise<Finding | null> {
    const row = await this.db
      .selectFrom('findings')
      .selectAll()
      .where('fingerprint', '=', fingerprint)
      .orderBy('check_run_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? findingOf(fromSql(findings, row)) : null;
  }
}
