/**
 * The findings stage's store: check runs, findings, findings held in flight, resolved
 * findings, acceptances and the liability roll-forward. It is the only code that reads or
 * writes them, through the typed query layer (kysely over the mirror's dialect), async; row
 * types come from the one schema and are converted to the stage's values here, once. I/O
 * only: every decision is in standing.ts.
 */
import { cents, storedCents } from '../money.js';
import { CHECKS } from '../checks/index.js';
import type { PreviousClosing } from '../ledger/rollforward.js';
import { fromSql, toSql } from '../db/rows.js';
import { checkRuns, findings, heldFindings, liabilityRollforward, resolvedFindings } from '../db/schema.js';
import type { Mirror, MirrorQueries } from '../db/mirror.js';
import type { Finding } from './finding.js';
import { RunHistory } from './store-history.js';
import { AcceptanceStore } from './store-acceptances.js';
import { WholeRun } from './store-whole.js';

export type { NewAcceptance } from './store-acceptances.js';
import {
  type CheckedSync,
  type CheckRunRow,
  findingOf,
  type NewCheckRun,
  type ResolvedRow,
  type RollForwardRow,
  type RunError,
  type RunRecord,
  rowOf,
} from './store-rows.js';

export {
  type AcceptanceRow,
  type CheckedSync,
  type CheckRunRow,
  errorOf,
  type NewCheckRun,
  type RunError,
  type RunRecord,
  summaryOf,
  type FindingRow,
  type FindingStake,
  type ResolvedRow,
  type RollForwardRow,
} from './store-rows.js';

/** How fingerprints are made (check_runs.findings_version): runs compare event breaks only within one. */
const FINDINGS_VERSION = 1;

/** Rows written per INSERT: well inside every dialect's limit on bound parameters. */
const INSERT_BATCH = 500;

/** Rows a run's findings are read back in at a time (streamed: see findingsAndHeld). */
const FINDINGS_READ_ROWS = 1_024;

/** The findings store of a mirror. */
export function findingsStore(mirror: Pick<Mirror, 'queries' | 'connection'>): FindingsStore {
  return new FindingsStore(mirror);
}

/** The findings stage's tables, typed and async. */
export class FindingsStore {
  /** Past runs and their findings, read back (store-history.ts). */
  readonly history: RunHistory;
  /** The acceptances on record (store-acceptances.ts). */
  readonly acceptances: AcceptanceStore;
  /** A run's findings read whole, for the report (store-whole.ts). */
  readonly whole: WholeRun;
  private readonly db: MirrorQueries;

  constructor(mirror: Pick<Mirror, 'queries' | 'connection'>) {
    this.db = mirror.queries;
    this.history = new RunHistory(this.db);
    this.acceptances = new AcceptanceStore(this.db);
    this.whole = new WholeRun(mirror);
  }

  /**
   * Records that a check run (or a nightly run, before its sync) started; returns its ID. A
   * run killed before it finishes stays 'running': `history` shows it as interrupted.
   */
  async beginRun(run: NewCheckRun): Promise<number> {
    const row = await this.db
      .insertInto('check_runs')
      .values({
        status: 'running',
        started_at: new Date(run.startedAtMs).toISOString(),
        started_at_ms: run.startedAtMs,
        options_json: run.optionsJson,
        findings_version: FINDINGS_VERSION,
      })
      .returning('check_run_id')
      .executeTakeFirstOrThrow();
    return row.check_run_id;
  }

  /** Names the sync a started run checks, as of when, and our merchant. */
  async attachSync(checkRunId: number, sync: CheckedSync): Promise<void> {
    await this.db
      .updateTable('check_runs')
      .set({
        sync_run_id: sync.syncRunId,
        as_of: new Date(sync.asOfMs).toISOString(),
        as_of_ms: sync.asOfMs,
        merchant_id: sync.merchantId,
      })
      .where('check_run_id', '=', checkRunId)
      .execute();
  }

  /** Marks a started run failed, with why: the night's record when it could not finish. */
  async recordFailure(checkRunId: number, error: RunError, finishedAtMs: number): Promise<void> {
    await this.db
      .updateTable('check_runs')
      .set({ status: 'failed', error_json: JSON.stringify(error), finished_at_ms: finishedAtMs })
      .where('check_run_id', '=', checkRunId)
      .execute();
  }

  /** The newest complete check run (completed, not INCOMPLETE) before `beforeCheckRunId`: what a run compares with. */
  async previousCompleteRun(beforeCheckRunId: number): Promise<CheckRunRow | null> {
    const row = await this.db
      .selectFrom('check_runs')
      .selectAll()
      .where('status', '=', 'completed')
      .where('verdict', '<>', 'INCOMPLETE')
      .where('check_run_id', '<', beforeCheckRunId)
      .orderBy('check_run_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? fromSql(checkRuns, row) : null;
  }

  /**
   * The merchant the newest complete run of these services checked for: ours, pinned once a
   * run has resolved or been told it. A pin belongs to the services the mirror is bound to: a
   * rebind leaves the previous one behind.
   */
  async pinnedMerchant(): Promise<string | null> {
    const identity = await this.db
      .selectFrom('mirror_identity')
      .select('bound_at')
      .where('identity_id', '=', 1)
      .executeTakeFirst();
    const boundMs = identity ? Date.parse(identity.bound_at) : 0;
    const row = await this.db
      .selectFrom('check_runs')
      .select('merchant_id')
      .where('status', '=', 'completed')
      .where('merchant_id', 'is not', null)
      .where('sync_run_id', 'in', (runs) =>
        runs
          .selectFrom('sync_runs')
          .select('sync_run_id')
          .where('started_at_ms', '>=', Number.isNaN(boundMs) ? 0 : boundMs),
      )
      .orderBy('check_run_id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.merchant_id ?? null;
  }

  /** A run's findings and the findings it held in flight, and whether its fingerprints are made as this version makes them. */
  async findingsAndHeld(
    run: CheckRunRow,
  ): Promise<{ findings: Finding[]; held: Finding[]; sameFingerprints: boolean }> {
    // Streamed, each row made a finding as it comes: 100,000 rows read whole before mapping
    // (the planted findings of the report bench) lifted the check's peak from 313 to 594 MB.
    const of = async (table: 'findings' | 'held_findings'): Promise<Finding[]> => {
      const read: Finding[] = [];
      const rows = this.db.selectFrom(table).selectAll().where('check_run_id', '=', run.checkRunId);
      for await (const row of rows.stream(FINDINGS_READ_ROWS))
        read.push(findingOf(fromSql(table === 'findings' ? findings : heldFindings, row)));
      return read;
    };
    const found = await of('findings');
    const held = await of('held_findings');
    return {
      findings: found,
      held,
      sameFingerprints: run.findingsVersion === FINDINGS_VERSION,
    };
  }

  /**
   * The gift cards the newest complete run left in flight, held, or behind a gift card finding
   * (open or accepted): the next sync reads each again by ID whether or not it moved, so a held
   * break is judged and a repaired one resolved the next night, never left to a weekly --full.
   */
  async cardsToReread(): Promise<string[]> {
    const run = await this.previousCompleteRun(Number.MAX_SAFE_INTEGER);
    if (!run) return [];
    const named = (table: 'findings' | 'held_findings') =>
      this.db
        .selectFrom(table)
        .select('gift_card_id')
        .where('check_run_id', '=', run.checkRunId)
        .where('gift_card_id', 'is not', null)
        .where('code', 'like', 'GC_%');
    const rows = await named('findings').union(named('held_findings')).execute();
    return rows.map((row) => row.gift_card_id as string).sort();
  }

  /**
   * The cards a run counted in flight (its GC_IN_FLIGHT findings, the confirmation's included)
   * and the sync it checked: the one in-flight set every surface of the night states. Null for a
   * run that checked no sync; the newest completed run when none is named.
   */
  async inFlightOf(run?: CheckRunRow | null): Promise<{ syncRunId: number; cards: Set<string> } | null> {
    const checked = run === undefined ? await this.history.completedRun() : run;
    if (!checked || checked.syncRunId === null) return null;
    const rows = await this.db
      .selectFrom('findings')
      .select('entity_id')
      .where('check_run_id', '=', checked.checkRunId)
      .where('code', '=', CHECKS.GC_IN_FLIGHT.code)
      .execute();
    return { syncRunId: checked.syncRunId, cards: new Set(rows.map((row) => row.entity_id)) };
  }

  /** Where a run's roll-forward closed, per currency: the next run opens there. */
  async previousClosing(run: CheckRunRow): Promise<PreviousClosing> {
    const rows = await this.rollForwardOf(run.checkRunId);
    return {
      cutOffMs: rows.find((r) => r.cutOffMs !== null)?.cutOffMs ?? null,
      asOfMs: run.asOfMs,
      byCurrency: new Map(
        rows.map((r) => [
          r.currency,
          { closingCents: cents(r.closingCents), ledgerClosingCents: storedCents(r.ledgerClosingCents) },
        ]),
      ),
    };
  }

  /** A run's roll-forward per currency. */
  async rollForwardOf(checkRunId: number): Promise<RollForwardRow[]> {
    const rows = await this.db
      .selectFrom('liability_rollforward')
      .selectAll()
      .where('check_run_id', '=', checkRunId)
      .orderBy('currency')
      .execute();
    return rows.map((row) => fromSql(liabilityRollforward, row));
  }

  /** Stores a run's standing, roll-forward and summary, and marks it completed: one transaction. */
  async recordRun(record: RunRecord): Promise<void> {
    const { checkRunId, standing, summary } = record;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < standing.findings.length; i += INSERT_BATCH)
        await trx
          .insertInto('findings')
          .values(standing.findings.slice(i, i + INSERT_BATCH).map((f) => toSql(findings, rowOf(f))))
          .execute();
      for (let i = 0; i < standing.held.length; i += INSERT_BATCH)
        await trx
          .insertInto('held_findings')
          .values(standing.held.slice(i, i + INSERT_BATCH).map((f) => toSql(heldFindings, rowOf(f))))
          .execute();
      const resolved = standing.resolved.map(
        (f): ResolvedRow => ({
          checkRunId,
          fingerprint: f.fingerprint,
          code: f.code,
          severity: f.severity,
          entityType: f.entityType,
          entityId: f.entityId,
          message: f.message,
          firstSeenAt: new Date(f.firstSeenAtMs).toISOString(),
        }),
      );
      for (let i = 0; i < resolved.length; i += INSERT_BATCH)
        await trx
          .insertInto('resolved_findings')
          .values(resolved.slice(i, i + INSERT_BATCH).map((row) => toSql(resolvedFindings, row)))
          .execute();
      await trx
        .insertInto('check_run_rereads')
        .values({ check_run_id: checkRunId, rereads_json: record.rereadsJson })
        .execute();
      // The newest run's card sums alone are kept: a night's take a few tens of MB at a million cards.
      if (record.cardSums) {
        await trx.deleteFrom('check_run_card_sums').execute();
        for (const [chunk, { cards, record: sums }] of record.cardSums.chunks.entries())
          await trx
            .insertInto('check_run_card_sums')
            .values({
              check_run_id: checkRunId,
              chunk,
              cards,
              sums_base64: sums.toString('base64'),
            })
            .execute();
      }
      if (record.rollForward.length > 0)
        await trx
          .insertInto('liability_rollforward')
          .values(record.rollForward.map((r) => toSql(liabilityRollforward, { checkRunId, ...r })))
          .execute();
      await trx
        .updateTable('check_runs')
        .set({
          status: 'completed',
          verdict: summary.verdict,
          finished_at_ms: record.finishedAtMs,
          failed_checks_json: summary.failedChecks.length > 0 ? JSON.stringify(summary.failedChecks) : null,
          summary_json: JSON.stringify(summary),
          report_state: record.reportPending ? 'pending' : null,
        })
        .where('check_run_id', '=', checkRunId)
        .execute();
    });
  }

  /** The run's report files are written: the night is whole. */
  async markReportWritten(checkRunId: number): Promise<void> {
    await this.db
      .updateTable('check_runs')
      .set({ report_state: 'written' })
      .where('check_run_id', '=', checkRunId)
      .execute();
  }
}
