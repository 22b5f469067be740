/**
 * Every merchant at once, for a finance lead's morning (`ledger-recon fleet`): per mirror the last
 * night's verdict and when it ran (late past a settable age), its open breaks by age with the money
 * in each and the oldest, the overdue ones, money at stake and the liability per currency; sorted
 * by risk. It reads mirrors only, never the services; a mirror it cannot read is a row saying why.
 */
import { mirrorHolder, mirrorsOnServer, openForReading, shownMirror } from '../db/mirror.js';
import { breaksByAge } from '../findings/age.js';
import { dueOf, isOverdue, slaOfRun } from '../findings/sla.js';
import { type FindingStake, findingsStore, summaryOf } from '../findings/store.js';
import { oneLine } from '../log.js';
import { formatCents } from '../money.js';
import type { Clock } from './context.js';
import { historyRow } from './history.js';

/** How fleet reads: the mirrors (files, or URLs of PostgreSQL schemas), and the age past which a night is late. */
export interface FleetSettings {
  mirrors: readonly string[];
  /** A merchant whose last night started longer ago than this is late (default 26: a nightly job and its slack). */
  lateAfterHours: number;
}

/** What needs a person, worst first; a merchant in one of the first five fails the fleet (exit 1). */
export const STANDINGS = ['unreadable', 'failed', 'never ran', 'late', 'overdue', 'breaks', 'reconciled'] as const;
export type Standing = (typeof STANDINGS)[number];

/** One merchant's row. Money is decimal text per currency, as every JSON of the product states it. */
export interface MerchantRow {
  mirror: string;
  merchantId: string | null;
  standing: Standing;
  /** Why a mirror could not be read, or why its last night failed. */
  problem: string | null;
  lastNight: { runId: number; verdict: string; startedAt: string; hoursAgo: number } | null;
  late: boolean;
  /** Open breaks past their due time by the run's exception SLA rules, as of now. */
  overdue: number;
  openBreaks: { bucket: string; breaks: number; atStake: Record<string, string> }[];
  oldestBreak: { code: string; fingerprint: string; firstSeenAt: string; ageHours: number } | null;
  moneyAtStake: Record<string, string>;
  /** What the cards hold per currency at the last completed night's cut-off. */
  liability: Record<string, string>;
}

/** The fleet: every merchant, worst first, and whether any needs a person. */
export interface Fleet {
  generatedAt: string;
  lateAfterHours: number;
  merchants: MerchantRow[];
  /** 1 when any merchant is unreadable, failed, never ran, late or has an overdue break. */
  exitCode: 0 | 1;
}

const HOUR = 3_600_000;
const decimals = (cents: Map<string, number>): Record<string, string> =>
  Object.fromEntries([...cents].map(([currency, amount]) => [currency, formatCents(amount)]));

/** Every mirror read at the clock's instant, sorted by risk. */
export async function fleetOf(clock: Clock, settings: FleetSettings): Promise<Fleet> {
  const nowMs = clock.now();
  const merchants: MerchantRow[] = [];
  for (const mirror of settings.mirrors) merchants.push(await merchantRow(mirror, nowMs, settings.lateAfterHours));
  merchants.sort(byRisk);
  const attention = merchants.some(needsAttention);
  return {
    generatedAt: new Date(nowMs).toISOString(),
    lateAfterHours: settings.lateAfterHours,
    merchants,
    exitCode: attention ? 1 : 0,
  };
}

/** Whether a merchant needs a person: unreadable, failed, never ran, late, or an overdue break. */
export function needsAttention(m: Pick<MerchantRow, 'standing'>): boolean {
  return STANDINGS.indexOf(m.standing) <= STANDINGS.indexOf('overdue');
}

/** Worst standing first; then the most overdue, the most open breaks, the oldest break, the mirror's name. */
function byRisk(a: MerchantRow, b: MerchantRow): number {
  const open = (m: MerchantRow) => m.openBreaks.reduce((n, bucket) => n + bucket.breaks, 0);
  return (
    STANDINGS.indexOf(a.standing) - STANDINGS.indexOf(b.standing) ||
    b.overdue - a.overdue ||
    open(b) - open(a) ||
    (b.oldestBreak?.ageHours ?? -1) - (a.oldestBreak?.ageHours ?? -1) ||
    a.mirror.localeCompare(b.mirror)
  );
}

/** A row of nothing: a mirror that cannot be read, or one with no night yet. */
function emptyRow(mirror: string, standing: Standing, problem: string | null): MerchantRow {
  return {
    mirror,
    merchantId: null,
    standing,
    problem,
    lastNight: null,
    late: standing === 'never ran',
    overdue: 0,
    openBreaks: [],
    oldestBreak: null,
    moneyAtStake: {},
    liability: {},
  };
}

/**
 * Why a mirror could not be read, in one line, as fleet names it: the mirrors are its arguments,
 * so the words the mirror's opening uses for `--db` name the argument instead.
 */
function unreadable(error: unknown, location: string): string {
  const message = oneLine((error as Error).message)
    .replace(/^--db /, '')
    .replace(/give --db the mirror's file/g, "name the mirror's file");
  // The row names the mirror already.
  return message.startsWith(`${location}: `) ? message.slice(location.length + 2) : message;
}

/** One mirror's row; a mirror that cannot be opened or read is a row that says why. */
async function merchantRow(location: string, nowMs: number, lateAfterHours: number): Promise<MerchantRow> {
  const mirror = shownMirror(location);
  let opened: Awaited<ReturnType<typeof openForReading>>;
  try {
    opened = await openForReading(location, 'run');
  } catch (error) {
    return emptyRow(mirror, 'unreadable', unreadable(error, mirror));
  }
  try {
    const store = findingsStore(opened);
    const [newest] = await store.history.recentRuns(1);
    if (!newest) return emptyRow(mirror, 'never ran', 'no night has run on this mirror');
    // A night still running holds the mirror: RUNNING, not INTERRUPTED.
    const last = historyRow(newest, (await mirrorHolder(location)) !== undefined);
    const hoursAgo = Math.floor((nowMs - newest.startedAtMs) / HOUR);
    const late = nowMs - newest.startedAtMs > lateAfterHours * HOUR;
    const completed = await store.history.completedRun();
    // What the ages and due times read of each finding (the night's view's slim projection), not the whole finding.
    const findings: FindingStake[] = [];
    if (completed) for await (const batch of store.whole.stakesOf(completed.checkRunId)) findings.push(...batch);
    const summary = completed ? summaryOf(completed) : null;
    const rules = summary ? slaOfRun(summary).rules : [];
    const overdue = findings.filter((f) => isOverdue(dueOf(f, rules), nowMs) && f.severity !== 'info').length;
    const { buckets, oldest } = breaksByAge(findings, nowMs);
    const failed = last.verdict === 'FAILED' || last.verdict === 'INTERRUPTED';
    // A night that is running now is not late.
    const running = last.verdict === 'RUNNING';
    const standing: Standing = failed
      ? 'failed'
      : late && !running
        ? 'late'
        : overdue > 0
          ? 'overdue'
          : summary?.verdict === 'RECONCILED'
            ? 'reconciled'
            : 'breaks';
    return {
      mirror,
      merchantId: summary?.merchantId ?? null,
      standing,
      problem: failed ? oneLine(last.error?.message ?? last.verdict) : null,
      lastNight: { runId: last.runId, verdict: last.verdict, startedAt: last.startedAt, hoursAgo },
      late: late && !running,
      overdue,
      openBreaks: buckets.map((b) => ({ bucket: b.bucket, breaks: b.breaks, atStake: decimals(b.stakeCents) })),
      oldestBreak: oldest && {
        code: oldest.code,
        fingerprint: oldest.fingerprint,
        firstSeenAt: new Date(oldest.firstSeenAtMs).toISOString(),
        ageHours: oldest.ageHours,
      },
      moneyAtStake: summary?.moneyAtStake ?? {},
      liability: Object.fromEntries((summary?.rollForward ?? []).map((r) => [r.currency, r.cardsRemaining])),
    };
  } catch (error) {
    return emptyRow(mirror, 'unreadable', unreadable(error, mirror));
  } finally {
    await opened.close();
  }
}

/** The mirrors named (files or schemas' URLs) and those every server named keeps, one per schema. */
export async function mirrorsOf(named: readonly string[], servers: readonly string[]): Promise<string[]> {
  const found = [...named];
  for (const server of servers) found.push(...(await mirrorsOnServer(server)));
  return found;
}

/** A merchant in one line: its standing, mirror, last night and what it needs. */
export function merchantLine(m: MerchantRow): string {
  if (m.standing === 'unreadable') return `${'UNREADABLE'.padEnd(10)} ${m.mirror} — ${m.problem}`;
  const night = m.lastNight
    ? `run ${m.lastNight.runId} ${m.lastNight.verdict}, ${m.lastNight.hoursAgo} h ago`
    : 'no night';
  const open = m.openBreaks.reduce((n, b) => n + b.breaks, 0);
  const stake = Object.entries(m.moneyAtStake).map(([currency, amount]) => `${currency} ${amount}`);
  return `${m.standing.toUpperCase().padEnd(10)} ${m.mirror}: ${night}; ${open} open ${open === 1 ? 'break' : 'breaks'}${m.overdue > 0 ? `, ${m.overdue} overdue` : ''}${stake.length > 0 ? `, at stake ${stake.join(', ')}` : ''}${m.problem ? ` — ${m.problem}` : ''}`;
}
