import { defaultLocations } from '../locations.js';
import { type CheckCode, CHECK_CODES } from '../checks/index.js';
import { SEVERITIES, type Severity } from '../checks/check.js';
import { openForReading } from '../db/mirror.js';
import { ConfigError, MirrorError } from '../errors.js';
import { type ExportedFinding, exportFinding } from '../findings/finding.js';
import { findingsStore, summaryOf } from '../findings/store.js';
import { slaOfRun } from '../findings/sla.js';
import { oneLine } from '../log.js';
import { tableLines } from '../fit-width.js';

export interface FindingsListSettings {
  db?: string | undefined;
  code?: string | undefined;
  severity?: string | undefined;
  /** Only findings at least this many days old. */
  minAge?: number | undefined;
  /** Only findings past their due time by the run's exception SLA rules. */
  overdue?: boolean | undefined;
}

/** The findings listed, and the run they are of. */
export interface FindingsListed {
  listed: ExportedFinding[];
  checkRunId: number;
}

/**
 * The job of `ledger-recon findings list`: the newest complete run's findings (new, open and
 * accepted), each as the findings file states it (its fingerprint, what `accept` takes), overdue
 * first, then the worst, the oldest; filtered by code, severity, age and overdue. Read-only: it
 * records no run.
 * @throws ConfigError for an unknown code or severity; MirrorError when no run has completed.
 */
export async function listFindings(options: FindingsListSettings): Promise<FindingsListed> {
  const code = options.code?.toUpperCase();
  if (code !== undefined && !(CHECK_CODES as readonly string[]).includes(code)) {
    throw new ConfigError(
      '--code',
      `--code ${oneLine(options.code ?? '').slice(0, 40)} is no check's code: \`ledger-recon check --help\` and docs/catalogue.md list them`,
    );
  }
  if (options.severity !== undefined && !(SEVERITIES as readonly string[]).includes(options.severity)) {
    throw new ConfigError('--severity', `--severity must be one of ${SEVERITIES.join(', ')}`);
  }
  const mirror = await openForReading(options.db ?? defaultLocations().db);
  try {
    const store = findingsStore(mirror);
    const run = await store.history.completedRun();
    if (!run) throw new MirrorError('the mirror holds no completed check run: run `ledger-recon check` or `run` first');
    const rank = (severity: Severity): number => SEVERITIES.indexOf(severity);
    const sla = slaOfRun(summaryOf(run));
    const listed: ExportedFinding[] = [];
    for await (const finding of store.whole.findingsOf(run.checkRunId)) {
      if (code !== undefined && finding.code !== (code as CheckCode)) continue;
      if (options.severity !== undefined && finding.severity !== options.severity) continue;
      if (options.minAge !== undefined && finding.ageDays < options.minAge) continue;
      const exported = exportFinding(finding, sla);
      if (options.overdue && !exported.overdue) continue;
      listed.push(exported);
    }
    // Overdue first, then the worst, the oldest.
    listed.sort(
      (a, b) =>
        Number(b.overdue) - Number(a.overdue) ||
        rank(a.severity) - rank(b.severity) ||
        b.ageDays - a.ageDays ||
        a.code.localeCompare(b.code) ||
        a.fingerprint.localeCompare(b.fingerprint),
    );
    return { listed, checkRunId: run.checkRunId };
  } finally {
    await mirror.close();
  }
}

/** The findings as a table's lines, fitted to `width` (a terminal's; full rows when none), and a closing line. */
export function findingsTable({ listed, checkRunId }: FindingsListed, width: number | undefined): string[] {
  const header = ['fingerprint', 'code', 'severity', 'state', 'age', 'due', 'amount', 'record', 'message'];
  const table = listed.map((f) => [
    f.fingerprint,
    f.code,
    f.severity,
    f.state,
    String(f.ageDays),
    f.dueAt === null ? '' : `${f.overdue ? 'OVERDUE ' : ''}${f.dueAt.slice(0, 16).replace('T', ' ')}`,
    f.difference === null ? '' : `${f.difference} ${f.unit ?? ''}`.trim(),
    `${f.entityType} ${f.entityId}`,
    oneLine(f.message),
  ]);
  // The columns that matter least go first until a row fits.
  return [
    ...tableLines(header, table, width, ['message', 'record', 'state', 'severity', 'due']),
    `(${listed.length} finding${listed.length === 1 ? '' : 's'} of run ${checkRunId}; accept one with: ledger-recon accept FINGERPRINT --note "…")`,
  ];
}
