/**
 * What the sheets share: cells of money and dates, a detail sheet's keyed rows and the exception
 * rows it lists (and prints) first, and what the ledger's sheets read.
 */
import type { KeptCardSums } from '../../ledger/card-sums.js';
import type { Finding } from '../../findings/finding.js';
import type { Mirror } from '../../db/mirror.js';
import type { ReportStore } from '../store.js';
import { type Cell, RowBatch, type SheetSpec } from '../xlsx-writer.js';

export const money = (cents: number | null, currency: string | null): Cell =>
  cents === null ? null : { cents, currency };

export const date = (ms: number | null): Cell => (ms === null ? null : { date: ms });

export const measure = (f: Finding, value: number | null): Cell =>
  value === null ? null : f.unit === 'cents' ? money(value, f.currency) : value;

/**
 * A detail sheet's row: the key it is listed under once, its cells, whether a finding of the
 * run is about it, and the record `only` names it by (its key, unless given).
 */
export type Keyed = [key: string, cells: Cell[], exception: boolean, record?: string];

/** The cells of a row asked for its key alone. */
export const NO_CELLS: Cell[] = [];

/** A detail sheet's rows: all of them (`only` null), or only those about the records named in `only` (a JSON array of IDs). */
type KeyedRows = (only: string | null, keysOnly?: boolean) => AsyncIterable<Keyed[]>;

/** The most exception rows a detail sheet lists first and prints (held in memory until the sheet is written). */
export const PRINTED_EXCEPTIONS = 1_000;

/**
 * A detail sheet for screen and paper: the rows with a finding of this run first (what prints,
 * up to PRINTED_EXCEPTIONS), then every other row in its usual order (on screen, in SQL). The
 * full population stays in the workbook, so each figure is traceable; the printed pages carry
 * the exceptions an auditor reads.
 */
export async function exceptionsFirst(
  what: string,
  rowsOf: KeyedRows,
  flagged: string,
): Promise<Pick<SheetSpec, 'rows' | 'printRows' | 'printNote'>> {
  // The first pass asks for keys alone and keeps only the printed ones, never cells: cells made
  // and held in a pass before the full one taught V8 to allocate every later row's cells in the
  // old generation, collected late (a report of 1,000,000 cards peaked at 1.1 GB, not 450 MB).
  // A key's rows come together.
  const keys: string[] = [];
  const records = new Set<string>();
  let exceptions = 0;
  let last: string | null = null;
  for await (const batch of rowsOf(flagged, true))
    for (const [key, , exception, record] of batch) {
      if (!exception || key === last) continue;
      last = key;
      exceptions += 1;
      if (keys.length < PRINTED_EXCEPTIONS) {
        keys.push(key);
        records.add(record ?? key);
      }
    }
  const more = exceptions - keys.length;
  const note =
    keys.length === 0
      ? `Printed: no ${what} has a finding in this run; every ${what} is listed on screen`
      : `Printed: the ${keys.length.toLocaleString('en-US')} ${what}${keys.length === 1 ? '' : 's'} with a finding in this run${more > 0 ? ` (of ${exceptions.toLocaleString('en-US')})` : ''}; every other ${what} follows on screen`;
  return {
    printRows: Math.max(keys.length, 1),
    printNote: note,
    rows: (async function* () {
      const printed = new Set(keys);
      // The printed rows are read again alone: the records they are about, not every flagged one.
      // A batch of rows at a time (RowBatch): one await per batch, not one per row of a million.
      if (keys.length > 0)
        for await (const batch of rowsOf(JSON.stringify([...records])))
          yield new RowBatch(batch.filter(([key]) => printed.has(key)).map(([, cells]) => cells));
      for await (const batch of rowsOf(null))
        yield new RowBatch(batch.filter(([key]) => !printed.has(key)).map(([, cells]) => cells));
    })(),
  };
}

/** The codes of this run's findings about the records named, for a sheet's findings column. */
export type FindingsOf = (...ids: (string | null)[]) => string;

/**
 * What the sheets of the ledger read: the mirror, the run's sync, what the run's walk kept (null:
 * a later sync may have changed the cards, and the ledger is walked as the run's sync left it)
 * and the run's findings.
 */
export interface LedgerSheetReads {
  mirror: Mirror;
  reads: ReportStore;
  syncRunId: number;
  kept: KeptCardSums | null;
  findingsOf: FindingsOf;
  flagged: string;
}
