/**
 * What a check run and a night tell a person: the terminal's summary (verdict first, then what an
 * operator acts on) and the one line of a night that is not clean.
 */
import { DRY_RUN_ID } from '../findings/reconcile.js';
import type { CheckRunSummary } from '../findings/summary.js';
import { groupThousands } from '../money.js';
import { oneLine } from '../log.js';
import { incompleteReason, type RunSummary } from './night.js';

/** Whether text for `stream` may carry colour: never with NO_COLOR, always with FORCE_COLOR (not 0), else on a terminal. */
export function colourFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0' && env['FORCE_COLOR'] !== 'false') return true;
  return stream.isTTY === true;
}

const VERDICT_COLOUR: Record<CheckRunSummary['verdict'], string> = {
  RECONCILED: '\x1b[1;32m',
  BREAKS: '\x1b[1;31m',
  INCOMPLETE: '\x1b[1;33m',
};

/** The terminal's view of a check run: the verdict first, then what an operator acts on; money grouped by thousands. */
export function formatCheckSummary(summary: CheckRunSummary, colour = false): string {
  const lines: string[] = [];
  const verdict = colour ? `${VERDICT_COLOUR[summary.verdict]}${summary.verdict}\x1b[0m` : summary.verdict;
  const money = (value: string | undefined): string => groupThousands(String(value ?? '0.00'));
  lines.push(
    `${verdict}  ${summary.checkRunId === DRY_RUN_ID ? 'dry run (recorded nowhere)' : `check run ${summary.checkRunId}`} over sync ${summary.syncRunId} (${summary.syncStatus}), data as of ${summary.asOf}`,
  );
  if (summary.failedChecks.length > 0) {
    for (const failed of summary.failedChecks) lines.push(`  could not run ${failed.code}: ${failed.error}`);
  }
  if (summary.syncStatus !== 'completed')
    lines.push('  the sync did not complete: zero findings over missing data prove nothing; sync again');
  const { error, warning, info } = summary.bySeverity;
  lines.push(
    `findings: ${summary.findings} (${error} error, ${warning} warning, ${info} info) — ${summary.new} new, ${summary.open} still open, ${summary.accepted} accepted; ${summary.resolved} resolved since the last run`,
  );
  if (summary.inFlight > 0)
    lines.push(
      `in flight: ${summary.inFlight} cards moved while they were read${summary.held > 0 ? `; ${summary.held} earlier breaks on them wait for the next run` : ''}`,
    );
  if (summary.acceptancesEnded > 0)
    lines.push(`acceptances ended: ${summary.acceptancesEnded} findings count again (expired, or the break changed)`);
  const codes = Object.entries(summary.byCode).sort(([a], [b]) => a.localeCompare(b));
  for (const [code, n] of codes) lines.push(`  ${code.padEnd(32)} ${String(n).padStart(6)}`);
  const stake = Object.entries(summary.moneyAtStake);
  if (stake.length > 0)
    lines.push(`money at stake: ${stake.map(([currency, amount]) => `${currency} ${money(amount)}`).join(', ')}`);
  for (const r of summary.rollForward) {
    const rebase = r.rebase !== undefined && r.rebase !== '0.00' ? ` + re-based ${money(r.rebase)}` : '';
    const inFlight =
      r.inFlightCards > 0
        ? `; in flight ${money(r.inFlight)} on ${r.inFlightCards} ${r.inFlightCards === 1 ? 'card' : 'cards'}, checked again next run`
        : '';
    lines.push(
      `liability ${r.currency}: opening ${money(r.opening)}${rebase} + issued ${money(r.issued)} − debited ${money(r.debited)} + refunded ${money(r.refunded)} − voided ${money(r.voided)} − expired ${money(r.expired)} = ${money(r.closing)}; ` +
        `cards hold ${money(r.cardsRemaining)}${r.closes ? ' (closes)' : ` (does not close by ${money(r.difference)})`}${inFlight}`,
    );
  }
  lines.push(
    `${summary.cards.toLocaleString('en-US')} cards, ${summary.entries.toLocaleString('en-US')} ledger entries checked in ${(summary.durationMs / 1000).toFixed(1)} s; exit ${summary.exitCode} (--fail-on ${summary.failOn})`,
  );
  return `${lines.join('\n')}\n`;
}

/** The roll-forwards that fail a night, for its one line: `; the USD roll-forward does not close by -12.00`. */
export function rollForwardCause(summary: Pick<CheckRunSummary, 'rollForwardBreaks'>): string {
  const breaks = summary.rollForwardBreaks ?? [];
  if (breaks.length === 0) return '';
  return `; the liability roll-forward does not close: ${breaks.map((r) => `${r.currency} by ${r.difference}`).join(', ')}`;
}

/** The one line of a night that is not clean (its verdict, counts, what fails it, and where its workbook is). */
export function nightLine(summary: CheckRunSummary, record: Pick<RunSummary, 'report'>): string {
  const incomplete = summary.verdict === 'INCOMPLETE' ? `; ${incompleteReason(summary)}` : '';
  return `ledger-recon: ${oneLine(`${summary.verdict}: ${summary.findings} findings (${summary.bySeverity.error} error, ${summary.bySeverity.warning} warning; ${summary.new} new)${rollForwardCause(summary)}${incomplete}, see ${record.report.workbook}`)}\n`;
}

/** The verdict, the findings by code and the outputs' paths, as a terminal (or the demo) shows them. */
export function nightSummaryText(
  summary: CheckRunSummary,
  record: Pick<RunSummary, 'report'>,
  colour: boolean,
): string {
  return `${formatCheckSummary(summary, colour)}workbook: ${record.report.workbook}\nfindings: ${record.report.csv}, ${record.report.json}\npage: ${record.report.page}\n`;
}
