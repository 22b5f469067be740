/**
 * What a period's close tells: a line per roll-forward and per currency's liability, whether it
 * ties out and where its files are (stdout); what a person must not miss (stderr); its JSON record.
 */
import { resolve } from 'node:path';
import { formatCents, groupThousands } from '../money.js';
import type { ClosedPeriodFigures, PeriodClose } from '../report/close.js';
import type { ClosedPeriod } from './close.js';

export interface CloseTold {
  /** For stdout: one short line per roll-forward, the liability per currency, the verdict and the files. */
  lines: string[];
  /** For stderr: an empty period, or a tie-out that fails and where to look. */
  warnings: string[];
  record: Record<string, unknown>;
}

/** What the close of `label` tells its reader. */
export function closeTold(label: string, closed: ClosedPeriod): CloseTold {
  const { result, paths, outputs, evidence, checkpoint } = closed;
  const lines = [
    // The flows and the cards are in the workbook.
    ...result.rollForwards.map(rollForwardLine),
    // The liability as the books should hold it, per currency: the workpaper's page 1.
    ...result.liability.closing.split.map(
      (s) =>
        `${s.currency} contract liability ${shown(s.contractLiabilityCents)} (balances ${shown(s.balancesCents)} − breakage ${shown(s.breakageRecognisedCents)} − escheat ${shown(s.escheatPayableCents)})`,
    ),
    `period ${label}: ${result.closes ? 'ties out' : 'DOES NOT TIE OUT'}`,
    ...[...outputs, evidence].map((p) => resolve(p)),
    ...(checkpoint ? [checkpoint] : []),
  ];
  const warnings: string[] = [];
  // Nothing to tie out is not a tie-out: say what the data covers, so that nobody signs an empty period.
  if (result.rollForwards.length === 0) {
    const covers =
      result.dataFromMs === null
        ? 'the mirror holds no gift card'
        : `the mirror's data runs from ${new Date(result.dataFromMs).toISOString().slice(0, 10)} to ${new Date(result.asOfMs).toISOString().slice(0, 10)}`;
    warnings.push(`ledger-recon: the period ${label} holds no data (no card owed anything or moved in it): ${covers}`);
  }
  if (!result.closes) {
    const failing = result.rollForwards
      .filter((r) => !r.closes)
      .map((r) => `${r.currency} ${r.programId ?? '(no program)'}`);
    const unattributed = result.unattributedEntries;
    warnings.push(
      `ledger-recon: the period ${label} does not tie out${failing.length > 0 ? ` on ${failing.join(', ')}` : ''}${unattributed > 0 ? `; ${unattributed} ${unattributed === 1 ? 'entry' : 'entries'} of cards not in the mirror` : ''}: see ${resolve(paths.workbook)}`,
    );
  }
  return { lines, warnings, record: closeRecord(label, result, [...outputs, evidence]) };
}

/** The money of a terminal's line: grouped, a dash for none. */
const shown = (cents: number | null): string => (cents === null ? '—' : groupThousands(formatCents(cents)));

/** A roll-forward in one line: its closing, at cut-off, the service's, whether it ties out and by how much. */
function rollForwardLine(r: PeriodClose['rollForwards'][number]): string {
  const service = r.serviceRemainingCents !== null ? `, service ${shown(r.serviceRemainingCents)}` : '';
  const inFlight =
    r.inFlightCards > 0
      ? ` (in flight ${shown(r.inFlightCents)} on ${r.inFlightCards} ${r.inFlightCards === 1 ? 'card' : 'cards'}, apart)`
      : '';
  // A tie-out that fails says by how much, and where: cards against flows, the service against the cards.
  const differences = [
    ...(r.differenceCents !== 0 ? [`at cut-off − closing ${shown(r.differenceCents)}`] : []),
    ...(r.serviceDifferenceCents !== null && r.serviceDifferenceCents !== 0
      ? [`service − at cut-off ${shown(r.serviceDifferenceCents)}`]
      : []),
    ...(r.unknownCards > 0 ? [`${r.unknownCards} cards off the cent`] : []),
  ];
  const verdict = r.closes ? 'ties out' : `DOES NOT TIE OUT (${differences.join('; ')})`;
  return `${r.currency} ${r.programId ?? '(no program)'}: closing ${shown(r.closingFromFlowsCents)}, at cut-off ${shown(r.closingFromCardsCents)}${service}: ${verdict}${inFlight}`;
}

/** The close's JSON record: the period, whether it ties out, each roll-forward in decimals, and the files. */
function closeRecord(label: string, result: ClosedPeriodFigures, files: string[]): Record<string, unknown> {
  const decimal = (cents: number | null): string | null => (cents === null ? null : formatCents(cents));
  return {
    period: label,
    closes: result.closes,
    asOf: new Date(result.asOfMs).toISOString(),
    rollForwards: result.rollForwards.map((r) => ({
      currency: r.currency,
      program: r.programId,
      closing: decimal(r.closingFromFlowsCents),
      atCutOff: decimal(r.closingFromCardsCents),
      service: r.serviceRemainingCents === null ? null : decimal(r.serviceRemainingCents),
      difference: decimal(r.differenceCents),
      serviceDifference: r.serviceDifferenceCents === null ? null : decimal(r.serviceDifferenceCents),
      closes: r.closes,
    })),
    // The split page 1 states: what the books should hold per currency.
    liability: result.liability.closing.split.map((s) => ({
      currency: s.currency,
      balances: decimal(s.balancesCents),
      breakageRecognised: decimal(s.breakageRecognisedCents),
      escheatPayable: decimal(s.escheatPayableCents),
      contractLiability: decimal(s.contractLiabilityCents),
    })),
    files: files.map((p) => resolve(p)),
  };
}
