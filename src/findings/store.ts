/**
 * The findings stage's tables: check runs, findings, findings held in flight, resolved
 * findings, acceptances and the liability roll-forward. This module is the only code that
 * reads or writes them; row types come from the drizzle schema and are converted to the
 * stage's values here, once. I/O only: every decision is in standing.ts.
 */
import type Database from 'better-sqlite3';
import { asc, eq, getTableColumns, getTableName } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { CheckCode, RecordRef } from '../checks/check.js';
import { CHECK_CODES } from '../checks/index.js';
import type { PreviousClosing, RollForward } from '../checks/rollforward.js';
import { checkRuns, findingAcceptances, findings, heldFindings, liabilityRollforward, resolvedFindings } from '../db/schema.js';
import type { Acceptance, Finding } from './finding.js';
import type { Standing } from './standing.js';
import type { CheckRunSummary } from './summary.js';

export type CheckRunRow = typeof checkRuns.$inferSelect;
export type FindingRow = typeof findings.$inferSelect;
export type AcceptanceRow = typeof findingAcceptances.$inferSelect;
export type RollForwardRow = typeof liabilityRollforward.$inferSelect;
export type ResolvedRow = typeof resolvedFindings.$inferSelect;

/** `SELECT` list of a table's columns named as the schema's keys, so rows come back as `$inferSelect`. */
function columnsOf(table: SQLiteTable): string {
  return Object.entries(getTableColumns(table))
    .map(([key, column]) => `"${column.name}" AS "${key}"`)
    .join(', ');
}

/** A prepared `INSERT` taking a row object keyed as the schema's keys; `upsertOn` names the key an insert replaces on. */
function inserter(sqlite: Database.Database, table: SQLiteTable, upsertOn?: string): Database.Statement {
  const columns = Object.entries(getTableColumns(table));
  const upsert = upsertOn
    ? ` ON CONFLICT ("${upsertOn}") DO UPDATE SET ${columns.filter(([, c]) => c.name !== upsertOn).map(([, c]) => `"${c.name}" = excluded."${c.name}"`).join(', ')}`
    : '';
  return sqlite.prepare(`INSERT INTO ${getTableName(table)} (${columns.map(([, c]) => `"${c.name}"`).join(', ')}) VALUES (${columns.map(([key]) => `@${key}`).join(', ')})${upsert}`);
}

const CODES = new Set<string>(CHECK_CODES);

function codeOf(code: string): CheckCode {
  if (!CODES.has(code)) throw new Error(`the mirror holds a finding of unknown code ${code}: it was written by a newer ledger-recon`);
  return code as CheckCode;
}

/** A stored finding row back as a Finding. */
function findingOf(row: FindingRow): Finding {
  const stakeKey = row.stakeKey === '' ? row.fingerprint : row.stakeKey;
  // Rows stored before stakes were recorded: a money measure's difference is its stake.
  const stakeCents = row.stakeKey === '' && row.unit === 'cents' && row.difference !== null ? Math.abs(row.difference) : row.stakeCents;
  return {
    checkRunId: row.checkRunId,
    fingerprint: row.fingerprint,
    code: codeOf(row.code),
    severity: row.severity,
    entityType: row.entityType as Finding['entityType'],
    entityId: row.entityId,
    giftCardId: row.giftCardId,
    referenceId: row.referenceId,
    currency: row.currency,
    unit: row.unit,
    expected: row.expected,
    actual: row.actual,
    difference: row.difference,
    stakeCents,
    stakeKey,
    message: row.message,
    state: row.state,
    firstSeenCheckRunId: row.firstSeenCheckRunId,
    firstSeenAtMs: row.firstSeenAtMs,
    ageDays: row.ageDays,
    records: JSON.parse(row.recordsJson) as RecordRef[],
    detailSha256: row.detailSha256,
    acceptance:
      row.acceptedNote === null || row.acceptedAtMs === null
        ? null
        : { fingerprint: row.fingerprint, note: row.acceptedNote, by: row.acceptedBy, acceptedAtMs: row.acceptedAtMs, untilMs: row.acceptedUntilMs, detailSha256: row.detailSha256 },
    acceptanceEnded: row.acceptanceEnded,
  };
}

function rowOf(f: Finding): FindingRow {
  return {
    checkRunId: f.checkRunId,
    fingerprint: f.fingerprint,
    code: f.code,
    severity: f.severity,
    entityType: f.entityType,
    entityId: f.entityId,
    giftCardId: f.giftCardId,
    referenceId: f.referenceId,
    currency: f.currency,
    unit: f.unit,
    expected: f.expected,
    actual: f.actual,
    difference: f.difference,
    stakeCents: f.stakeCents,
    stakeKey: f.stakeKey,
    message: f.message,
    state: f.state,
    firstSeenCheckRunId: f.firstSeenCheckRunId,
    firstSeenAt: new Date(f.firstSeenAtMs).toISOString(),
    firstSeenAtMs: f.firstSeenAtMs,
    ageDays: f.ageDays,
    recordsJson: JSON.stringify(f.records),
    detailSha256: f.detailSha256,
    acceptedNote: f.acceptance?.note ?? null,
    acceptedBy: f.acceptance?.by ?? null,
    acceptedAtMs: f.acceptance?.acceptedAtMs ?? null,
    acceptedUntilMs: f.acceptance?.untilMs ?? null,
    acceptanceEnded: f.acceptanceEnded,
  };
}

export interface NewCheckRun {
  startedAtMs: number;
  optionsJson: string;
}

/** The sync a check run checks, known once the run has it. */
export interface CheckedSync {
  syncRunId: number;
  asOfMs: number;
  merchantId: string | null;
}

/** Why a run could not finish, as every output names it. */
export interface RunError {
  /** Stable: CONFIG, AUTH, UNAVAILABLE, LOCK_HELD, MIRROR, … or UNEXPECTED. */
  code: string;
  message: string;
}

/** How fingerprints are made (check_runs.findings_version): runs compare event breaks only within one. */
const FINDINGS_VERSION = 1;

/**
 * Records that a check run (or a nightly run, before its sync) started; returns its ID. A run
 * killed before it finishes stays 'running': `history` shows it as interrupted.
 */
export function beginRun(sqlite: Database.Database, run: NewCheckRun): number {
  return Number(
    sqlite
      .prepare(`INSERT INTO check_runs (status, started_at, started_at_ms, options_json, findings_version) VALUES ('running', ?, ?, ?, ?)`)
      .run(new Date(run.startedAtMs).toISOString(), run.startedAtMs, run.optionsJson, FINDINGS_VERSION).lastInsertRowid,
  );
}

/** Names the sync a started run checks, as of when, and our merchant. */
export function attachSync(sqlite: Database.Database, checkRunId: number, sync: CheckedSync): void {
  sqlite
    .prepare('UPDATE check_runs SET sync_run_id = ?, as_of = ?, as_of_ms = ?, merchant_id = ? WHERE check_run_id = ?')
    .run(sync.syncRunId, new Date(sync.asOfMs).toISOString(), sync.asOfMs, sync.merchantId, checkRunId);
}

/** Marks a started run failed, with why: the night's record when it could not finish. */
export function recordFailure(sqlite: Database.Database, checkRunId: number, error: RunError, finishedAtMs: number): void {
  sqlite.prepare(`UPDATE check_runs SET status = 'failed', error_json = ?, finished_at_ms = ? WHERE check_run_id = ?`).run(JSON.stringify(error), finishedAtMs, checkRunId);
}

/** Why a failed run failed, or null. */
export function errorOf(run: CheckRunRow): RunError | null {
  return run.errorJson === null ? null : (JSON.parse(run.errorJson) as RunError);
}

/** The newest complete check run (completed, not INCOMPLETE): what a run compares with. */
export function previousCompleteRun(sqlite: Database.Database, beforeCheckRunId: number): CheckRunRow | null {
  return (
    (sqlite
      .prepare(`SELECT ${columnsOf(checkRuns)} FROM check_runs WHERE status = 'completed' AND verdict <> 'INCOMPLETE' AND check_run_id < ? ORDER BY check_run_id DESC LIMIT 1`)
      .get(beforeCheckRunId) as CheckRunRow | undefined) ?? null
  );
}

/** The merchant the newest complete run checked for: ours, pinned once a run has inferred or been told it. */
export function pinnedMerchant(sqlite: Database.Database): string | null {
  // A pin belongs to the services the mirror is bound to: a rebind leaves the previous one behind.
  return (
    (sqlite
      .prepare(
        `SELECT merchant_id FROM check_runs WHERE status = 'completed' AND merchant_id IS NOT NULL
           AND sync_run_id IN (SELECT sync_run_id FROM sync_runs
                               WHERE started_at_ms >= COALESCE((SELECT (julianday(bound_at) - 2440587.5) * 86400000.0 - 1 FROM mirror_identity WHERE identity_id = 1), 0))
         ORDER BY check_run_id DESC LIMIT 1`,
      )
      .pluck()
      .get() as string | undefined) ?? null
  );
}

/** A run's findings and the findings it held in flight, and whether its fingerprints are made as this version makes them. */
export function findingsAndHeld(sqlite: Database.Database, run: CheckRunRow): { findings: Finding[]; held: Finding[]; sameFingerprints: boolean } {
  const checkRunId = run.checkRunId;
  const read = (table: typeof findings | typeof heldFindings): Finding[] =>
    (sqlite.prepare(`SELECT ${columnsOf(table)} FROM ${getTableName(table)} WHERE check_run_id = ?`).all(checkRunId) as FindingRow[]).map(findingOf);
  return { findings: read(findings), held: read(heldFindings), sameFingerprints: run.findingsVersion === FINDINGS_VERSION };
}

/** Every acceptance on record. */
export function acceptances(sqlite: Database.Database): Acceptance[] {
  return (sqlite.prepare(`SELECT ${columnsOf(findingAcceptances)} FROM finding_acceptances`).all() as AcceptanceRow[]).map((a) => ({
    fingerprint: a.fingerprint,
    note: a.note,
    by: a.acceptedBy,
    acceptedAtMs: a.acceptedAtMs,
    untilMs: a.untilMs,
    detailSha256: a.detailSha256,
  }));
}

/** Where a run's roll-forward closed, per currency: the next run opens there. */
export function previousClosing(sqlite: Database.Database, run: CheckRunRow): PreviousClosing {
  const rows = rollForwardOf(sqlite, run.checkRunId);
  return {
    cutOffMs: rows.find((r) => r.cutOffMs !== null)?.cutOffMs ?? null,
    asOfMs: run.asOfMs,
    byCurrency: new Map(rows.map((r) => [r.currency, { closingCents: r.closingCents, ledgerClosingCents: r.ledgerClosingCents }])),
  };
}

/** A run's roll-forward per currency, typed from the schema. */
export function rollForwardOf(sqlite: Database.Database, checkRunId: number): RollForwardRow[] {
  return drizzle(sqlite).select().from(liabilityRollforward).where(eq(liabilityRollforward.checkRunId, checkRunId)).orderBy(asc(liabilityRollforward.currency)).all();
}

export interface RunRecord {
  checkRunId: number;
  /** The nightly run writes a report after this: the run's report stays 'pending' until {@link markReportWritten}. */
  reportPending?: boolean;
  standing: Standing;
  rollForward: readonly RollForward[];
  summary: CheckRunSummary;
  finishedAtMs: number;
}

/** Stores a run's standing, roll-forward and summary, and marks it completed: one transaction. */
export function recordRun(sqlite: Database.Database, record: RunRecord): void {
  const { checkRunId, standing, summary } = record;
  const insertFinding = inserter(sqlite, findings);
  const insertHeld = inserter(sqlite, heldFindings);
  const insertResolved = inserter(sqlite, resolvedFindings);
  const insertRollForward = inserter(sqlite, liabilityRollforward);
  sqlite.transaction(() => {
    for (const f of standing.findings) insertFinding.run(rowOf(f));
    for (const f of standing.held) insertHeld.run(rowOf(f));
    for (const f of standing.resolved) {
      const row: ResolvedRow = { checkRunId, fingerprint: f.fingerprint, code: f.code, severity: f.severity, entityType: f.entityType, entityId: f.entityId, message: f.message, firstSeenAt: new Date(f.firstSeenAtMs).toISOString() };
      insertResolved.run(row);
    }
    for (const r of record.rollForward) {
      const row: RollForwardRow = { checkRunId, ...r };
      insertRollForward.run(row);
    }
    sqlite
      .prepare(`UPDATE check_runs SET status = 'completed', verdict = ?, finished_at_ms = ?, failed_checks_json = ?, summary_json = ?, report_state = ? WHERE check_run_id = ?`)
      .run(summary.verdict, record.finishedAtMs, summary.failedChecks.length > 0 ? JSON.stringify(summary.failedChecks) : null, JSON.stringify(summary), record.reportPending ? 'pending' : null, checkRunId);
  })();
}

/** The run's report files are written: the night is whole. */
export function markReportWritten(sqlite: Database.Database, checkRunId: number): void {
  drizzle(sqlite).update(checkRuns).set({ reportState: 'written' }).where(eq(checkRuns.checkRunId, checkRunId)).run();
}

/** A completed check run: the newest, or the one named. */
export function completedRun(sqlite: Database.Database, checkRunId?: number): CheckRunRow | null {
  const row =
    checkRunId === undefined
      ? sqlite.prepare(`SELECT ${columnsOf(checkRuns)} FROM check_runs WHERE status = 'completed' ORDER BY check_run_id DESC LIMIT 1`).get()
      : sqlite.prepare(`SELECT ${columnsOf(checkRuns)} FROM check_runs WHERE status = 'completed' AND check_run_id = ?`).get(checkRunId);
  return (row as CheckRunRow | undefined) ?? null;
}

/** The summary a completed run stored. */
export function summaryOf(run: CheckRunRow): CheckRunSummary {
  if (run.summaryJson === null) throw new Error(`check run ${run.checkRunId} has no summary: it did not complete`);
  return JSON.parse(run.summaryJson) as CheckRunSummary;
}

/** Past check runs, newest first. */
export function recentRuns(sqlite: Database.Database, limit: number): CheckRunRow[] {
  return sqlite.prepare(`SELECT ${columnsOf(checkRuns)} FROM check_runs ORDER BY check_run_id DESC LIMIT ?`).all(limit) as CheckRunRow[];
}

/**
 * A run's findings, streamed in the auditors' order: errors first, accepted ones last within
 * a severity, then by code and entity.
 */
export function* findingsOfRun(sqlite: Database.Database, checkRunId: number): Generator<Finding> {
  const rows = sqlite.prepare(
    `SELECT ${columnsOf(findings)} FROM findings WHERE check_run_id = ?
     ORDER BY CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, state = 'accepted', code, entity_id, fingerprint`,
  );
  for (const row of rows.iterate(checkRunId) as Iterable<FindingRow>) yield findingOf(row);
}

/** The previous findings a run resolved. */
export function resolvedOf(sqlite: Database.Database, checkRunId: number): ResolvedRow[] {
  return sqlite.prepare(`SELECT ${columnsOf(resolvedFindings)} FROM resolved_findings WHERE check_run_id = ? ORDER BY code, entity_id`).all(checkRunId) as ResolvedRow[];
}

/** The newest finding with this fingerprint, or null. */
export function latestFinding(sqlite: Database.Database, fingerprint: string): Finding | null {
  const row = sqlite.prepare(`SELECT ${columnsOf(findings)} FROM findings WHERE fingerprint = ? ORDER BY check_run_id DESC LIMIT 1`).get(fingerprint) as FindingRow | undefined;
  return row ? findingOf(row) : null;
}

export interface NewAcceptance {
  fingerprint: string;
  note: string;
  by: string;
  acceptedAtMs: number;
  /** The date as the person gave it (YYYY-MM-DD), and the instant it ends. */
  until: string | null;
  untilMs: number | null;
  /** The finding accepted, as it stands in its newest run. */
  finding: Finding;
}

/** Records (or replaces) the acceptance of a break as it stands. */
export function recordAcceptance(sqlite: Database.Database, a: NewAcceptance): void {
  const row: AcceptanceRow = {
    fingerprint: a.fingerprint,
    note: a.note,
    acceptedBy: a.by,
    acceptedAt: new Date(a.acceptedAtMs).toISOString(),
    acceptedAtMs: a.acceptedAtMs,
    until: a.until,
    untilMs: a.untilMs,
    detailSha256: a.finding.detailSha256,
    checkRunId: a.finding.checkRunId,
  };
  inserter(sqlite, findingAcceptances, 'fingerprint').run(row);
}
