/**
 * A finding as stored and exported: a check's draft plus its code, severity, fingerprint and
 * its standing across runs. Pure functions; the store does the I/O.
 */
import type { FindingDraft, RecordRef, Severity } from '../checks/check.js';
import type { CheckCode } from '../checks/index.js';
import { formatCents } from '../money.js';
import { sha256Hex } from '../hash.js';
import { dueOf, isOverdue, type RunSla, type SlaFinding } from './sla.js';

/** A finding's standing in the files: every output spells these the same way. */
export const FINDING_STATES = ['new', 'open', 'accepted'] as const;
export type FindingState = (typeof FINDING_STATES)[number];

/** A person's acceptance of a known break: why, who, when, and until when. */
export interface Acceptance {
  fingerprint: string;
  note: string;
  /** Who accepted; null on acceptances recorded before the tool asked. */
  by: string | null;
  acceptedAtMs: number;
  /** The acceptance lapses at this instant; null: until the break changes. */
  untilMs: number | null;
  /** The break's particulars as accepted: a changed break is no longer accepted. */
  detailSha256: string;
}

export interface Finding {
  checkRunId: number;
  fingerprint: string;
  code: CheckCode;
  severity: Severity;
  entityType: FindingDraft['entityType'];
  entityId: string;
  giftCardId: string | null;
  referenceId: string | null;
  currency: string | null;
  unit: 'cents' | 'count' | null;
  expected: number | null;
  actual: number | null;
  difference: number | null;
  /** Cents of `currency` this break puts at stake, and the key that makes shared money count once. */
  stakeCents: number;
  stakeKey: string;
  message: string;
  state: FindingState;
  firstSeenCheckRunId: number;
  firstSeenAtMs: number;
  ageDays: number;
  records: RecordRef[];
  detailSha256: string;
  /** The acceptance that holds this run (state accepted), or null. */
  acceptance: Acceptance | null;
  /** Why an earlier acceptance no longer holds (it expired, or the break changed); null otherwise. */
  acceptanceEnded: string | null;
}

/** The exported shape (DESIGN.md): amounts as decimal strings, each with its unit. */
export interface ExportedFinding {
  runId: number;
  code: CheckCode;
  severity: Severity;
  entityType: string;
  entityId: string;
  giftCardId: string | null;
  referenceId: string | null;
  currency: string | null;
  /** What expected, actual and difference count: a currency code, or `count`. */
  unit: string | null;
  expected: string | null;
  actual: string | null;
  difference: string | null;
  /** Money at stake in `currency` (shared money counted once per stake key in the summary). */
  atStake: string | null;
  message: string;
  state: FindingState;
  firstSeenAt: string;
  ageDays: number;
  fingerprint: string;
  records: RecordRef[];
  acceptedNote: string | null;
  acceptedBy: string | null;
  acceptedAt: string | null;
  acceptedUntil: string | null;
  acceptanceEnded: string | null;
  /** When it is due by the run's exception SLA rules (findings/sla.ts); null when accepted or no rule applies. */
  dueAt: string | null;
  /** Due at or before the run's start. */
  overdue: boolean;
}

/** The same break gets the same fingerprint in every run: code plus the identities it is about. */
export function fingerprintOf(code: CheckCode, draft: FindingDraft): string {
  return sha256Hex(
    [code, draft.entityType, draft.entityId, draft.referenceId ?? '', ...(draft.identity ?? [])].join('\u001f'),
  ).slice(0, 16);
}

/** The break's particulars: an acceptance lapses when they change. */
export function detailOf(draft: Pick<FindingDraft, 'measure' | 'records'>): string {
  return sha256Hex(JSON.stringify({ measure: draft.measure ?? null, records: draft.records }));
}

export const DAY_MS = 86_400_000;

export function ageDaysOf(firstSeenAtMs: number, nowMs: number): number {
  // Calendar days in UTC, as a person counts them: seen at 02:30:00.400 last night, 1 day old at
  // 02:30:00.200 tonight (whole 24-hour periods said 0).
  return Math.max(0, Math.floor(nowMs / DAY_MS) - Math.floor(firstSeenAtMs / DAY_MS));
}

export const AGE_BUCKETS = ['0-1', '2-7', '8-30', 'over 30'] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number];

export function ageBucketOf(ageDays: number): AgeBucket {
  if (ageDays <= 1) return '0-1';
  if (ageDays <= 7) return '2-7';
  if (ageDays <= 30) return '8-30';
  return 'over 30';
}

/** The unit a finding's figures are in, as exported: its currency for money, `count` otherwise. */
export function unitOf(finding: Pick<Finding, 'unit' | 'currency'>): string | null {
  if (finding.unit === 'cents') return finding.currency;
  return finding.unit;
}

function decimal(unit: Finding['unit'], value: number | null): string | null {
  if (value === null) return null;
  return unit === 'cents' ? formatCents(value) : String(value);
}

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

/**
 * What a night says of one finding beyond what it recorded: its due time by the run's exception
 * SLA rules, whether that has passed at the run's as-of instant, and whether the money it puts
 * at stake is material. Computed once per finding; the Findings sheet, the CSV, the JSON and the
 * night's page each write it.
 */
export interface Standing {
  dueAtMs: number | null;
  overdue: boolean;
  material: boolean;
}

/** The standing of a finding under the run's SLA and the report's materiality. */
export function standingOf(
  finding: SlaFinding,
  sla: RunSla,
  materiality: Materiality = new Map<string, number>(),
): Standing {
  const dueAtMs = dueOf(finding, sla.rules);
  return { dueAtMs, overdue: isOverdue(dueAtMs, sla.asOfMs), material: isMaterial(finding, materiality) };
}

/** A finding as the files export it, its due time by the run's SLA. */
export function exportFinding(finding: Finding, sla: RunSla): ExportedFinding {
  return exportedFinding(finding, standingOf(finding, sla));
}

/** A finding as the files export it, with its standing computed once (standingOf). */
export function exportedFinding(finding: Finding, standing: Pick<Standing, 'dueAtMs' | 'overdue'>): ExportedFinding {
  return {
    runId: finding.checkRunId,
    code: finding.code,
    severity: finding.severity,
    entityType: finding.entityType,
    entityId: finding.entityId,
    giftCardId: finding.giftCardId,
    referenceId: finding.referenceId,
    currency: finding.currency,
    unit: unitOf(finding),
    expected: decimal(finding.unit, finding.expected),
    actual: decimal(finding.unit, finding.actual),
    difference: decimal(finding.unit, finding.difference),
    atStake: finding.stakeCents > 0 ? formatCents(finding.stakeCents) : null,
    message: finding.message,
    state: finding.state,
    firstSeenAt: new Date(finding.firstSeenAtMs).toISOString(),
    ageDays: finding.ageDays,
    fingerprint: finding.fingerprint,
    records: finding.records,
    acceptedNote: finding.acceptance?.note ?? null,
    acceptedBy: finding.acceptance?.by ?? null,
    acceptedAt: iso(finding.acceptance?.acceptedAtMs),
    acceptedUntil: iso(finding.acceptance?.untilMs),
    acceptanceEnded: finding.acceptanceEnded,
    dueAt: iso(standing.dueAtMs),
    overdue: standing.overdue,
  };
}

/** Per currency, the money at stake (cents) at or above which a finding is material (`--materiality USD=100.00`). */
export type Materiality = ReadonlyMap<string, number>;

/** A finding is material when its money at stake reaches its currency's threshold. */
export function isMaterial(f: Pick<Finding, 'currency' | 'stakeCents'>, materiality: Materiality): boolean {
  const threshold = f.currency === null ? undefined : materiality.get(f.currency);
  return threshold !== undefined && f.stakeCents > 0 && f.stakeCents >= threshold;
}
