/**
 * A sheet's rows as SpreadsheetML, written straight into the sheet's part of the workbook.
 * exceljs builds a row model, a cell model per cell and an XML stream per row, then renders
 * them: for a million card rows that was most of a report's time and garbage. This writes the
 * XML exceljs writes for the same cells (its `<c>` elements, attribute for attribute; its `<row>`
 * without the optional hints), from the cells themselves. exceljs keeps the rest of the workbook:
 * the sheet's frame, its header row, the styles table, the zip.
 */
import ExcelJS from 'exceljs';
import { shortestDecimal } from '../money.js';
import { visibleText } from './neutralise.js';

/** A cell: text (as sent, control characters escaped), a number, a date (ms, UTC), money, a link to a sheet, or a heading. */
export type Cell =
  | string
  | number
  | null
  | { date: number }
  | { cents: number; currency: string | null }
  | { sheet: string; text: string }
  /** A section's heading; `pageBreak`: the section starts a printed page (a table kept with its result). */
  | { heading: string; pageBreak?: boolean }
  /**
   * A figure computed by a formula the tool built from cell references alone (never from API
   * text), with its value cached so a reader without recalculation sees the same figure: money
   * (`cents`) or a count. `{row}` stands for the row the cell lands on.
   */
  | { formula: string; cents: number; currency: string | null }
  | { formula: string; count: number }
  /** A share (a redemption curve's point): one figure over another by their cells, shown as a percentage; `share` is its cached value. */
  | { formula: string; share: number }
  /** A column's label over its figures in a free-form sheet: bold, right-aligned, underlined. */
  | { label: string }
  /** What a reader must see first (a verdict, whether a roll-forward closes): large, bold, filled green or red. */
  | { emphasis: string; good: boolean }
  /** A line of free text on a free-form sheet: never wrapped, it runs on into the empty cells to its right; `strong`: large and bold (the period covered). */
  | { note: string; strong?: boolean };

/** What a row needs of exceljs's streaming sheet: its part's stream, and the workbook's styles table. */
interface StreamingSheet {
  stream: { write(text: string): unknown };
  startedData: boolean;
  _writeColumns(): void;
  _writeOpenSheetData(): void;
  _workbook: { styles: { addStyleModel(style: Partial<ExcelJS.Style>, cellType: ExcelJS.ValueType): number } };
}

/** Text is handed to the sheet's stream in pieces of about this many characters. */
const FLUSH_AT = 1 << 16;

/**
 * Rows a sheet's source hands out together: one await for many rows, where a million rows
 * awaited one by one would cost each its own promises (the report's Card reconciliation).
 */
export class RowBatch {
  constructor(readonly rows: Cell[][]) {}
}

/** Rows of one sheet (part), written in order after its header. */
export class SheetRows {
  readonly #sheet: StreamingSheet;
  readonly #columns: string[] = [];
  #pending = '';

  constructor(sheet: ExcelJS.Worksheet) {
    this.#sheet = sheet as unknown as StreamingSheet;
  }

  /**
   * Writes row `rowNumber`: each cell with its style (a shared, frozen object), `height` in
   * points where the row is taller than a line. A row with no value and no height is left out,
   * as exceljs leaves it.
   */
  write(rowNumber: number, cells: readonly Cell[], styles: readonly Partial<ExcelJS.Style>[], height?: number): void {
    if (height === undefined && cells.every((cell) => cell === null || cell === undefined)) return;
    if (!this.#sheet.startedData) {
      // A sheet without a header row: open its data as exceljs does before its first row.
      this.#sheet._writeColumns();
      this.#sheet._writeOpenSheetData();
      this.#sheet.startedData = true;
    }
    const r = String(rowNumber);
    // Without exceljs's optional `spans` and `x14ac:dyDescent` (hints a reader does without): a
    // tenth of a million-row sheet's bytes, to build, compress and write.
    let xml = height === undefined ? `<row r="${r}">` : `<row r="${r}" ht="${height}" customHeight="1">`;
    for (let i = 0; i < cells.length; i += 1) {
      const cell = cells[i] ?? null;
      const style = styles[i] as Partial<ExcelJS.Style>;
      xml += cellXml(`${this.#column(i)}${r}`, styleIdOf(this.#sheet, style, cell), cell, rowNumber);
    }
    this.#pending += `${xml}</row>`;
    if (this.#pending.length >= FLUSH_AT) this.flush();
  }

  /** Hands what is pending to the sheet's stream: before waiting for it to drain, and before the sheet is committed. */
  flush(): void {
    if (this.#pending === '') return;
    this.#sheet.stream.write(this.#pending);
    this.#pending = '';
  }

  #column(index: number): string {
    let letter = this.#columns[index];
    if (letter === undefined) this.#columns[index] = letter = columnLetter(index + 1);
    return letter;
  }
}

/** A cell's `<c>` element, as exceljs renders the value it was given (see cellXml's cases). */
function cellXml(ref: string, styleId: number, cell: Cell, row: number): string {
  const open = styleId ? `<c r="${ref}" s="${styleId}"` : `<c r="${ref}"`;
  if (cell === null) return styleId ? `${open}/>` : '';
  if (typeof cell === 'string') return text(open, truncate(visibleText(cell)));
  if (typeof cell === 'number') return `${open}><v>${cell}</v></c>`;
  if ('formula' in cell) {
    const formula = referencesOnly(cell.formula).replaceAll('{row}', String(row));
    if ('count' in cell) return `${open}><f>${escaped(formula)}</f><v>${cell.count}</v></c>`;
    if ('share' in cell) return `${open}><f>${escaped(formula)}</f><v>${cell.share}</v></c>`;
    // Money adds and subtracts decimals a spreadsheet holds as binary floats: rounded to the cent,
    // a recalculation gives exactly the cached value (0, not 2.99760216648792E-15).
    return `${open}><f>ROUND(${escaped(formula)},2)</f><v>${shortestDecimal(cell.cents)}</v></c>`;
  }
  if ('cents' in cell) return `${open}><v>${shortestDecimal(cell.cents)}</v></c>`;
  if ('label' in cell) return text(open, cell.label);
  if ('emphasis' in cell) return text(open, cell.emphasis);
  if ('note' in cell) return text(open, truncate(visibleText(cell.note)));
  // A date as a spreadsheet's serial day, as exceljs converts it.
  if ('date' in cell) return `${open}><v>${25569 + cell.date / (24 * 3600 * 1000)}</v></c>`;
  // A link to one of our own sheets: a formula built from our constant sheet names, never API text.
  if ('sheet' in cell) {
    const formula = `HYPERLINK("#'${cell.sheet.replace(/'/g, "''")}'!A1","${cell.text.replace(/"/g, '""')}")`;
    return `${open} t="str"><f>${escaped(formula)}</f><v>${escaped(cell.text)}</v></c>`;
  }
  return text(open, cell.heading);
}

function text(open: string, value: string): string {
  return `${open} t="str"><v>${escaped(value)}</v></c>`;
}

/** The value type exceljs gives a cell (a formula's is its result's): its style's number format depends on it. */
function valueTypeOf(cell: Cell): ExcelJS.ValueType {
  if (cell === null) return ExcelJS.ValueType.Null;
  if (typeof cell === 'string') return ExcelJS.ValueType.String;
  if (typeof cell === 'number') return ExcelJS.ValueType.Number;
  if ('cents' in cell || 'count' in cell || 'share' in cell) return ExcelJS.ValueType.Number;
  if ('date' in cell) return ExcelJS.ValueType.Date;
  return ExcelJS.ValueType.String;
}

/**
 * A style's index in the workbook's table: exceljs adds a style the first time it meets its
 * object (its number format then depends on the cell's type, as for exceljs's own cells) and
 * answers by identity after that; so do we, without the call.
 */
const STYLE_IDS = new WeakMap<object, WeakMap<Partial<ExcelJS.Style>, number>>();
function styleIdOf(sheet: StreamingSheet, style: Partial<ExcelJS.Style>, cell: Cell): number {
  const table = sheet._workbook.styles;
  let ids = STYLE_IDS.get(table);
  if (!ids) STYLE_IDS.set(table, (ids = new WeakMap()));
  let id = ids.get(style);
  if (id === undefined) ids.set(style, (id = table.addStyleModel(style, valueTypeOf(cell))));
  return id;
}

/** XML's five escapes; the control characters XML 1.0 cannot hold are dropped (visibleText has shown them escaped already). */
function escaped(value: string): string {
  return XML_SPECIAL.test(value) ? value.replace(XML_SPECIAL_ALL, (c) => XML_ENTITY[c] ?? '') : value;
}

const XML_SPECIAL = /[<>&'"\x7F\x00-\x08\x0B-\x0C\x0E-\x1F]/;
const XML_SPECIAL_ALL = new RegExp(XML_SPECIAL.source, 'g');
const XML_ENTITY: Readonly<Record<string, string>> = {
  '"': '&quot;',
  '&': '&amp;',
  "'": '&apos;',
  '<': '&lt;',
  '>': '&gt;',
};

/** A cell holds at most 32,767 characters. */
export function truncate(text: string): string {
  return text.length > 32_000 ? `${text.slice(0, 32_000)}… (truncated; the full text is in the mirror)` : text;
}

/**
 * A formula the tool built: cell references and ranges (`A2`, `$B$3`, `B:B`, on our own sheets
 * as `'Findings'!B:B`), joined by +, − and / (a share), or inside COUNTIFS and SUM. Anything else (a
 * string, another function) is a bug in the tool, refused. Templates (`D{row}-E{row}`) are
 * checked once each.
 */
function referencesOnly(formula: string): string {
  if (CHECKED_FORMULAS.has(formula)) return formula;
  if (!FORMULA.test(formula.replaceAll('{row}', '1')))
    throw new Error(`refusing a formula that is not cell references joined by +, - and /, COUNTIFS or SUM: ${formula}`);
  if (CHECKED_FORMULAS.size < 10_000) CHECKED_FORMULAS.add(formula);
  return formula;
}

const REFERENCE = String.raw`(?:'[A-Za-z ()0-9]+'!)?\$?[A-Z]{1,3}\$?(?:\d{1,7})?(?::\$?[A-Z]{1,3}\$?(?:\d{1,7})?)?`;
const TERM = String.raw`(?:(?:COUNTIFS|SUM)\(${REFERENCE}(?:,${REFERENCE})*\)|${REFERENCE})`;
const FORMULA = new RegExp(String.raw`^${TERM}(?:[+/-]${TERM})*$`);
const CHECKED_FORMULAS = new Set<string>();

/** A column's letters: 1 → A, 27 → AA. */
export function columnLetter(n: number): string {
  let result = '';
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) result = String.fromCharCode(65 + ((i - 1) % 26)) + result;
  return result;
}
