/** The Findings sheet: every finding of the run, what a reader reads first leftmost; each handed on, with its standing, for the CSV and JSON. */
import { type Finding, type Standing, unitOf } from '../../findings/finding.js';
import type { FindingWithStanding } from '../night-findings.js';
import type { Cell } from '../xlsx-writer.js';
import { money, date, measure } from './rows.js';

/**
 * The Findings sheet's columns, what a reader reads first leftmost (a printed page holds some
 * 140 characters): what, how much, whether it is material; then where it points, then its
 * lifecycle. The Summary counts over columns A (severity), B (code), C (state) and `material`.
 */
export const FINDINGS_HEADER = [
  'severity',
  'code',
  'state',
  'message',
  'currency',
  'difference',
  'at stake',
  'material',
  'age (days)',
  'expected',
  'actual',
  'unit',
  'entity type',
  'entity',
  'gift card',
  'reference',
  'first seen (UTC)',
  'records',
  'fingerprint',
  'accepted: note',
  'accepted by',
  'accepted at (UTC)',
  'accepted until (UTC)',
  'acceptance ended',
  'due (UTC)',
  'overdue',
];

/** Widths of the printed columns of the Findings sheet, severity to age (0.75 of full size one page wide). */
export const FINDINGS_PRINTED_WIDTHS = Object.fromEntries(
  (
    [
      ['severity', 10],
      ['code', 33],
      ['state', 8],
      ['message', 51],
      ['currency', 10],
      ['difference', 13],
      ['at stake', 12],
      ['material', 10],
      ['age (days)', 7],
    ] as const
  ).map(([name, width]) => [FINDINGS_HEADER.indexOf(name), width]),
);

/** The Findings sheet's rows, each finding handed on with its standing (`onFinding`: the CSV and JSON) as it is written. */
export async function* findingRows(
  findings: AsyncIterable<FindingWithStanding>,
  onFinding?: (finding: Finding, standing: Standing) => Promise<void>,
): AsyncGenerator<Cell[]> {
  for await (const { finding: f, standing } of findings) {
    await onFinding?.(f, standing);
    const records = f.records.map((r) => `${r.type} ${r.id}`).join('; ');
    const a = f.acceptance;
    yield [
      f.severity,
      f.code,
      f.state,
      f.message,
      f.currency,
      measure(f, f.difference),
      f.stakeCents > 0 ? money(f.stakeCents, f.currency) : null,
      standing.material ? 'material' : '',
      f.ageDays,
      measure(f, f.expected),
      measure(f, f.actual),
      unitOf(f),
      f.entityType,
      f.entityId,
      f.giftCardId,
      f.referenceId,
      date(f.firstSeenAtMs),
      records,
      f.fingerprint,
      a?.note ?? null,
      a?.by ?? null,
      date(a?.acceptedAtMs ?? null),
      date(a?.untilMs ?? null),
      f.acceptanceEnded,
      date(standing.dueAtMs),
      standing.overdue ? 'OVERDUE' : '',
    ];
  }
}
