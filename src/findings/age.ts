/**
 * Open breaks by age, as a reconciliation team's dashboard buckets them (0–24 h, 1–3 d, 3–7 d,
 * 7–30 d, 30 d and more): how many in each, the money at stake in each, and the oldest. An open
 * break is an error or warning not accepted; its age runs from when it was first seen.
 */
import type { Finding } from './finding.js';
import { moneyAtStakeCents } from './summary.js';

const HOUR = 3_600_000;

/** The buckets, each from its lower bound (included) to the next one's. */
export const AGE_BUCKETS = [
  { label: '0–24 h', fromHours: 0 },
  { label: '1–3 d', fromHours: 24 },
  { label: '3–7 d', fromHours: 72 },
  { label: '7–30 d', fromHours: 168 },
  { label: '30 d+', fromHours: 720 },
] as const;

export type AgeBucket = (typeof AGE_BUCKETS)[number]['label'];

/** One bucket's open breaks: how many, and the cents at stake per currency (a shared stake counted once). */
export interface BreaksOfAge {
  bucket: AgeBucket;
  breaks: number;
  stakeCents: Map<string, number>;
}

/** The oldest open break. */
export interface OldestBreak {
  code: Finding['code'];
  fingerprint: string;
  firstSeenAtMs: number;
  ageHours: number;
}

/** Whether a finding is an open break: an error or warning, not accepted. */
export function isOpenBreak(f: Pick<Finding, 'severity' | 'state'>): boolean {
  return f.severity !== 'info' && f.state !== 'accepted';
}

/** The bucket of a break first seen at `firstSeenAtMs`, at `nowMs`. */
export function bucketOf(firstSeenAtMs: number, nowMs: number): AgeBucket {
  const hours = Math.max(0, nowMs - firstSeenAtMs) / HOUR;
  let bucket: AgeBucket = AGE_BUCKETS[0].label;
  for (const b of AGE_BUCKETS) if (hours >= b.fromHours) bucket = b.label;
  return bucket;
}

/** What the ages of breaks read of a finding: a night's open breaks are held in this much, not whole. */
export type AgedBreak = Pick<
  Finding,
  'code' | 'severity' | 'state' | 'currency' | 'stakeCents' | 'stakeKey' | 'firstSeenAtMs' | 'fingerprint'
>;

/** The open breaks among `findings` by age at `nowMs`, every bucket listed (empty ones too), and the oldest. */
export function breaksByAge(
  findings: readonly AgedBreak[],
  nowMs: number,
): { buckets: BreaksOfAge[]; oldest: OldestBreak | null } {
  const open = findings.filter(isOpenBreak);
  const buckets = AGE_BUCKETS.map(({ label }) => {
    const inBucket = open.filter((f) => bucketOf(f.firstSeenAtMs, nowMs) === label);
    return { bucket: label, breaks: inBucket.length, stakeCents: moneyAtStakeCents(inBucket) };
  });
  const first = [...open].sort(
    (a, b) => a.firstSeenAtMs - b.firstSeenAtMs || a.fingerprint.localeCompare(b.fingerprint),
  )[0];
  const oldest = first
    ? {
        code: first.code,
        fingerprint: first.fingerprint,
        firstSeenAtMs: first.firstSeenAtMs,
        ageHours: Math.floor(Math.max(0, nowMs - first.firstSeenAtMs) / HOUR),
      }
    : null;
  return { buckets, oldest };
}
