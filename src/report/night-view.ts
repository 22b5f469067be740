/**
 * The night as its page shows it, computed once from the mirror: the verdict and money per
 * currency, the liability and the findings per severity over the last nights, the open breaks
 * by age, the month's roll-forward as a waterfall, the largest findings in words, and what
 * changed since the night before. Every figure is one the night recorded (its summary) or one
 * the findings stage computes; the page only writes them.
 */
import type { Severity } from '../checks/check.js';
import { CHECKS, type CheckCode } from '../checks/index.js';
import { type AgedBreak, breaksByAge } from '../findings/age.js';
import type { Finding } from '../findings/finding.js';
import type { CheckRunSummary } from '../findings/summary.js';
import { type CheckRunRow, type FindingsStore, summaryOf } from '../findings/store.js';
import { waterfallOf, type WaterfallStep } from '../ledger/rollforward.js';
import { formatCents } from '../money.js';
import { type ReportScope, reportTitle } from './scope.js';

/** How many nights the trends reach back, this one included. */
export const TREND_NIGHTS = 90;
/** How many findings the page states in words. */
export const LARGEST_FINDINGS = 10;

/** One currency of the night: what the cards hold, what is at stake ("none" when clean), and whether its roll-forward closes. */
export interface CurrencyOfNight {
  currency: string;
  liability: string | null;
  atStake: string;
  closes: boolean;
  difference: string | null;
}

/** One night of the trends. */
export interface NightOfTrend {
  runId: number;
  asOf: string;
  verdict: string;
  liability: Record<string, string>;
  bySeverity: Record<Severity, number>;
}

/** A currency and program's month to date, step by step (decimal text). */
export interface Waterfall {
  currency: string;
  program: string | null;
  from: string;
  to: string;
  steps: {
    label: WaterfallStep['label'];
    direction: WaterfallStep['direction'];
    amount: string;
    from: string;
    to: string;
  }[];
  difference: string;
  closes: boolean;
}

/** A finding in words: the catalogue's title, what it is about, the money at stake. */
export interface FindingInWords {
  code: CheckCode;
  severity: Severity;
  title: string;
  about: string;
  currency: string | null;
  atStake: string;
  firstSeenAt: string;
}

/** An overdue finding in words, with when it fell due. */
export type OverdueInWords = FindingInWords & { dueAt: string };

/** How many overdue findings the page lists: the longest overdue first. */
export const LISTED_OVERDUE = 20;

/**
 * The longest overdue findings of a run, kept as they stream past: at most {@link LISTED_OVERDUE},
 * the earliest due first (then the most at stake), whatever the number overdue.
 */
export class OverdueList {
  #kept: { dueAtMs: number; stakeCents: number; finding: FindingInWords }[] = [];

  add(finding: Finding, dueAtMs: number): void {
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

/** What moved since the night before: counts, and figures before and now (never a difference computed here). */
export interface SinceBefore {
  previousRunId: number;
  previousAsOf: string;
  verdictBefore: string;
  new: number;
  resolved: number;
  acceptancesEnded: number;
  liability: { currency: string; before: string | null; now: string | null }[];
  atStake: { currency: string; before: string; now: string }[];
  codes: { code: CheckCode; title: string; before: number; now: number }[];
}

export interface NightView {
  title: string;
  merchant: string;
  merchantId: string | null;
  runId: number;
  verdict: string;
  exitCode: number;
  startedAt: string;
  asOf: string;
  findings: number;
  bySeverity: Record<Severity, number>;
  overdue: number | null;
  /** The longest overdue (at most {@link LISTED_OVERDUE}), as of the run's start: they lead the page. */
  overdueFindings: OverdueInWords[];
  currencies: CurrencyOfNight[];
  trend: NightOfTrend[];
  openBreaks: { bucket: string; breaks: number; atStake: Record<string, string> }[];
  oldestBreak: { code: CheckCode; title: string; firstSeenAt: string; ageHours: number } | null;
  waterfalls: Waterfall[];
  largest: FindingInWords[];
  since: SinceBefore | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const decimals = (cents: Map<string, number>): Record<string, string> =>
  Object.fromEntries([...cents].sort(([a], [b]) => a.localeCompare(b)).map(([c, v]) => [c, formatCents(v)]));
const liabilityOf = (summary: CheckRunSummary): Record<string, string> =>
  Object.fromEntries(summary.rollForward.map((r) => [r.currency, r.cardsRemaining]));

/** A finding in words, as page 1 of the workbook states it: the title, then the card or the record. */
export function inWords(f: Finding): FindingInWords {
  return {
    code: f.code,
    severity: f.severity,
    title: CHECKS[f.code].title,
    about: f.giftCardId !== null ? `card ${f.giftCardId}` : `${f.entityType} ${f.entityId}`,
    currency: f.currency,
    atStake: formatCents(f.stakeCents),
    firstSeenAt: iso(f.firstSeenAtMs),
  };
}

/**
 * The view of completed run `run`, whose open breaks (errors and warnings not accepted) are
 * `openBreaks`, as of its cut-off: ages, and the nights before it, are the night's, so the same
 * run gives the same view whenever it is written.
 */
export async function nightViewOf(
  store: FindingsStore,
  run: CheckRunRow,
  openBreaks: readonly AgedBreak[],
  scope: Pick<ReportScope, 'merchantName'> = {},
  overdue: readonly OverdueInWords[] = [],
): Promise<NightView> {
  const summary = summaryOf(run);
  const asOfMs = run.asOfMs ?? run.startedAtMs;
  const nights = (await store.history.completedThrough(run.checkRunId, TREND_NIGHTS)).reverse();
  const { buckets, oldest } = breaksByAge(openBreaks, asOfMs);
  const previousRun = nights.length > 1 ? nights[nights.length - 2] : undefined;
  return {
    // The workbook's own title, which its every printed footer repeats.
    title: reportTitle(scope, run, summary.verdict),
    merchant: scope.merchantName ?? (run.merchantId === null ? 'Every merchant' : `Merchant ${run.merchantId}`),
    merchantId: run.merchantId,
    runId: run.checkRunId,
    verdict: summary.verdict,
    exitCode: summary.exitCode,
    startedAt: iso(run.startedAtMs),
    asOf: iso(asOfMs),
    findings: summary.findings,
    bySeverity: summary.bySeverity,
    overdue: summary.overdue ?? null,
    overdueFindings: [...overdue],
    currencies: currenciesOf(summary),
    trend: nights.map((night) => {
      const s = summaryOf(night);
      return {
        runId: night.checkRunId,
        asOf: iso(night.asOfMs ?? night.startedAtMs),
        verdict: s.verdict,
        liability: liabilityOf(s),
        bySeverity: s.bySeverity,
      };
    }),
    openBreaks: buckets.map((b) => ({ bucket: b.bucket, breaks: b.breaks, atStake: decimals(b.stakeCents) })),
    oldestBreak: oldest && {
      code: oldest.code,
      title: CHECKS[oldest.code].title,
      firstSeenAt: iso(oldest.firstSeenAtMs),
      ageHours: oldest.ageHours,
    },
    waterfalls: waterfallsOf(summary),
    largest: (await store.history.largestOf(run.checkRunId, LARGEST_FINDINGS)).map(inWords),
    since: previousRun ? sinceBefore(summaryOf(previousRun), previousRun, summary) : null,
  };
}

/** Every currency the night knows (its roll-forward's and its stakes'), with "none" at stake where clean. */
function currenciesOf(summary: CheckRunSummary): CurrencyOfNight[] {
  const names = [...new Set([...summary.rollForward.map((r) => r.currency), ...Object.keys(summary.moneyAtStake)])];
  return names.sort().map((currency) => {
    const roll = summary.rollForward.find((r) => r.currency === currency);
    return {
      currency,
      liability: roll?.cardsRemaining ?? null,
      atStake: summary.moneyAtStake[currency] ?? 'none',
      closes: roll?.closes ?? true,
      difference: roll?.difference ?? null,
    };
  });
}

/** The month to date's roll-forwards as waterfalls: none for a run recorded before the night kept them. */
function waterfallsOf(summary: CheckRunSummary): Waterfall[] {
  const month = summary.monthToDate;
  if (!month || month.fromMs >= month.toMs) return [];
  return month.rollForwards.map((r) => ({
    currency: r.currency,
    program: r.programId,
    from: iso(month.fromMs),
    to: iso(month.toMs),
    steps: waterfallOf(r).map((s) => ({
      label: s.label,
      direction: s.direction,
      amount: formatCents(s.amountCents),
      from: formatCents(s.fromCents),
      to: formatCents(s.toCents),
    })),
    difference: formatCents(r.differenceCents),
    closes: r.closes,
  }));
}

/** What changed between the night before and this one, as both recorded it. */
function sinceBefore(before: CheckRunSummary, previousRun: CheckRunRow, now: CheckRunSummary): SinceBefore {
  const liabilityBefore = liabilityOf(before);
  const liabilityNow = liabilityOf(now);
  const currencies = (...records: Record<string, unknown>[]) =>
    [...new Set(records.flatMap((r) => Object.keys(r)))].sort();
  const codes = [...new Set([...Object.keys(before.byCode), ...Object.keys(now.byCode)])].sort() as CheckCode[];
  return {
    previousRunId: previousRun.checkRunId,
    previousAsOf: iso(previousRun.asOfMs ?? previousRun.startedAtMs),
    verdictBefore: before.verdict,
    new: now.new,
    resolved: now.resolved,
    acceptancesEnded: now.acceptancesEnded,
    liability: currencies(liabilityBefore, liabilityNow).map((currency) => ({
      currency,
      before: liabilityBefore[currency] ?? null,
      now: liabilityNow[currency] ?? null,
    })),
    atStake: currencies(before.moneyAtStake, now.moneyAtStake).map((currency) => ({
      currency,
      before: before.moneyAtStake[currency] ?? 'none',
      now: now.moneyAtStake[currency] ?? 'none',
    })),
    codes: codes
      .map((code) => ({
        code,
        title: CHECKS[code].title,
        before: before.byCode[code] ?? 0,
        now: now.byCode[code] ?? 0,
      }))
      .filter((c) => c.before !== c.now),
  };
}
