/**
 * A period's roll-forward as a sheet, per currency and program: its flows, its closing from them
 * and at cut-off as formulas of its own cells, the service's, what is in flight, whether it ties
 * out. The close's "Period roll-forward" and the night's "Month to date" are this one sheet.
 */
import type { PeriodClose } from './close.js';
import type { Cell, SheetSpec } from './xlsx-writer.js';

/** A roll-forward's flows, in the order it adds and takes them. */
export const FLOW_COLUMNS = ['opening', 'issued', 'debited', 'refunded', 'voided', 'expired'] as const;

/** The roll-forward's columns, as its sheet and its CSV head them. */
export const ROLL_HEADER = [
  'currency',
  'program',
  'cards',
  ...FLOW_COLUMNS,
  'closing from flows',
  'closing at cut-off (every card)',
  'difference',
  'remainingBalance (service, at cut-off)',
  'difference to the service',
  'in flight (apart, not a break)',
  'cards in flight',
  'cards with amounts off the cent',
  'ties out',
];

/** The roll-forward sheet: a row per currency and program. */
export function rollForwardSheet(name: string, close: PeriodClose): SheetSpec {
  // Wider than a page: printed across, each page starts with the currency and program.
  return { name, header: ROLL_HEADER, printKeyColumns: 2, rows: rollForwardRows(close) };
}

/** Row r of a roll-forward sheet (header on row 1): its closing from flows and its differences are formulas of its own cells. */
function rollForwardRows(close: PeriodClose): Cell[][] {
  return close.rollForwards.map((r, i): Cell[] => {
    const row = i + 2;
    const money = (cents: number | null): Cell => (cents === null ? null : { cents, currency: r.currency });
    return [
      r.currency,
      r.programId,
      r.cards,
      money(r.openingCents),
      money(r.issuedCents),
      money(r.debitedCents),
      money(r.refundedCents),
      money(r.voidedCents),
      money(r.expiredCents),
      {
        formula: `D${row}+E${row}-F${row}+G${row}-H${row}-I${row}`,
        cents: r.closingFromFlowsCents,
        currency: r.currency,
      },
      money(r.closingFromCardsCents),
      { formula: `K${row}-J${row}`, cents: r.differenceCents, currency: r.currency },
      money(r.serviceRemainingCents),
      r.serviceRemainingCents === null
        ? null
        : { formula: `M${row}-K${row}`, cents: r.serviceDifferenceCents ?? 0, currency: r.currency },
      money(r.inFlightCents),
      r.inFlightCards,
      r.unknownCards,
      r.closes ? 'yes' : 'NO',
    ];
  });
}
