/**
 * A finding as stored and exported: a check's draft plus its code, severity, fingerprint and
 * its standing across runs. Pure functions; the store does the I/O.
 */
import { createHash } from 'node:crypto';
import { formatCents } from '../money.js';
import type { CheckCode, FindingDraft, RecordRef, Severity } from './check.js';

export type FindingState = 'new' | 'open' | 'accepted';

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
  message: string;
  state: FindingState;
  firstSeenCheckRunId: number;
  firstSeenAtMs: number;
  ageDays: number;
  records: RecordRef[];
  detailSha256: string;
}

/** The exported shape (DESIGN.md): amounts as decimal strings in the record's currency. */
export interface ExportedFinding {
  runId: number;
  code: CheckCode;
  severity: Severity;
  entityType: string;
  entityId: string;
  giftCardId: string | null;
  referenceId: string | null;
  currency: string | null;
  expected: string | null;
  actual: string | null;
  difference: string | null;
  message: string;
  state: FindingState;
  firstSeenAt: string;
  ageDays: number;
  fingerprint: string;
  records: RecordRef[];
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The same break gets the same fingerprint in every run: code plus the identities it is about. */
export function fingerprintOf(code: CheckCode, draft: FindingDraft): string {
  return sha256([code, draft.entityType, draft.entityId, draft.referenceId ?? '', ...(draft.identity ?? [])].join('\u001f')).slice(0, 16);
}

/** The break's particulars: an acceptance lapses when they change. */
export function detailOf(draft: FindingDraft): string {
  return sha256(JSON.stringify({ measure: draft.measure ?? null, records: draft.records }));
}

export const DAY_MS = 86_400_000;

export function ageDaysOf(firstSeenAtMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - firstSeenAtMs) / DAY_MS));
}

export const AGE_BUCKETS = ['0-1', '2-7', '8-30', 'over 30'] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number];

export function ageBucketOf(ageDays: number): AgeBucket {
  if (ageDays <= 1) return '0-1';
  if (ageDays <= 7) return '2-7';
  if (ageDays <= 30) return '8-30';
  return 'over 30';
}

function decimal(unit: Finding['unit'], value: number | null): string | null {
  if (value === null) return null;
  return unit === 'cents' ? formatCents(value) : String(value);
}

export function exportFinding(finding: Finding): ExportedFinding {
  return {
    runId: finding.checkRunId,
    code: finding.code,
    severity: finding.severity,
    entityType: finding.entityType,
    entityId: finding.entityId,
    giftCardId: finding.giftCardId,
    referenceId: finding.referenceId,
    currency: finding.currency,
    expected: decimal(finding.unit, finding.expected),
    actual: decimal(finding.unit, finding.actual),
    difference: decimal(finding.unit, finding.difference),
    message: finding.message,
    state: finding.state,
    firstSeenAt: new Date(finding.firstSeenAtMs).toISOString(),
    ageDays: finding.ageDays,
    fingerprint: finding.fingerprint,
    records: finding.records,
  };
}
