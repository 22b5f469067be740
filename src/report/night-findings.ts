/**
 * The night's findings counted once, in one read of what each puts at stake: per code its
 * severity, count per state, material count and money at stake; the money at stake in all; the
 * open breaks by age; and the longest overdue. The Summary, the page and the night's JSON each
 * write these figures; none counts them again.
 */
import type { Severity } from '../checks/check.js';
import { CHECKS, type CheckCode } from '../checks/index.js';
import { type AgedBreak, type BreaksOfAge, breaksByAge, isOpenBreak, type OldestBreak } from '../findings/age.js';
import {
  type Finding,
  FINDING_STATES,
  type FindingState,
  type Materiality,
  type Standing,
  standingOf,
} from '../findings/finding.js';
import type { RunSla } from '../findings/sla.js';
import type { FindingStake, FindingsStore } from '../findings/store.js';
import { moneyAtStakeCents } from '../findings/summary.js';
import { formatCents } from '../money.js';

/** How many overdue findings the page lists: the longest overdue first. */
export const LISTED_OVERDUE = 20;

/** A finding in words: the catalogue's title, what it is about, the money at stake. */
export interface FindingInWords {
  code: CheckCode;
  severity: Severity;
  title: string;
  about: string;
  currency: string | null;
  atStake: string;
  /** The same, in cents (the workbook's money cells). */
  stakeCents: number;
  firstSeenAt: string;
}

/** An overdue finding in words, with when it fell due. */
export type OverdueInWords = FindingInWords & { dueAt: string };

/** One check code's findings of the night. */
export interface CodeOfNight {
  code: CheckCode;
  severity: Severity;
  findings: number;
  states: Record<FindingState, number>;
  /** Findings whose money at stake reaches their currency's materiality. */
  material: number;
  /** Cents at stake per currency (errors and warnings not accepted; a shared stake counted once). */
  atStakeCents: Record<string, number>;
}

/** The night's findings as the view counts them. */
export interface FindingsOfNight {
  /** Worst severity first, then by code. */
  byCode: CodeOfNight[];
  material: number;
  /** Cents at stake per currency over every code. */
  atStakeCents: Record<string, number>;
  breaks: { buckets: BreaksOfAge[]; oldest: OldestBreak | null };
  /** The longest overdue (at most {@link LISTED_OVERDUE}), earliest due first. */
  overdue: OverdueInWords[];
}

const iso = (ms: number): string => new Date(ms).toISOString();
const SEVERITY_ORDER: readonly Severity[] = ['error', 'warning', 'info'];

/** Cents per currency as a record, currencies in order. */
export const centsRecord = (cents: ReadonlyMap<string, number>): Record<string, number> =>
  Object.fromEntries([...cents].sort(([a], [b]) => a.localeCompare(b)));

/** A finding in words, as page 1 of the workbook states it: the title, then the card or the record. */
export function inWords(
  f: Pick<
    FindingStake,
    'code' | 'severity' | 'giftCardId' | 'entityType' | 'entityId' | 'currency' | 'stakeCents' | 'firstSeenAtMs'
  >,
): FindingInWords {
  return {
    code: f.code,
    severity: f.severity,
    title: CHECKS[f.code].title,
    about: f.giftCardId !== null ? `card ${f.giftCardId}` : `${f.entityType} ${f.entityId}`,
    currency: f.currency,
    atStake: formatCents(f.stakeCents),
    stakeCents: f.stakeCents,
    firstSeenAt: iso(f.firstSeenAtMs),
  };
}

/**
 * The findings of run `checkRunId`, counted in one read: ages as of `asOfMs` (the night's cut-off),
 * due times by the run's SLA, materiality by the report's thresholds.
 */
export async function findingsOfNight(
  store: FindingsStore,
  checkRunId: number,
  asOfMs: number,
  sla: RunSla,
  materiality: Materiality,
): Promise<FindingsOfNight> {
  const all: FindingStake[] = [];
  const open: AgedBreak[] = [];
  const overdue = new OverdueList();
  let material = 0;
  const codes = new Map<CheckCode, { severity: Severity; findings: FindingStake[]; material: number }>();
  for await (const batch of store.whole.stakesOf(checkRunId))
    for (const f of batch) {
      all.push(f);
      const standing = standingOf(f, sla, materiality);
      const group = codes.get(f.code) ?? { severity: f.severity, findings: [], material: 0 };
      group.findings.push(f);
      if (standing.material) {
        group.material += 1;
        material += 1;
      }
      codes.set(f.code, group);
      if (isOpenBreak(f)) open.push(f);
      if (standing.overdue && standing.dueAtMs !== null) overdue.add(f, standing.dueAtMs);
    }
  const byCode = [...codes]
    .map(([code, g]): CodeOfNight => {
      const states = Object.fromEntries(FINDING_STATES.map((s) => [s, 0])) as Record<FindingState, number>;
      for (const f of g.findings) states[f.state] += 1;
      return {
        code,
        severity: g.severity,
        findings: g.findings.length,
        states,
        material: g.material,
        atStakeCents: centsRecord(moneyAtStakeCents(g.findings)),
      };
    })
    .sort(
      (a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) || a.code.localeCompare(b.code),
    );
  return {
    byCode,
    material,
    atStakeCents: centsRecord(moneyAtStakeCents(all)),
    breaks: breaksByAge(open, asOfMs),
    overdue: overdue.list(),
  };
}

/**
 * The longest overdue findings of a run, kept as they stream past: at most {@link LISTED_OVERDUE},
 * the earliest due first (then the most at stake), whatever the number overdue.
 */
class OverdueList {
  #kept: { dueAtMs: number; stakeCents: number; finding: FindingInWords }[] = [];

  add(finding: FindingStake, dueAtMs: number): void {
    this.#kept.push({ dueAtMs, stakeCents: finding.stakeCents, finding: inWords(finding) });
    if (this.#kept.length > 10 * LISTED_OVERDUE) this.#trim();
  }

  list(): OverdueInWords[] {
    this.#trim();
    return this.#kept.map((k) => ({ ...k.finding, dueAt: iso(k.dueAtMs) }));
  }

  #trim(): void {
    this.#kept.sort(
      (a, b) => a.dueAtMs - b.dueAtMs || b.stakeCents - a.stakeCents || a.finding.about.localeCompare(b.finding.about),
    );
    this.#kept.length = Math.min(this.#kept.length, LISTED_OVERDUE);
  }
}

/** A finding of the night with its standing (due time, overdue, material), as every findings output writes it. */
export interface FindingWithStanding {
  finding: Finding;
  standing: Standing;
}

/**
 * The findings of run `checkRunId` in the auditors' order, each with its standing judged once
 * under the run's SLA and the report's materiality: the Findings sheet, the CSV and the JSON
 * write these.
 */
export async function* findingsWithStanding(
  store: FindingsStore,
  checkRunId: number,
  sla: RunSla,
  materiality: Materiality,
): AsyncGenerator<FindingWithStanding> {
  for await (const finding of store.whole.findingsOf(checkRunId))
    yield { finding, standing: standingOf(finding, sla, materiality) };
}
