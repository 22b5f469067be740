/**
 * The night as metrics for the job's monitor, in Prometheus' text format: pushed to a
 * Pushgateway (`run --push-metrics URL`, the convention for batch jobs) and/or written for
 * node_exporter's textfile collector (`run --metrics-file FILE`). Every figure is the night's
 * own (its JSON record's), never computed again; money is integer cents.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FailedRunSummary, RunSummary, StageTimes } from './night.js';
import type { Clock } from './context.js';
import { oneLine } from '../log.js';
import { decimalTextCents } from '../money.js';
import { outputTarget, writeAtomically } from '../paths.js';
import { sendText } from '../send.js';

/** The job's name in the Pushgateway's grouping key and in every metric's prefix. */
const JOB = 'ledger_recon';

/** One metric family, every one a gauge: its help and its samples (labels and a value). */
interface Family {
  name: string;
  help: string;
  samples: Sample[];
}

type Sample = { labels?: Record<string, string>; value: number };

/** A gauge of this job: `ledger_recon_<name>`; a bare number is its one sample. */
function gauge(name: string, help: string, samples: Sample[] | number): Family {
  return { name: `${JOB}_${name}`, help, samples: typeof samples === 'number' ? [{ value: samples }] : samples };
}

/** How long each stage of the night took (ms), as `run` measured it. */

/** What any night's JSON record says (`run`'s FailedRunSummary): enough for a failed night's metrics. */
interface NightRecord {
  mirror: string;
  verdict: string;
  exitCode: number;
  durationMs: number;
}

/** What a finished night's JSON record says besides (`run`'s RunSummary). */
interface FinishedNight extends NightRecord {
  report: unknown;
  stagesMs: StageTimes;
  bySeverity: Record<string, number>;
  new: number;
  moneyAtStake: Record<string, string>;
  liability: Record<string, { cardsRemaining: string; difference: string }>;
  sync: { records: Record<string, number>; quarantined: number; retries: number };
}

/** Escapes a label value as the text format requires (backslash, double quote, newline). */
function labelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** The text format of `families` (families without samples are left out). */
function exposition(families: readonly Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (family.samples.length === 0) continue;
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} gauge`);
    for (const { labels, value } of family.samples) {
      const shown = Object.entries(labels ?? {})
        .map(([key, text]) => `${key}="${labelValue(text)}"`)
        .join(',');
      lines.push(`${family.name}${shown ? `{${shown}}` : ''} ${value}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Cents of the JSON record's decimal text; a figure that is not on a cent is left out, never rounded. */
function centsSamples(byCurrency: Record<string, string>): Sample[] {
  return Object.entries(byCurrency).flatMap(([currency, text]) => {
    const parsed = decimalTextCents(text.replace(/,/g, ''));
    return parsed.ok ? [{ labels: { currency }, value: parsed.cents }] : [];
  });
}

/**
 * The night's metrics. A night that finished (RECONCILED, BREAKS, INCOMPLETE) sets the last
 * success time; a failed or interrupted one sets the last failure time only, so a monitor
 * alerting on `time() - ledger_recon_last_success_timestamp_seconds` sees the nights that did
 * not finish.
 */
export function nightMetrics(night: NightRecord | FinishedNight, nowMs: number): string {
  const seconds = (ms: number) => Math.round(ms) / 1000;
  const finished = 'report' in night;
  const endedAt = Math.floor(nowMs / 1000);
  const families: Family[] = [
    gauge('last_run_timestamp_seconds', 'When the last night ended (Unix time).', endedAt),
    finished
      ? gauge(
          'last_success_timestamp_seconds',
          'When the last night that finished (RECONCILED, BREAKS or INCOMPLETE) ended (Unix time).',
          endedAt,
        )
      : gauge(
          'last_failure_timestamp_seconds',
          'When the last night that could not finish (FAILED, INTERRUPTED) ended (Unix time).',
          endedAt,
        ),
    gauge(
      'exit_code',
      "The last night's exit code: 0 reconciled, 1 breaks, 2 could not complete, 130/143 stopped.",
      night.exitCode,
    ),
    gauge('verdict', "The last night's verdict: 1 for the verdict it reached.", [
      { labels: { verdict: night.verdict }, value: 1 },
    ]),
    gauge('duration_seconds', 'How long the last night took, whole and per stage.', [
      { labels: { stage: 'total' }, value: seconds(night.durationMs) },
      ...Object.entries(finished ? night.stagesMs : {}).map(([stage, ms]) => ({
        labels: { stage },
        value: seconds(ms),
      })),
    ]),
  ];
  if (finished) families.push(...finishedFamilies(night));
  return exposition(families);
}

/** What only a night that finished knows: its findings, its money, what it read. */
function finishedFamilies(night: FinishedNight): Family[] {
  const perCurrency = (figure: 'cardsRemaining' | 'difference') =>
    centsSamples(Object.fromEntries(Object.entries(night.liability).map(([currency, row]) => [currency, row[figure]])));
  return [
    gauge(
      'findings',
      'Open findings of the last night (new, open and accepted) by severity.',
      Object.entries(night.bySeverity).map(([severity, count]) => ({ labels: { severity }, value: count })),
    ),
    gauge('findings_new', 'Findings the last night found for the first time.', night.new),
    gauge(
      'money_at_stake_cents',
      'Money at stake in open errors and warnings not accepted, per currency, in cents.',
      // Every currency the cards hold, 0 where nothing is at stake: a monitor sees 0, not an absent series.
      centsSamples({
        ...Object.fromEntries(Object.keys(night.liability).map((currency) => [currency, '0.00'])),
        ...night.moneyAtStake,
      }),
    ),
    gauge(
      'liability_cents',
      "What the cards hold at the night's cut-off (the roll-forward's cards remaining), per currency, in cents.",
      perCurrency('cardsRemaining'),
    ),
    gauge(
      'rollforward_difference_cents',
      "The roll-forward's difference (cards hold minus closing from flows), per currency, in cents.",
      perCurrency('difference'),
    ),
    gauge(
      'records_read',
      'Records the last sync read, per resource.',
      Object.entries(night.sync.records).map(([resource, value]) => ({ labels: { resource }, value })),
    ),
    gauge('records_quarantined', 'Records the last sync quarantined (failed validation).', night.sync.quarantined),
    gauge('retries', 'Requests the last sync retried.', night.sync.retries),
  ];
}

/**
 * Writes the metrics for node_exporter's textfile collector: whole or not at all (renamed into
 * place); `-` is stdout. The file holds one night, so a night that did not finish carries the
 * last success time over from the file it replaces (a Pushgateway keeps it by itself).
 */
export function writeMetricsFile(path: string, text: string): void {
  const target = outputTarget('--metrics-file', path);
  if (target.kind === 'stdout') {
    process.stdout.write(text);
    return;
  }
  const success = `${JOB}_last_success_timestamp_seconds`;
  const previous = existsSync(target.path) ? readFileSync(target.path, 'utf8') : '';
  const kept = text.includes(`\n${success} `)
    ? []
    : previous
        .split('\n')
        .filter(
          (line) =>
            line.startsWith(success) || line.endsWith(` ${success} gauge`) || line.startsWith(`# HELP ${success} `),
        );
  writeAtomically(target.path, kept.length > 0 ? `${text}${kept.join('\n')}\n` : text);
}

/**
 * Where the night's metrics are pushed: the URL as given when it names a grouping key
 * (`…/metrics/job/…`), else the Pushgateway's path with the job and the mirror as the key, so
 * each merchant's mirror keeps its own group. A query string (a token for a proxy) stays a
 * query string, after the path.
 */
export function pushUrl(base: string, mirror: string): string {
  const url = new URL(base);
  if (/\/metrics\/job\//.test(url.pathname)) return base;
  const encoded = Buffer.from(mirror, 'utf8').toString('base64url');
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/metrics/job/${JOB}/mirror@base64/${encoded}`;
  return url.toString();
}

/**
 * Pushes the metrics (POST: the group's metrics of these names are replaced, others kept, so a
 * failed night leaves the last success time where it was).
 * @throws Error naming the URL (without its user, password and query string) and the cause.
 */
export async function pushMetrics(url: string, text: string, timeoutMs = 10_000): Promise<void> {
  await sendText(url, 'POST', 'text/plain; version=0.0.4', text, timeoutMs);
}

/** Where a night's metrics go (`run --push-metrics URL`, `--metrics-file FILE`). */
export interface MetricsSettings {
  pushMetrics?: string | undefined;
  metricsFile?: string | undefined;
  /** The night prints its JSON record on standard output (`--json`): `--metrics-file -` was refused beside it. */
  json?: boolean | undefined;
}

/**
 * The night's metrics, pushed and/or written when asked. The monitor's trouble is never the
 * night's: a push or a write that fails is one line told to `warn`, and the night's result stands.
 */
export async function reportNightMetrics(
  settings: MetricsSettings,
  night: RunSummary | FailedRunSummary,
  clock: Clock,
  warn: (line: string) => void,
): Promise<void> {
  if (settings.pushMetrics === undefined && settings.metricsFile === undefined) return;
  const text = nightMetrics(night, clock.now());
  // `--metrics-file -` beside --json was refused: standard output holds the night's one record.
  if (settings.metricsFile !== undefined && !(settings.metricsFile === '-' && settings.json === true)) {
    try {
      writeMetricsFile(settings.metricsFile, text);
    } catch (error) {
      warn(
        `ledger-recon: metrics not written to --metrics-file ${settings.metricsFile}: ${oneLine((error as Error).message)}; the night's result stands\n`,
      );
    }
  }
  if (settings.pushMetrics !== undefined) {
    try {
      await pushMetrics(pushUrl(settings.pushMetrics, night.mirror), text);
    } catch (error) {
      warn(
        `ledger-recon: metrics not pushed to ${oneLine((error as Error).message)}: check the Pushgateway and --push-metrics; the night's result stands\n`,
      );
    }
  }
}
