/**
 * The one module that knows exceljs. Writes a workbook with the streaming writer so memory
 * stays bounded: sheets one after another, rows committed as they come, a yield to the event
 * loop every few thousand rows so the zip stream drains. Auditors' conventions are applied
 * here: frozen header, autofilter, fitted widths, money as numbers in the currency's format,
 * dates as real dates (UTC), severity colours, and API text as sent (a text cell of .xlsx is never a formula), control characters shown escaped.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { visibleText } from './neutralise.js';

/** A cell: text (as sent, control characters escaped), a number, a date (ms, UTC), money, a link to a sheet, or a heading. */
export type Cell =
  | string
  | number
  | null
  | { date: number }
  | { cents: number; currency: string | null }
  | { sheet: string; text: string }
  | { heading: string }
  /**
   * A figure computed by a formula the tool built from cell references alone (never from API
   * text), with its value cached so a reader without recalculation sees the same figure: money
   * (`cents`) or a count. `{row}` stands for the row the cell lands on.
   */
  | { formula: string; cents: number; currency: string | null }
  | { formula: string; count: number }
  /** A column's label over its figures in a free-form sheet: bold, right-aligned, underlined. */
  | { label: string }
  /** What a reader must see first (a verdict, whether a roll-forward closes): large, bold, filled green or red. */
  | { emphasis: string; good: boolean };

export interface SheetSpec {
  name: string;
  /** A table's header row: frozen, with an autofilter. Absent for free-form sheets (Summary). */
  header?: string[];
  /** Column widths in characters, for a free-form sheet laid out by hand (default: fitted to the content). */
  widths?: number[];
  /** Only the first this many columns print (the rest are for the screen and the CSV): its print area. */
  printColumns?: number;
  rows: Iterable<Cell[]> | AsyncIterable<Cell[]>;
  /** The column (0-based) holding a severity, coloured by it. */
  severityColumn?: number;
}

export interface WorkbookProperties {
  title: string;
  subject: string;
  creator: string;
  created: Date;
}

/** Excel's limit is 1,048,576 rows; a longer table continues on "<name> (2)", header repeated. */
export const MAX_ROWS_PER_SHEET = 1_048_576;
const FIT_SAMPLE = 500;
const YIELD_EVERY = 2_000;
const SEVERITY_FILL: Record<string, string> = { error: 'FFF4C7C3', warning: 'FFFCE8B2', info: 'FFD9E7FD' };
const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/** The number format of money in `currency`: the code, thousands separators, two decimals. */
export function moneyFormat(currency: string | null): string {
  const code = (currency ?? '').replace(/[^A-Z]/g, '');
  return code ? `"${code} "#,##0.00;-"${code} "#,##0.00` : '#,##0.00;-#,##0.00';
}

/** Writes `sheets` in order into `path` (xlsx). Rows beyond a sheet's limit continue on numbered sheets. */
export async function writeXlsx(path: string, properties: WorkbookProperties, sheets: SheetSpec[], maxRows = MAX_ROWS_PER_SHEET): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useStyles: true, useSharedStrings: false });
  workbook.creator = properties.creator;
  workbook.lastModifiedBy = properties.creator;
  workbook.created = properties.created;
  workbook.modified = properties.created;
  Object.assign(workbook, { title: properties.title, subject: properties.subject });
  for (const spec of sheets) await writeSheet(workbook, spec, maxRows, properties.title);
  await workbook.commit();
}

async function writeSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, spec: SheetSpec, maxRows: number, title: string): Promise<void> {
  const iterator = toAsync(spec.rows);
  // Widths must be set before the first row is committed: fit them to a sample of the rows.
  const sample: Cell[][] = [];
  let next = await iterator.next();
  while (!next.done && sample.length < FIT_SAMPLE) {
    sample.push(next.value);
    next = await iterator.next();
  }
  const widths = spec.widths ?? fitWidths(spec.header, sample);
  // Text longer than its column wraps within it: the widest columns, and any a layout names.
  const wrapped = widths.map((width, i) => width >= MAX_WIDTH || sample.some((row) => displayLength(row[i] ?? null) > width));
  let part = 1;
  let sheet = openSheet(workbook, spec, part, widths, title);
  let rowsInSheet = spec.header ? 1 : 0;
  let written = 0;
  const put = async (cells: Cell[]): Promise<void> => {
    if (rowsInSheet >= maxRows) {
      sheet.commit();
      part += 1;
      sheet = openSheet(workbook, spec, part, widths, title);
      rowsInSheet = spec.header ? 1 : 0;
    }
    writeRow(sheet, cells, spec.severityColumn, wrapped, rowsInSheet + 1, widths);
    rowsInSheet += 1;
    written += 1;
    if (written % YIELD_EVERY === 0) await drained(sheet);
  };
  for (const cells of sample) await put(cells);
  while (!next.done) {
    await put(next.value);
    next = await iterator.next();
  }
  sheet.commit();
}

/**
 * Row commits are synchronous but compression is not: without waiting, the sheet's XML piles
 * up in memory ahead of the zip. exceljs pipes each sheet's buffer into the zip's deflate
 * stream without heeding backpressure, so wait here until that stream has drained.
 */
async function drained(sheet: ExcelJS.Worksheet): Promise<void> {
  const buffer = (sheet as unknown as { _stream?: { pipes?: LegacyWritable[] } })._stream;
  for (const pipe of buffer?.pipes ?? []) {
    // readable-stream 2 (archiver's) predates writableNeedDrain: read its state directly.
    while (pipe._writableState?.needDrain) await once(pipe, 'drain');
  }
  await new Promise(setImmediate);
}

type LegacyWritable = Writable & { _writableState?: { needDrain: boolean } };

function openSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, spec: SheetSpec, part: number, widths: number[], title: string): ExcelJS.Worksheet {
  const name = part === 1 ? spec.name : `${spec.name} (${part})`;
  const lastColumn = columnLetter(Math.max(widths.length, 1));
  const sheet = workbook.addWorksheet(name, {
    views: [{ state: 'frozen', ySplit: 1, xSplit: 0 }],
    ...(spec.header ? { autoFilter: `A1:${lastColumn}1` } : {}),
    pageSetup: printSetup(spec, widths),
    // Every printed page says which report, which sheet and which page it is.
    headerFooter: { oddFooter: `&L${title.replace(/&/g, '&&')}&C&A&RPage &P of &N` },
  });
  sheet.columns = widths.map((width) => ({ width }));
  if (spec.header) {
    const row = sheet.addRow(spec.header);
    row.font = { bold: true };
    row.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE7E6E6' } };
    row.commit();
  }
  return sheet;
}

/**
 * For working papers printed or saved as PDF: landscape, a table's header row repeated on
 * every page. A sheet is fitted one page wide only when its type stays readable that way (no
 * smaller than about 70 % of the default): its columns add up to at most FIT_WIDTH characters.
 * A wider one prints at full size across pages instead.
 */
function printSetup(spec: SheetSpec, widths: readonly number[]): Partial<ExcelJS.PageSetup> {
  const printed = spec.printColumns !== undefined ? widths.slice(0, spec.printColumns) : widths;
  const fits = printed.reduce((total, width) => total + width, 0) <= FIT_WIDTH;
  return {
    orientation: 'landscape',
    paperSize: 9,
    ...(fits ? { fitToPage: true, fitToWidth: 1, fitToHeight: 0 } : { fitToPage: false, scale: 100 }),
    ...(spec.header ? { printTitlesRow: '1:1' } : {}),
    ...(spec.printColumns !== undefined ? { printArea: `A$1:${columnLetter(spec.printColumns)}$${MAX_ROWS_PER_SHEET}` } : {}),
  };
}

/**
 * Characters of column width a landscape A4 page holds at 70 % scale: 26.1 cm inside the
 * default margins takes some 141 characters of 0.185 cm at 100 %.
 */
export const FIT_WIDTH = 200;

function writeRow(sheet: ExcelJS.Worksheet, cells: Cell[], severityColumn: number | undefined, wrapped: readonly boolean[], rowNumber: number, widths: readonly number[]): void {
  const row = sheet.addRow(cells.map((cell) => valueOf(cell, rowNumber)));
  let lines = 1;
  for (let i = 0; i < cells.length; i += 1) {
    const cell = cells[i] ?? null;
    const style = styleOf(cell, i === severityColumn);
    row.getCell(i + 1).style = wrapped[i] ? wrappedStyle(style) : style;
    if (wrapped[i]) lines = Math.max(lines, linesOf(cell, widths[i] ?? MAX_WIDTH));
  }
  // Spreadsheets do not grow a row for wrapped text they did not lay out themselves: say how tall.
  if (lines > 1) row.height = Math.min(lines, MAX_LINES) * LINE_HEIGHT;
  row.commit();
  // exceljs keeps every formula cell it has written, for shared formulae (which this writer
  // never makes): 2,000,000 card rows' formulas held 600 MB. Forget them once written.
  const written = sheet as unknown as { _formulae?: Record<string, unknown> };
  if (written._formulae && cells.some((cell) => cell !== null && typeof cell === 'object' && 'formula' in cell)) written._formulae = {};
}

/** Points per line of 11-point text, and the most lines a row grows to. */
const LINE_HEIGHT = 15;
const MAX_LINES = 30;

/**
 * How many lines a cell's text takes when wrapped at word boundaries in a column `width`
 * characters wide (a little under one character per unit of width, as spreadsheets lay out
 * proportional type; a word longer than a line is broken).
 */
function linesOf(cell: Cell, width: number): number {
  if (typeof cell !== 'string' && !(cell !== null && typeof cell === 'object' && 'label' in cell)) return 1;
  const text = typeof cell === 'string' ? cell : cell.label;
  const perLine = Math.max(1, Math.floor(width * 0.9));
  let lines = 0;
  for (const paragraph of text.split('\n')) {
    let used = 0;
    lines += 1;
    for (const word of paragraph.split(' ')) {
      const needed = used === 0 ? word.length : used + 1 + word.length;
      if (needed <= perLine) used = needed;
      else if (word.length <= perLine) {
        lines += 1;
        used = word.length;
      } else {
        // A word longer than a line fills lines of its own.
        lines += Math.ceil((word.length - (perLine - used)) / perLine);
        used = word.length % perLine;
      }
    }
  }
  return lines;
}

/** The same style, wrapping its text within the column and aligned to the top (frozen, shared: see PLAIN). */
const WRAPPED = new WeakMap<Partial<ExcelJS.Style>, Partial<ExcelJS.Style>>();
function wrappedStyle(style: Partial<ExcelJS.Style>): Partial<ExcelJS.Style> {
  let wrapped = WRAPPED.get(style);
  if (!wrapped) {
    wrapped = Object.freeze({ ...style, alignment: { vertical: 'top', ...style.alignment, wrapText: true } } as Partial<ExcelJS.Style>);
    WRAPPED.set(style, wrapped);
  }
  return wrapped;
}

/**
 * exceljs renders a cell's style to XML to find its index unless it has seen that very style
 * object before (it keeps a WeakMap by identity). Every cell gets a fresh style object of its
 * own, so every cell would pay for a render: a shared, frozen object per distinct style lets
 * the WeakMap answer instead (about a third of a large report's time).
 */
/** Every cell sits at the top of its row, beside the first line of any wrapped text in it. */
const TOP = Object.freeze({ vertical: 'top' }) as Partial<ExcelJS.Alignment>;
const PLAIN: Partial<ExcelJS.Style> = Object.freeze({ alignment: TOP });
const DATE_STYLE: Partial<ExcelJS.Style> = Object.freeze({ numFmt: DATE_FORMAT, alignment: TOP });
const LINK_STYLE: Partial<ExcelJS.Style> = Object.freeze({ font: { color: { argb: 'FF0563C1' }, underline: true }, alignment: TOP });
const HEADING_STYLE: Partial<ExcelJS.Style> = Object.freeze({ font: { bold: true, size: 12 } });
const LABEL_STYLE: Partial<ExcelJS.Style> = Object.freeze({ font: { bold: true }, alignment: { horizontal: 'right', wrapText: true, vertical: 'bottom' }, border: { bottom: { style: 'thin' } } } as Partial<ExcelJS.Style>);
const emphasis = (argb: string): Partial<ExcelJS.Style> => Object.freeze({ font: { bold: true, size: 14 }, fill: { type: 'pattern', pattern: 'solid', fgColor: { argb } } } as Partial<ExcelJS.Style>);
const GOOD_STYLE = emphasis('FFC6EFCE');
const BAD_STYLE = emphasis('FFFFC7CE');
const SEVERITY_STYLE = new Map(Object.entries(SEVERITY_FILL).map(([severity, argb]) => [severity, Object.freeze({ fill: { type: 'pattern', pattern: 'solid', fgColor: { argb } }, alignment: TOP } as Partial<ExcelJS.Style>)]));
const moneyStyles = new Map<string | null, Partial<ExcelJS.Style>>();

function styleOf(cell: Cell, isSeverity: boolean): Partial<ExcelJS.Style> {
  if (cell === null || typeof cell === 'number') return PLAIN;
  if (typeof cell === 'string') return (isSeverity && SEVERITY_STYLE.get(cell)) || PLAIN;
  if ('cents' in cell) {
    let style = moneyStyles.get(cell.currency);
    if (!style) moneyStyles.set(cell.currency, (style = Object.freeze({ numFmt: moneyFormat(cell.currency), alignment: TOP })));
    return style;
  }
  if ('date' in cell) return DATE_STYLE;
  if ('sheet' in cell) return LINK_STYLE;
  if ('count' in cell) return PLAIN;
  if ('label' in cell) return LABEL_STYLE;
  if ('emphasis' in cell) return cell.good ? GOOD_STYLE : BAD_STYLE;
  return HEADING_STYLE;
}

function valueOf(cell: Cell, row: number): ExcelJS.CellValue {
  if (cell === null) return null;
  if (typeof cell === 'string') return truncate(visibleText(cell));
  if (typeof cell === 'number') return cell;
  if ('formula' in cell) return { formula: referencesOnly(cell.formula).replaceAll('{row}', String(row)), result: 'count' in cell ? cell.count : cell.cents / 100 };
  if ('cents' in cell) return cell.cents / 100;
  if ('label' in cell) return cell.label;
  if ('emphasis' in cell) return cell.emphasis;
  if ('date' in cell) return new Date(cell.date);
  // A link to one of our own sheets: a formula built from our constant sheet names, never API text.
  if ('sheet' in cell) return { formula: `HYPERLINK("#'${cell.sheet.replace(/'/g, "''")}'!A1","${cell.text.replace(/"/g, '""')}")`, result: cell.text };
  return cell.heading;
}

/**
 * A formula the tool built: cell references and ranges (`A2`, `$B$3`, `B:B`, on our own sheets
 * as `'Findings'!B:B`), joined by + and −, or inside COUNTIFS and SUM. Anything else (a
 * string, another function) is a bug in the tool, refused. Templates (`D{row}-E{row}`) are
 * checked once each.
 */
function referencesOnly(formula: string): string {
  if (CHECKED_FORMULAS.has(formula)) return formula;
  if (!FORMULA.test(formula.replaceAll('{row}', '1'))) throw new Error(`refusing a formula that is not cell references joined by + and -, COUNTIFS or SUM: ${formula}`);
  if (CHECKED_FORMULAS.size < 10_000) CHECKED_FORMULAS.add(formula);
  return formula;
}

const REFERENCE = String.raw`(?:'[A-Za-z ()0-9]+'!)?\$?[A-Z]{1,3}\$?(?:\d{1,7})?(?::\$?[A-Z]{1,3}\$?(?:\d{1,7})?)?`;
const TERM = String.raw`(?:(?:COUNTIFS|SUM)\(${REFERENCE}(?:,${REFERENCE})*\)|${REFERENCE})`;
const FORMULA = new RegExp(String.raw`^${TERM}(?:[+-]${TERM})*$`);
const CHECKED_FORMULAS = new Set<string>();

/** A cell holds at most 32,767 characters. */
function truncate(text: string): string {
  return text.length > 32_000 ? `${text.slice(0, 32_000)}… (truncated; the full text is in the mirror)` : text;
}

/** The widest a column grows; text longer than this wraps within it. */
const MAX_WIDTH = 48;

function fitWidths(header: string[] | undefined, sample: Cell[][]): number[] {
  const columns = Math.max(header?.length ?? 0, ...sample.map((r) => r.length));
  return Array.from({ length: columns }, (_, i) => {
    // A header wraps onto two lines before it widens a column of short figures.
    const lengths = [Math.ceil((header?.[i]?.length ?? 0) / 2), ...sample.map((row) => displayLength(row[i] ?? null))];
    return Math.min(Math.max(10, Math.max(...lengths) + 2), MAX_WIDTH);
  });
}

function displayLength(cell: Cell): number {
  if (cell === null) return 0;
  if (typeof cell === 'string') return cell.length;
  if (typeof cell === 'number') return String(cell).length;
  if ('cents' in cell) return String(Math.trunc(cell.cents / 100)).length + 8;
  if ('date' in cell) return 19;
  if ('sheet' in cell) return cell.text.length;
  if ('count' in cell) return String(cell.count).length;
  if ('label' in cell) return cell.label.length;
  if ('emphasis' in cell) return Math.ceil(cell.emphasis.length * 1.4);
  return Math.min(cell.heading.length, 30);
}

function columnLetter(n: number): string {
  let result = '';
  for (let i = n; i > 0; i = Math.floor((i - 1) / 26)) result = String.fromCharCode(65 + ((i - 1) % 26)) + result;
  return result;
}

async function* toAsync<T>(rows: Iterable<T> | AsyncIterable<T>): AsyncGenerator<T> {
  yield* rows;
}
