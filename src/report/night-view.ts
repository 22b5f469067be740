/**
 * The night, computed once from the mirror: what the workbook's Summary, the findings files and
 * the night's page each write, and none computes again. The verdict and money per currency, the
 * liability and its roll-forward, the month to date and how it relates to the night's, the
 * findings by code with their standing and money, the open breaks by age and the overdue, the
 * largest findings in words, the nights before (the trends, and what changed since the last),
 * and what the night covered (its sync, its records, the merchant's books). Every figure is one
 * the night recorded (its summary) or one the findings, ledger or books stage computes.
 */
import type { Severity } from '../checks/check.js';
import { CHECKS, type CheckCode } from '../checks/index.js';
import type { CheckRunSummary } from '../findings/summary.js';
import { slaOfRun } from '../findings/sla.js';
import { type CheckRunRow, type FindingsStore, type RollForwardRow, summaryOf } from '../findings/store.js';
import { type NightAgainstMonth, nightAgainstMonth, waterfallOf, type WaterfallStep } from '../ledger/rollforward.js';
import { cents, formatCents } from '../money.js';
import type { Mirror } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { BooksStore } from '../books/store.js';
import { type CountedTable, ReportStore } from './store.js';
import type { PeriodClose } from './close.js';
import { type ReportScope, reportTitle } from './scope.js';
import {
  centsRecord,
  type CodeOfNight,
  type FindingInWords,
  findingsOfNight,
  inWords,
  type OverdueInWords,
} from './night-findings.js';
import { periodOf } from './period.js';

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
  /**
   * A roll-forward that does not close, against the month so far's (the same cut-off): its
   * difference = the month's cards − flows + its service − cards + what lies between the month's
   * opening and the night's. Null where it closes, or the night has no month to date.
   */
  month: { cardsLessFlows: string; serviceLessCards: string; betweenOpenings: string } | null;
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

export type { CodeOfNight, FindingInWords, OverdueInWords } from './night-findings.js';
export { LISTED_OVERDUE } from './night-findings.js';

/** The night at a glance: what its page shows (night-page.ts), each figure also in the workbook. */
export interface NightAtAGlance {
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

/** The night's view: what it shows at a glance, and what the workbook's Summary adds. */
export interface NightView extends NightAtAGlance {
  /** What the night recorded: its summary, whose counts the workbook's Summary states. */
  recorded: CheckRunSummary;
  about: AboutNight;
  /** The findings by code, worst severity first: their states, material count and money at stake. */
  byCode: CodeOfNight[];
  /** Findings whose money at stake reaches the materiality set for their currency. */
  material: number;
  /** Cents at stake per currency over every code (errors and warnings not accepted; shared money once). */
  atStakeCents: Record<string, number>;
  books: BooksOfNight;
  /** The night's roll-forward per currency, as the night recorded it. */
  rollForward: RollForwardRow[];
  /** The month so far per currency and program, tied out: null when the night has no data of the month. */
  monthToDate: PeriodClose | null;
  /** Per currency where either differs, the night's roll-forward difference against the month's. */
  againstMonth: NightAgainstMonth[];
}

/** What the night covered. */
export interface AboutNight {
  /** The complete run before it, whose closing is the night's opening. */
  previousRun: { runId: number; asOfMs: number | null } | null;
  /** The instant the night's data are as of (null for a run recorded without one). */
  dataAsOfMs: number | null;
  checkedAtMs: number;
  sync: { syncRunId: number; mode: string; status: string; giftcardBaseUrl: string; dpBaseUrl: string };
  /** Cents per currency at or above which a finding is material (none set: empty). */
  materialityCents: Record<string, number>;
  /** Records in the mirror per kind, and those the service no longer lists (null where not marked). */
  records: { label: string; records: number; unlisted: number | null }[];
}

/** The merchant's books: rows held and rejected, and per kind and currency how they matched. */
export interface BooksOfNight {
  held: number;
  rejected: number;
  matching: BooksMatchOfNight[];
}

export interface BooksMatchOfNight {
  kind: string;
  currency: string | null;
  rows: number;
  matched: number;
  byRule: { rule: string; matched: number }[];
  /** Matched rows per hundred books rows, to one decimal; null without rows. */
  ratePercent: number | null;
  booksAlone: number;
  serviceAlone: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const decimals = (cents: Map<string, number>): Record<string, string> =>
  Object.fromEntries(Object.entries(centsRecord(cents)).map(([c, v]) => [c, formatCents(v)]));
const liabilityOf = (summary: CheckRunSummary): Record<string, string> =>
  Object.fromEntries(summary.rollForward.map((r) => [r.currency, r.cardsRemaining]));

/**
 * The view of completed run `run` as of its cut-off: ages, due times and the nights before it
 * are the night's, so the same run gives the same view whenever it is written.
 */
export async function nightViewOf(
  mirror: Mirror,
  store: FindingsStore,
  run: CheckRunRow,
  scope: Pick<ReportScope, 'merchantName' | 'materiality'> = {},
): Promise<NightView> {
  const summary = summaryOf(run);
  const asOfMs = run.asOfMs ?? run.startedAtMs;
  const materiality = scope.materiality ?? new Map<string, number>();
  // Oldest first, as the trends draw them.
  const nights = (await store.history.completedThrough(run.checkRunId, TREND_NIGHTS)).reverse();
  const counted = await findingsOfNight(store, run.checkRunId, asOfMs, slaOfRun(summary), materiality);
  const rollForward = await store.rollForwardOf(run.checkRunId);
  const about = await aboutOf(mirror, store, run, materiality);
  const books = await booksOf(new BooksStore(mirror));
  const largest = await store.history.largestOf(run.checkRunId, LARGEST_FINDINGS);
  const { buckets, oldest } = counted.breaks;
  const previousRun = nights.length > 1 ? nights[nights.length - 2] : undefined;
  const monthToDate = monthToDateOf(run, summary);
  const againstMonth = monthToDate
    ? nightAgainstMonth(
        rollForward.map((r) => ({ currency: r.currency, differenceCents: cents(r.differenceCents) })),
        monthToDate.rollForwards,
      )
    : [];
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
    overdueFindings: counted.overdue,
    currencies: currenciesOf(summary, againstMonth),
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
    largest: largest.map(inWords),
    since: previousRun ? sinceBefore(summaryOf(previousRun), previousRun, summary) : null,
    recorded: summary,
    about,
    byCode: counted.byCode,
    material: counted.material,
    atStakeCents: counted.atStakeCents,
    books,
    rollForward,
    monthToDate,
    againstMonth,
  };
}

/** What the night covered: the run before it, its sync and services, the records it read, the materiality. */
async function aboutOf(
  mirror: Mirror,
  store: FindingsStore,
  run: CheckRunRow,
  materiality: ReadonlyMap<string, number>,
): Promise<AboutNight> {
  const reads = new ReportStore(mirror);
  const sync = run.syncRunId === null ? undefined : await reads.sync(run.syncRunId);
  if (sync === undefined)
    throw new MirrorError(`check run ${run.checkRunId} names sync ${run.syncRunId}, which the mirror does not hold`);
  const previous = await store.previousCompleteRun(run.checkRunId);
  const records: AboutNight['records'] = [];
  for (const [label, table, listed] of MIRRORED)
    records.push({
      label,
      records: await reads.count(table, false, run.syncRunId ?? undefined),
      unlisted: listed ? await reads.count(table, true) : null,
    });
  return {
    previousRun: previous && { runId: previous.checkRunId, asOfMs: previous.asOfMs },
    dataAsOfMs: run.asOfMs,
    checkedAtMs: run.finishedAtMs ?? run.startedAtMs,
    sync: {
      syncRunId: sync.sync_run_id,
      mode: sync.mode,
      status: sync.status,
      giftcardBaseUrl: sync.giftcard_base_url,
      dpBaseUrl: sync.dp_base_url,
    },
    materialityCents: centsRecord(materiality),
    records,
  };
}

/** The matching rules, in the order they apply. */
const RULES = ['exact', 'tolerance', 'one-to-many', 'code-hash'] as const;

/** The merchant's books as matched: per kind and currency, the rows matched (by rule) and left over. */
async function booksOf(books: BooksStore): Promise<BooksOfNight> {
  const rates = await books.matchRates();
  const { held, rejected } = await books.counts();
  const keys = [...new Set(rates.map((r) => `${r.kind}\u0000${r.currency ?? ''}`))];
  const matching = keys.map((key): BooksMatchOfNight => {
    const [kind, currency] = key.split('\u0000') as [string, string];
    const of = rates.filter((r) => r.kind === kind && (r.currency ?? '') === currency);
    const rows = of.filter((r) => r.side === 'books');
    const n = (some: typeof of): number => some.reduce((sum, r) => sum + r.records, 0);
    const matched = n(rows.filter((r) => r.status === 'matched'));
    const total = n(rows);
    return {
      kind,
      currency: currency || null,
      rows: total,
      matched,
      byRule: RULES.filter((rule) => rows.some((r) => r.status === 'matched' && r.rule === rule)).map((rule) => ({
        rule,
        matched: n(rows.filter((r) => r.status === 'matched' && r.rule === rule)),
      })),
      // Per thousand, rounded, as a percentage to one decimal.
      ratePercent: total === 0 ? null : Math.round((matched * 1_000) / total) / 10,
      booksAlone: total - matched,
      serviceAlone: n(of.filter((r) => r.side !== 'books' && r.status !== 'matched')),
    };
  });
  return { held, rejected, matching };
}

/** Tables whose records the night counts; `true` where the mirror marks records no longer listed. */
const MIRRORED: [string, CountedTable, boolean?][] = [
  ['Gift cards', 'gift_cards'],
  ['Gift card ledger entries', 'gift_card_transactions', true],
  ['Coupons', 'coupons', true],
  ['DP wallet snapshots', 'dp_wallet_snapshots'],
  ['DP products', 'dp_products', true],
  ['DP orders', 'dp_orders', true],
  ['DP order lines', 'dp_order_lines'],
  ['DP vouchers (codes hashed)', 'dp_vouchers'],
  ['Quarantined records', 'quarantine'],
];

/**
 * The period close of the run's month so far (UTC): from the first of the month its data are as
 * of, up to that instant, with the run's own in-flight cards (the roll-forward's), as the night's
 * walk computed it (the ledger stage's RunTallies) and recorded it. Null when the run has no data
 * of the month, or was recorded before nights kept it (the sheet says so; `close` computes a
 * period from the mirror).
 */
function monthToDateOf(run: CheckRunRow, summary: CheckRunSummary): PeriodClose | null {
  const asOf = run.asOfMs;
  const computed = summary.monthToDate;
  if (asOf === null || !computed || computed.fromMs >= computed.toMs) return null;
  const day = new Date(asOf).toISOString().slice(0, 10);
  return {
    period: periodOf({ from: `${day.slice(0, 8)}01`, to: day }),
    asOfMs: asOf,
    endsNow: true,
    closingCutOffMs: computed.toMs,
    merchantId: run.merchantId,
    rollForwards: computed.rollForwards,
    unattributedEntries: computed.unattributedEntries,
    dataFromMs: computed.dataFromMs,
    closes: computed.closes,
  };
}

/** Every currency the night knows (its roll-forward's and its stakes'), with "none" at stake where clean. */
function currenciesOf(summary: CheckRunSummary, againstMonth: readonly NightAgainstMonth[]): CurrencyOfNight[] {
  const names = [...new Set([...summary.rollForward.map((r) => r.currency), ...Object.keys(summary.moneyAtStake)])];
  return names.sort().map((currency) => {
    const roll = summary.rollForward.find((r) => r.currency === currency);
    const month = roll && !roll.closes ? againstMonth.find((r) => r.currency === currency) : undefined;
    return {
      currency,
      liability: roll?.cardsRemaining ?? null,
      atStake: summary.moneyAtStake[currency] ?? 'none',
      closes: roll?.closes ?? true,
      difference: roll?.difference ?? null,
      month: month
        ? {
            cardsLessFlows: formatCents(month.monthCardsCents),
            serviceLessCards: formatCents(month.monthServiceCents),
            betweenOpenings: formatCents(month.openingsCents),
          }
        : null,
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
