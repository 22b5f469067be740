/**
 * Past check runs as the reports, history, accept and verify read them back: a completed run,
 * the recent ones, what a run's findings are about and put at stake, its largest, what it resolved, and
 * a fingerprint's newest finding. Reads only, through the typed query layer.
 */
import type { MirrorQueries } from '../db/mirror.js';
import { fromSql } from '../db/rows.js';
import { checkRuns, findings, resolvedFindings } from '../db/schema.js';
import type { RecordRef } from '../checks/check.js';
import type { Finding } from './finding.js';
import { findingOf, findingStakeOf, type CheckRunRow, type FindingStake, type ResolvedRow } from './store-rows.js';

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

  /**
   * What each finding of a run is about, in no order (no sort of the run's findings): its code,
   * and the IDs of its entity, its card and its records (the sheets' "findings" columns).
   */
  async *recordsOfRun(checkRunId: number): AsyncGenerator<{ code: string; ids: (string | null)[] }> {
    const rows = this.db
      .selectFrom('findings')
      .select(['code', 'entity_id', 'gift_card_id', 'records_json'])
      .where('check_run_id', '=', checkRunId)
      .stream(1024);
    for await (const row of rows) {
      const records = JSON.parse(row.records_json) as RecordRef[];
      yield { code: row.code, ids: [row.entity_id, row.gift_card_id, ...records.map((record) => record.id)] };
    }
  }

  /** A run's findings' codes, severities, states and stakes (the Summary's), in no order: a few columns of each, not the whole finding. */
  async *stakesOfRun(checkRunId: number): AsyncGenerator<FindingStake> {
    const rows = this.db
      .selectFrom('findings')
      .select([
        'code',
        'severity',
        'state',
        'currency',
        'stake_key',
        'stake_cents',
        'fingerprint',
        'unit',
        'difference',
      ])
      .where('check_run_id', '=', checkRunId)
      .stream(1024);
    for await (const row of rows)
      yield findingStakeOf({
        code: row.code,
        severity: row.severity,
        state: row.state,
        currency: row.currency,
        stakeKey: row.stake_key,
        stakeCents: row.stake_cents,
        fingerprint: row.fingerprint,
        unit: row.unit,
        difference: row.difference,
      });
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
