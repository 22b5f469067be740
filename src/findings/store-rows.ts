/**
 * The findings tables' rows, and their conversion to the stage's values and back, once: a stored
 * finding as a Finding (findingOf), a Finding as its row (rowOf). A code the registry does not
 * know is refused: the mirror was written by a newer ledger-recon.
 */
import type { RecordRef } from '../checks/check.js';
import { type CheckCode, CHECK_CODES } from '../checks/index.js';
import type { checkRuns, findingAcceptances, findings, liabilityRollforward, resolvedFindings } from '../db/schema.js';
import type { Finding } from './finding.js';
import type { KeptRecord } from '../ledger/card-sums.js';
import type { RollForward } from '../ledger/rollforward.js';
import type { Standing } from './standing.js';
import type { CheckRunSummary } from './summary.js';

export type CheckRunRow = typeof checkRuns.$inferSelect;
export type FindingRow = typeof findings.$inferSelect;
export type AcceptanceRow = typeof findingAcceptances.$inferSelect;
export type RollForwardRow = typeof liabilityRollforward.$inferSelect;
export type ResolvedRow = typeof resolvedFindings.$inferSelect;

const CODES = new Set<string>(CHECK_CODES);

function codeOf(code: string): CheckCode {
  if (!CODES.has(code))
    throw new Error(`the mirror holds a finding of unknown code ${code}: it was written by a newer ledger-recon`);
  return code as CheckCode;
}

/** What a finding puts at stake, and under which key, from its stored row. */
export function stakeOf(
  row: Pick<FindingRow, 'stakeKey' | 'stakeCents' | 'fingerprint' | 'unit' | 'difference'>,
): Pick<Finding, 'stakeCents' | 'stakeKey'> {
  // Rows stored before stakes were recorded: a money measure's difference is its stake.
  return row.stakeKey === ''
    ? {
        stakeKey: row.fingerprint,
        stakeCents: row.unit === 'cents' && row.difference !== null ? Math.abs(row.difference) : row.stakeCents,
      }
    : { stakeKey: row.stakeKey, stakeCents: row.stakeCents };
}

/**
 * A finding without its measures, message and records: what the night's view counts, ages and
 * judges due of every finding (code, severity, state, stake, age), and what it is about.
 */
export type FindingStake = Pick<
  Finding,
  | 'code'
  | 'severity'
  | 'state'
  | 'currency'
  | 'stakeCents'
  | 'stakeKey'
  | 'fingerprint'
  | 'firstSeenAtMs'
  | 'ageDays'
  | 'entityType'
  | 'entityId'
  | 'giftCardId'
>;

/** The stake part of a stored finding row. */
export function findingStakeOf(
  row: Pick<
    FindingRow,
    | 'code'
    | 'severity'
    | 'state'
    | 'currency'
    | 'stakeKey'
    | 'stakeCents'
    | 'fingerprint'
    | 'unit'
    | 'difference'
    | 'firstSeenAtMs'
    | 'ageDays'
    | 'entityType'
    | 'entityId'
    | 'giftCardId'
  >,
): FindingStake {
  return {
    code: codeOf(row.code),
    severity: row.severity,
    state: row.state,
    currency: row.currency,
    ...stakeOf(row),
    fingerprint: row.fingerprint,
    firstSeenAtMs: row.firstSeenAtMs,
    ageDays: row.ageDays,
    entityType: row.entityType as Finding['entityType'],
    entityId: row.entityId,
    giftCardId: row.giftCardId,
  };
}

/** A stored finding row back as a Finding. */
export function findingOf(row: FindingRow): Finding {
  const { stakeKey, stakeCents } = stakeOf(row);
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
        : {
            fingerprint: row.fingerprint,
            note: row.acceptedNote,
            by: row.acceptedBy,
            acceptedAtMs: row.acceptedAtMs,
            untilMs: row.acceptedUntilMs,
            detailSha256: row.detailSha256,
          },
    acceptanceEnded: row.acceptanceEnded,
  };
}

export function rowOf(f: Finding): FindingRow {
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

/** Why a failed run failed, or null. */
export function errorOf(run: CheckRunRow): RunError | null {
  return run.errorJson === null ? null : (JSON.parse(run.errorJson) as RunError);
}

/** The summary a completed run stored. */
export function summaryOf(run: CheckRunRow): CheckRunSummary {
  if (run.summaryJson === null) throw new Error(`check run ${run.checkRunId} has no summary: it did not complete`);
  return JSON.parse(run.summaryJson) as CheckRunSummary;
}

export interface RunRecord {
  checkRunId: number;
  /** The nightly run writes a report after this: the run's report stays 'pending' until {@link FindingsStore.markReportWritten}. */
  reportPending?: boolean;
  standing: Standing;
  rollForward: readonly RollForward[];
  summary: CheckRunSummary;
  finishedAtMs: number;
  /** What the confirmation pass re-read, as the run digested it (summary.confirmation.sha256); null without one. */
  rereadsJson: string | null;
  /** What its walk made of every card's ledger, for its report's Card and Refunds sheets (src/ledger/card-sums.ts). */
  cardSums: { cards: number; chunks: readonly KeptRecord[] } | null;
}
