/**
 * A check run's summary, computed from its standing (pure): counts that add up (new + open +
 * accepted = the findings in the files), money at stake counted once, ages, the verdict.
 */
import { DEFAULT_SLA_RULES, dueOf, isOverdue, rulesFile, type SlaRule, type SlaRulesFile } from './sla.js';
import { SEVERITIES, type Severity } from '../checks/check.js';
import { type CheckCode, CHECKS } from '../checks/index.js';
import type { LedgerPopulation } from '../ledger/population.js';
import type { MonthToDate, RollForward } from '../ledger/rollforward.js';
import { formatCents } from '../money.js';
import { AGE_BUCKETS, ageBucketOf, type Finding } from './finding.js';
import type { Standing } from './standing.js';
import { exitCodeOf, verdictOf, type FailOn, type Verdict } from './verdict.js';

export interface CheckRunSummary {
  checkRunId: number;
  syncRunId: number;
  syncStatus: string;
  /** Why the sync did not complete, when it did not (redacted). */
  syncError?: string | null;
  verdict: Verdict;
  exitCode: 0 | 1 | 2;
  failOn: FailOn;
  startedAt: string;
  asOf: string;
  merchantId: string | null;
  durationMs: number;
  /** The findings in the files: new + open + accepted. */
  findings: number;
  bySeverity: Record<Severity, number>;
  byCode: Partial<Record<CheckCode, number>>;
  /** Per currency, as decimals: errors and warnings not accepted, shared money counted once. */
  moneyAtStake: Record<string, string>;
  new: number;
  open: number;
  accepted: number;
  /** Previous findings that are gone (not held in flight, not events). */
  resolved: number;
  /** Cards in flight (GC_IN_FLIGHT findings), and earlier breaks held until they are judged again. */
  inFlight: number;
  held: number;
  /** Findings whose acceptance ended this run (expired, or the break changed). */
  acceptancesEnded: number;
  ageBuckets: Record<string, number>;
  rollForward: RollForwardFigures[];
  /**
   * The month to date as this night's walk computed it (cents): the workbook's Month to date
   * sheet writes it. Absent from runs recorded before it was kept.
   */
  monthToDate?: MonthToDate;
  /** The ledger's population as the night's walk read it: counts, control totals, Merkle root (the evidence manifest states it). */
  population?: LedgerPopulation;
  /** What the confirmation pass re-read by ID (absent without one): counts, and the SHA-256 of its reads (the manifest states it). */
  confirmation?: ConfirmationReads;
  /** The exception SLA rules in force (findings/sla.ts), in their file form; absent from runs recorded before them: the defaults. */
  sla?: SlaRulesFile;
  /** Findings due at or before the run's start by those rules (not accepted). */
  overdue?: number;
  /** The roll-forwards that do not close: what fails a run besides its findings. */
  rollForwardBreaks: { currency: string; program: string | null; difference: string }[];
  failedChecks: { code: CheckCode; error: string }[];
  /** Books files the night could not import: the matching, and so the run, is not complete. */
  booksNotImported: { file: string; reason: string }[];
  /**
   * The books the matching read: every books file imported up to this one (books_files.file_id),
   * null when there were none. Absent when the matching failed, and from runs recorded before it
   * was kept: their books' checks are not re-performed.
   */
  booksThroughFileId?: number | null;
  checkTimesMs: Partial<Record<CheckCode, number>>;
  cards: number;
  entries: number;
  walkMs: number;
}

/** One currency's roll-forward as the JSON and the terminal state it: decimals as strings. */
export interface RollForwardFigures {
  currency: string;
  opening: string;
  rebase: string;
  rebaseReason?: string;
  issued: string;
  debited: string;
  refunded: string;
  voided: string;
  expired: string;
  closing: string;
  cardsRemaining: string;
  difference: string;
  inFlight: string;
  inFlightCards: number;
  closes: boolean;
}

/** The confirmation pass's re-reads as a run keeps them: how many, and a digest of what they answered. */
export interface ConfirmationReads {
  cards: number;
  entries: number;
  /** SHA-256 of the reads (each card and entry: as mirrored, as read back), in ID order, as JSON. */
  sha256: string;
}

export interface SummaryInput {
  checkRunId: number;
  /** The sync checked; its cut-off (the data edge) is every figure's "as of", its start when not given. */
  sync: { syncRunId: number; status: string; error?: string | null; startedAtMs: number; cutOffMs?: number };
  complete: boolean;
  failOn: FailOn;
  startedAtMs: number;
  merchantId: string | null;
  durationMs: number;
  standing: Standing;
  rollForward: readonly RollForward[];
  monthToDate?: MonthToDate;
  population?: LedgerPopulation;
  confirmation?: ConfirmationReads;
  failedChecks: { code: CheckCode; error: string }[];
  booksNotImported?: { file: string; reason: string }[];
  booksThroughFileId?: number | null;
  checkTimesMs: Partial<Record<CheckCode, number>>;
  cards: number;
  entries: number;
  walkMs: number;
  /** The exception SLA rules in force (default: DEFAULT_SLA_RULES). */
  sla?: readonly SlaRule[];
}

export function summarise(input: SummaryInput): CheckRunSummary {
  const { findings, held, resolved } = input.standing;
  const verdict = verdictOf({ complete: input.complete, findings, rollForward: input.rollForward });
  const stateCount = (state: Finding['state']): number => findings.filter((f) => f.state === state).length;
  return {
    checkRunId: input.checkRunId,
    syncRunId: input.sync.syncRunId,
    syncStatus: input.sync.status,
    syncError: input.sync.error ?? null,
    verdict,
    exitCode: exitCodeOf(verdict, findings, input.rollForward, input.failOn),
    failOn: input.failOn,
    startedAt: new Date(input.startedAtMs).toISOString(),
    asOf: new Date(input.sync.cutOffMs ?? input.sync.startedAtMs).toISOString(),
    merchantId: input.merchantId,
    durationMs: input.durationMs,
    findings: findings.length,
    bySeverity: Object.fromEntries(
      SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length]),
    ) as Record<Severity, number>,
    byCode: countBy(findings, (f) => f.code),
    moneyAtStake: moneyAtStake(findings),
    new: stateCount('new'),
    open: stateCount('open'),
    accepted: stateCount('accepted'),
    resolved: resolved.length,
    inFlight: findings.filter((f) => f.code === CHECKS.GC_IN_FLIGHT.code).length,
    held: held.length,
    acceptancesEnded: findings.filter((f) => f.acceptanceEnded !== null).length,
    ageBuckets: Object.fromEntries(
      AGE_BUCKETS.map((b) => [
        b,
        findings.filter((f) => f.state !== 'accepted' && ageBucketOf(f.ageDays) === b).length,
      ]),
    ),
    sla: rulesFile(input.sla ?? DEFAULT_SLA_RULES),
    overdue: findings.filter((f) => isOverdue(dueOf(f, input.sla ?? DEFAULT_SLA_RULES), input.startedAtMs)).length,
    rollForward: input.rollForward.map(rollForwardFigures),
    rollForwardBreaks: input.rollForward
      .filter((r) => r.differenceCents !== 0)
      .map((r) => ({ currency: r.currency, program: null, difference: formatCents(r.differenceCents) })),
    ...(input.monthToDate ? { monthToDate: input.monthToDate } : {}),
    ...(input.population ? { population: input.population } : {}),
    ...(input.confirmation ? { confirmation: input.confirmation } : {}),
    failedChecks: input.failedChecks,
    booksNotImported: input.booksNotImported ?? [],
    ...(input.booksThroughFileId !== undefined ? { booksThroughFileId: input.booksThroughFileId } : {}),
    checkTimesMs: input.checkTimesMs,
    cards: input.cards,
    entries: input.entries,
    walkMs: input.walkMs,
  };
}

function countBy<T, K extends string>(items: readonly T[], key: (item: T) => K): Partial<Record<K, number>> {
  const counts: Partial<Record<K, number>> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/**
 * Σ money at stake per currency over errors and warnings not accepted. Findings that share a
 * stake key point at the same money (one card's balance difference seen by several codes):
 * the key counts once, at the largest amount any of them names.
 */
export function moneyAtStakeCents(
  findings: readonly Pick<Finding, 'severity' | 'state' | 'currency' | 'stakeCents' | 'stakeKey'>[],
): Map<string, number> {
  const byKey = new Map<string, { currency: string; cents: number }>();
  for (const f of findings) {
    if (f.stakeCents <= 0 || f.currency === null || f.state === 'accepted' || f.severity === 'info') continue;
    const key = `${f.currency}\u001f${f.stakeKey}`;
    const before = byKey.get(key);
    if (!before || before.cents < f.stakeCents) byKey.set(key, { currency: f.currency, cents: f.stakeCents });
  }
  const totals = new Map<string, number>();
  for (const { currency, cents } of byKey.values()) totals.set(currency, (totals.get(currency) ?? 0) + cents);
  return new Map([...totals].sort(([a], [b]) => a.localeCompare(b)));
}

function moneyAtStake(findings: readonly Finding[]): Record<string, string> {
  return Object.fromEntries(
    [...moneyAtStakeCents(findings)].map(([currency, cents]) => [currency, formatCents(cents)]),
  );
}

/** One currency's roll-forward as the JSON, the terminal and the manifest's digest state it (decimals). */
export function rollForwardFigures(r: RollForward): RollForwardFigures {
  return {
    currency: r.currency,
    opening: formatCents(r.openingCents),
    rebase: formatCents(r.rebaseCents),
    ...(r.rebaseReason ? { rebaseReason: r.rebaseReason } : {}),
    issued: formatCents(r.issuedCents),
    debited: formatCents(r.debitedCents),
    refunded: formatCents(r.refundedCents),
    voided: formatCents(r.voidedCents),
    expired: formatCents(r.expiredCents),
    closing: formatCents(r.closingCents),
    cardsRemaining: formatCents(r.cardsRemainingCents),
    difference: formatCents(r.differenceCents),
    inFlight: formatCents(r.inFlightCents),
    inFlightCards: r.inFlightCards,
    closes: r.differenceCents === 0,
  };
}
