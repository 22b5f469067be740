/**
 * The one module that knows exceljs. Writes a workbook with the streaming writer so memory
 * stays bounded: sheets one after another, rows committed as they come, a turn of the event
 * loop every few hundred rows so the zip deflates them, and a wait when it falls far behind
 * (src/report/zip-writer.ts). Auditors' conventions are applied here: frozen header,
 * autofilter, fitted widths, money as numbers in the currency's format,
 * dates as real dates (UTC), severity colours, and API text as sent (a text cell of .xlsx is never a formula), control characters shown escaped.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { EXCLUSIVE, letGoOfFile } from '../paths.js';
import { looksLikeFormula } from './neutralise.js';
import { type Cell, columnLetter, RowBatch, SheetRows } from './xlsx-rows.js';
import { ZipWriter } from './zip-writer.js';

export type { Cell } from './xlsx-rows.js';
export { RowBatch } from './xlsx-rows.js';

export interface SheetSpec {
  name: string;
  /** A table's header row: frozen, with an autofilter. Absent for free-form sheets (Summary). */
  header?: string[];
  /** Column widths in characters, for a free-form sheet laid out by hand (default: fitted to the content). */
  widths?: number[];
  /** Only the first this many columns print (the rest are for the screen and the CSV): its print area. */
  printColumns?: number;
  /**
   * Only the first this many rows under the header print (a detail sheet's exceptions, listed
   * first; the full population follows on screen): its print area. `printNote` says so at the
   * top of every printed page.
   */
  printRows?: number;
  printNote?: string;
  /**
   * A free-form or reference sheet read as a whole (the Summary, the catalogue) prints at this
   * scale, more to a page, where its columns fit one page wide that way; never below
   * MIN_PRINT_SCALE. Default: the largest scale that fits one page wide.
   */
  printScale?: number;
  /** Widths (characters) a layout sets for some columns instead of the fitted ones, by 0-based index (a page's worth of columns to share out). */
  fixedWidths?: Readonly<Record<number, number>>;
  /**
   * The first this many columns name a row (currency and program): where the sheet prints
   * across pages, they repeat on every page, so no printed figure is without its key.
   */
  printKeyColumns?: number;
  rows: Iterable<Cell[]> | AsyncIterable<Cell[] | RowBatch>;
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
/**
 * Rows written between turns of the event loop. The zip deflates on another thread, and what the
 * rows wrote since the last turn is handed over on a turn: without one every few hundred rows
 * it would wait, idle, and the two threads would take turns instead of working together.
 */
const TURN_EVERY = 250;
const SEVERITY_FILL: Record<string, string> = { error: 'FFF4C7C3', warning: 'FFFCE8B2', info: 'FFD9E7FD' };
const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/** The number format of money in `currency`: the code, thousands separators, two decimals. */
export function moneyFormat(currency: string | null): string {
  const code = (currency ?? '').replace(/[^A-Z]/g, '');
  return code ? `"${code} "#,##0.00;-"${code} "#,##0.00` : '#,##0.00;-#,##0.00';
}

/** Writes `sheets` in order into `path` (xlsx). Rows beyond a sheet's limit continue on numbered sheets. */
export async function writeXlsx(
  path: string,
  properties: WorkbookProperties,
  sheets: SheetSpec[],
  maxRows = MAX_ROWS_PER_SHEET,
): Promise<void> {
  // Our own file stream, so that its failure (a full disk) ends every wait: a wait for the zip,
  // or for 'drain', would otherwise never end (Node then exits 13, silently).
  // A new file only (the caller's temporary): never written through a link planted at its name.
  const file = createWriteStream(path, { flags: EXCLUSIVE });
  const failed = new Promise<never>((_resolve, reject) => file.once('error', reject));
  failed.catch(() => undefined); // raced below; never left unhandled
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: nowhere(),
    useStyles: true,
    useSharedStrings: false,
  });
  // Every part stamped with the run's instant: the same run written twice is the same bytes.
  const zip = new ZipWriter(file, properties.created);
  writeInto(workbook, zip, file);
  workbook.creator = properties.creator;
  workbook.lastModifiedBy = properties.creator;
  workbook.created = properties.created;
  workbook.modified = properties.created;
  Object.assign(workbook, { title: properties.title, subject: properties.subject });
  try {
    for (const spec of sheets) await writeSheet(workbook, spec, maxRows, properties.title, zip);
  } catch (error) {
    // The sheets not written let go of what their rows hold (a cursor, a pooled connection):
    // held, a server's pool never ends and the process never exits.
    await Promise.all(sheets.map((spec) => closeRows(spec.rows)));
    // And the file is let go of before the failure is told.
    await letGoOfFile(file);
    throw error;
  }
  await Promise.race([workbook.commit(), failed]);
  if (!file.closed) await Promise.race([once(file, 'close'), failed]);
}

/**
 * The workbook's parts go into `zip` (src/report/zip-writer.ts), which writes `file`: exceljs
 * builds an archiver in its constructor and appends its first two parts to it there, so those
 * two are appended again, and the archiver, given a stream that keeps nothing, is left unused.
 */
function writeInto(workbook: ExcelJS.stream.xlsx.WorkbookWriter, zip: ZipWriter, file: Writable): void {
  const internals = workbook as unknown as {
    zip: ZipWriter;
    stream: Writable;
    promise: Promise<unknown>;
    addThemes(): Promise<void>;
    addOfficeRels(): Promise<void>;
  };
  internals.zip = zip;
  // What exceljs's commit waits to finish.
  internals.stream = file;
  internals.promise = Promise.all([internals.addThemes(), internals.addOfficeRels()]);
}

/** A stream that keeps nothing: where exceljs's own archiver writes its two parts. */
const nowhere = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });

async function writeSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  spec: SheetSpec,
  maxRows: number,
  title: string,
  zip: ZipWriter,
): Promise<void> {
  const iterator = rowsIterator(spec.rows);
  try {
    await writeRows(workbook, spec, maxRows, title, zip, iterator);
  } finally {
    // A sheet that fails part-way (a full disk) closes its rows' reader: its finally blocks run.
    await iterator.return?.(undefined);
  }
}

/** Lets go of rows never read to the end: an async generator's return() runs its finally blocks. */
async function closeRows(rows: SheetSpec['rows']): Promise<void> {
  if (Symbol.asyncIterator in rows)
    await rows[Symbol.asyncIterator]()
      .return?.(undefined)
      .catch(() => undefined);
}

async function writeRows(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  spec: SheetSpec,
  maxRows: number,
  title: string,
  zip: ZipWriter,
  iterator: AsyncIterator<Cell[] | RowBatch>,
): Promise<void> {
  // Widths must be set before the first row is committed: fit them to a sample of the rows.
  const sample: Cell[][] = [];
  let next = await iterator.next();
  while (!next.done && sample.length < FIT_SAMPLE) {
    sample.push(...rowsIn(next.value));
    next = await iterator.next();
  }
  // No header breaks inside a word ("currenc/y"): a column is at least as wide as its header's longest word, set bold.
  const widths = (spec.widths ?? fitWidths(spec.header, sample)).map((width, i) =>
    Math.max(spec.fixedWidths?.[i] ?? width, headerWordWidth(spec.header?.[i])),
  );
  // Text longer than its column wraps within it: the widest columns, and any a layout names.
  // Columns beyond a print area do not wrap: their rows would grow tall on paper for text nobody prints.
  const wrapped = widths.map(
    (width, i) =>
      (spec.printColumns === undefined || i < spec.printColumns) &&
      (width >= MAX_WIDTH || sample.some((row) => displayLength(row[i] ?? null) > width)),
  );
  let part = 1;
  let sheet = openSheet(workbook, spec, part, widths, title);
  let rows = new SheetRows(sheet);
  let rowsInSheet = spec.header ? 1 : 0;
  let written = 0;
  // Writes one row; true when the rows so far are handed to the zip and the loop should turn (and wait, if the zip is far behind).
  const put = (cells: Cell[]): boolean => {
    if (rowsInSheet >= maxRows) {
      rows.flush();
      sheet.commit();
      part += 1;
      sheet = openSheet(workbook, spec, part, widths, title);
      rows = new SheetRows(sheet);
      rowsInSheet = spec.header ? 1 : 0;
    }
    writeRow(sheet, rows, cells, spec.severityColumn, wrapped, rowsInSheet + 1, widths);
    rowsInSheet += 1;
    written += 1;
    if (written % TURN_EVERY !== 0) return false;
    rows.flush();
    return true;
  };
  const putAll = async (batch: Cell[][]): Promise<void> => {
    for (const cells of batch)
      if (put(cells)) {
        await new Promise(setImmediate);
        // Ends with the file's error if it failed (a full disk): the zip listens to it.
        await zip.drained();
      }
  };
  await putAll(sample);
  while (!next.done) {
    await putAll(rowsIn(next.value));
    next = await iterator.next();
  }
  rows.flush();
  sheet.commit();
}

/** The rows a sheet's source handed out at once: one row, or a batch of them. */
function rowsIn(value: Cell[] | RowBatch): Cell[][] {
  return value instanceof RowBatch ? value.rows : [value];
}

function openSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  spec: SheetSpec,
  part: number,
  widths: number[],
  title: string,
): ExcelJS.Worksheet {
  const name = part === 1 ? spec.name : `${spec.name} (${part})`;
  const lastColumn = columnLetter(Math.max(widths.length, 1));
  const sheet = workbook.addWorksheet(name, {
    views: [{ state: 'frozen', ySplit: 1, xSplit: 0 }],
    ...(spec.header ? { autoFilter: `A1:${lastColumn}1` } : {}),
    pageSetup: printSetup(spec, widths),
    // Every printed page says which report, which sheet and which page it is.
    headerFooter: {
      oddFooter: `&L${title.replace(/&/g, '&&')}&C&A&RPage &P of &N`,
      ...(spec.printNote ? { oddHeader: `&L${spec.printNote.replace(/&/g, '&&')}` } : {}),
    },
  });
  sheet.columns = widths.map((width) => ({ width }));
  if (spec.header) {
    const row = sheet.addRow(spec.header);
    row.font = { bold: true };
    row.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE7E6E6' } };
    // A header wraps within its column (up to three lines) rather than widen a column of short figures.
    row.alignment = { wrapText: true, vertical: 'bottom' };
    const lines = Math.max(1, ...spec.header.map((text, i) => linesOf(text, widths[i] ?? MAX_WIDTH)));
    if (lines > 1) row.height = Math.min(lines, MAX_LINES) * LINE_HEIGHT;
    row.commit();
  }
  return sheet;
}

/**
 * For working papers printed or saved as PDF: landscape, narrow margins, a table's header row
 * repeated on every page. A sheet is fitted one page wide only when its type stays readable that
 * way (no smaller than MIN_PRINT_SCALE of the default); a wider one prints at full size across
 * pages instead.
 */
function printSetup(spec: SheetSpec, widths: readonly number[]): Partial<ExcelJS.PageSetup> {
  const printed = spec.printColumns !== undefined ? widths.slice(0, spec.printColumns) : widths;
  const scale = fittedScale(printed);
  const fits = scale >= MIN_PRINT_SCALE;
  const compact = fits && spec.printScale !== undefined ? Math.max(spec.printScale, MIN_PRINT_SCALE) : undefined;
  return {
    orientation: 'landscape',
    paperSize: 9,
    margins: PRINT_MARGINS,
    ...(compact !== undefined && compact <= scale
      ? { fitToPage: false, scale: Math.round(compact * 100) }
      : fits
        ? { fitToPage: true, fitToWidth: 1, fitToHeight: 0 }
        : { fitToPage: false, scale: 100 }),
    ...(spec.header ? { printTitlesRow: '1:1' } : {}),
    ...(spec.printKeyColumns !== undefined && !fits
      ? { printTitlesColumn: `A:${columnLetter(spec.printKeyColumns)}` }
      : {}),
    ...(spec.printColumns !== undefined || spec.printRows !== undefined
      ? {
          printArea: `A$1:${columnLetter(spec.printColumns ?? widths.length)}$${spec.printRows !== undefined ? spec.printRows + 1 : MAX_ROWS_PER_SHEET}`,
        }
      : {}),
  };
}

/** Inches: narrow at the sides, room above and below for the page header and footer. */
const PRINT_MARGINS = { left: 0.4, right: 0.4, top: 0.6, bottom: 0.6, header: 0.25, footer: 0.25 };

/** The smallest scale a sheet is shrunk to so it prints one page wide: the default type at 70 %. */
export const MIN_PRINT_SCALE = 0.7;

/**
 * Column widths (characters) a landscape A4 page holds at 100 % inside PRINT_MARGINS, as
 * LibreOffice lays them out: 7 units a character plus 5 a column (Calibri 11's pixels), some
 * 800 units a page. Measured on the demo's printed workbook (the type's height on fitted pages
 * against unfitted ones: 10.0 against 14.3 points where this model said 0.743, 9.6 where it said
 * 0.703), rounded down so a sheet it fits never prints below MIN_PRINT_SCALE.
 */
export const PAGE_UNITS = 800;

/** The scale at which `widths` print one page wide (1 when they fit at full size). */
export function fittedScale(widths: readonly number[]): number {
  const units = widths.reduce((total, width) => total + 7 * width + 5, 0);
  return Math.min(1, PAGE_UNITS / Math.max(units, 1));
}

function writeRow(
  sheet: ExcelJS.Worksheet,
  rows: SheetRows,
  cells: Cell[],
  severityColumn: number | undefined,
  wrapped: readonly boolean[],
  rowNumber: number,
  widths: readonly number[],
): void {
  const first = cells[0];
  // A section that starts a printed page: the break goes after the row above it.
  if (
    rowNumber > 1 &&
    first !== null &&
    typeof first === 'object' &&
    first !== undefined &&
    'heading' in first &&
    first.pageBreak
  ) {
    (sheet as unknown as { rowBreaks: Array<{ id: number; max: number; man: number }> }).rowBreaks.push({
      id: rowNumber - 1,
      max: 16383,
      man: 1,
    });
  }
  const styles: Partial<ExcelJS.Style>[] = [];
  let height = LINE_HEIGHT;
  for (let i = 0; i < cells.length; i += 1) {
    const cell = cells[i] ?? null;
    const style = styleOf(cell, i === severityColumn);
    // A result in large type (DOES NOT TIE OUT) wraps within its cell rather than be cut by the next one.
    const emphasised = cell !== null && typeof cell === 'object' && 'emphasis' in cell;
    const wraps = (wrapped[i] && !isNote(cell)) || emphasised;
    styles.push(wraps ? wrappedStyle(style) : style);
    if (emphasised)
      height = Math.max(
        height,
        Math.ceil((unitsOf(cell.emphasis) * EMPHASIS_UNITS) / Math.max(1, (widths[i] ?? MAX_WIDTH) - 1)) *
          EMPHASIS_LINE,
      );
    else if (wraps) height = Math.max(height, Math.min(linesOf(cell, widths[i] ?? MAX_WIDTH), MAX_LINES) * LINE_HEIGHT);
  }
  // Spreadsheets do not grow a row for wrapped text they did not lay out themselves: say how tall.
  rows.write(rowNumber, cells, styles, height > LINE_HEIGHT ? height : undefined);
}

/** Points per line of 11-point text, and the most lines a row grows to. */
const LINE_HEIGHT = 14;
/** Emphasis is 14-point bold: its width units per character, and its line's height in points. */
const EMPHASIS_UNITS = (14 / 11) * 1.12;
const EMPHASIS_LINE = 19;
const MAX_LINES = 30;

/**
 * How many lines a cell's text takes when wrapped at spaces and after hyphens in a column
 * `width` characters wide, as spreadsheets lay out proportional type: each character weighs its
 * share of the width unit (a digit's width), a little over the type's own so that the estimate
 * errs toward a taller row, never a cut one; a word longer than a line is broken.
 */
function linesOf(cell: Cell, width: number): number {
  if (typeof cell !== 'string' && !(cell !== null && typeof cell === 'object' && 'label' in cell)) return 1;
  const text = typeof cell === 'string' ? cell : cell.label;
  const perLine = Math.max(1, width - 1);
  let lines = 1;
  let used = 0;
  // One character at a time (a card's ID on every row of a million): each part is a word with
  // the space before it, ending before the next space, just after a hyphen, or at a line's end.
  for (let i = 0; ; ) {
    let space = 0;
    if (text.charCodeAt(i) === 32) {
      space = SPACE_UNITS;
      i += 1;
    }
    let word = 0;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10) break;
      word += unitOf(c);
      i += 1;
      if (c === 45) break;
    }
    if (used + space + word <= perLine || used === 0) used += (used === 0 ? 0 : space) + word;
    else {
      lines += 1;
      used = word;
    }
    // A word longer than a line fills lines of its own.
    while (used > perLine) {
      lines += 1;
      used -= perLine;
    }
    if (i >= text.length) return lines;
    if (text.charCodeAt(i) === 10) {
      i += 1;
      lines += 1;
      used = 0;
    }
  }
}

const SPACE_UNITS = 0.45;

/** The width (characters) a header's longest word takes in bold, with the cell's margin. */
function headerWordWidth(header: string | undefined): number {
  if (header === undefined) return 0;
  return Math.ceil(Math.max(0, ...header.split(/\s+/).map(unitsOf)) * BOLD + 1);
}

/** Bold type is about a tenth wider. */
const BOLD = 1.12;

/** Width units of a word: digits 1, lower case 0.85, capitals 1.15, the rest 0.75 (Calibri / Carlito, rounded up). */
function unitsOf(word: string): number {
  let units = 0;
  for (let i = 0; i < word.length; i += 1) units += unitOf(word.charCodeAt(i));
  return units;
}

/** One character's width units (its char code). */
function unitOf(c: number): number {
  return c >= 48 && c <= 57 ? 1 : c >= 97 && c <= 122 ? 0.85 : c >= 65 && c <= 90 ? 1.15 : 0.75;
}

function isNote(cell: Cell): boolean {
  return cell !== null && typeof cell === 'object' && 'note' in cell;
}

/** The same style, wrapping its text within the column and aligned to the top (frozen, shared: see PLAIN). */
const WRAPPED = new WeakMap<Partial<ExcelJS.Style>, Partial<ExcelJS.Style>>();
function wrappedStyle(style: Partial<ExcelJS.Style>): Partial<ExcelJS.Style> {
  let wrapped = WRAPPED.get(style);
  if (!wrapped) {
    wrapped = Object.freeze({
      ...style,
      alignment: { vertical: 'top', ...style.alignment, wrapText: true },
    } as Partial<ExcelJS.Style>);
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
const SHARE_STYLE: Partial<ExcelJS.Style> = Object.freeze({ numFmt: '0.0%', alignment: TOP });
const LINK_STYLE: Partial<ExcelJS.Style> = Object.freeze({
  font: { color: { argb: 'FF0563C1' }, underline: true },
  alignment: TOP,
});
const HEADING_STYLE: Partial<ExcelJS.Style> = Object.freeze({ font: { bold: true, size: 12 } });
const LABEL_STYLE: Partial<ExcelJS.Style> = Object.freeze({
  font: { bold: true },
  alignment: { horizontal: 'right', wrapText: true, vertical: 'bottom' },
  border: { bottom: { style: 'thin' } },
} as Partial<ExcelJS.Style>);
const emphasis = (argb: string): Partial<ExcelJS.Style> =>
  Object.freeze({
    font: { bold: true, size: 14 },
    fill: { type: 'pattern', pattern: 'solid', fgColor: { argb } },
  } as Partial<ExcelJS.Style>);
const NOTE_STYLE: Partial<ExcelJS.Style> = Object.freeze({
  alignment: Object.freeze({ vertical: 'top', wrapText: false }),
} as Partial<ExcelJS.Style>);
const STRONG_NOTE_STYLE: Partial<ExcelJS.Style> = Object.freeze({
  font: { bold: true, size: 13 },
  alignment: Object.freeze({ vertical: 'top', wrapText: false }),
} as Partial<ExcelJS.Style>);
const GOOD_STYLE = emphasis('FFC6EFCE');
const BAD_STYLE = emphasis('FFFFC7CE');
const SEVERITY_STYLE = new Map(
  Object.entries(SEVERITY_FILL).map(([severity, argb]) => [
    severity,
    Object.freeze({
      fill: { type: 'pattern', pattern: 'solid', fgColor: { argb } },
      alignment: TOP,
    } as Partial<ExcelJS.Style>),
  ]),
);
const moneyStyles = new Map<string | null, Partial<ExcelJS.Style>>();

/**
 * A style in the Text number format (`@`): Excel keeps such a cell's content text when a user
 * edits and confirms it, where `=…` would become a formula. (exceljs writes no `quotePrefix`.)
 */
const quotedStyles = new Map<Partial<ExcelJS.Style>, Partial<ExcelJS.Style>>();

function quoted(style: Partial<ExcelJS.Style>): Partial<ExcelJS.Style> {
  let prefixed = quotedStyles.get(style);
  if (!prefixed) quotedStyles.set(style, (prefixed = Object.freeze({ ...style, numFmt: '@' })));
  return prefixed;
}

function styleOf(cell: Cell, isSeverity: boolean): Partial<ExcelJS.Style> {
  const style = baseStyleOf(cell, isSeverity);
  const text =
    typeof cell === 'string' ? cell : cell !== null && typeof cell === 'object' && 'note' in cell ? cell.note : null;
  return text !== null && looksLikeFormula(text) ? quoted(style) : style;
}

function baseStyleOf(cell: Cell, isSeverity: boolean): Partial<ExcelJS.Style> {
  if (cell === null || typeof cell === 'number') return PLAIN;
  if (typeof cell === 'string') return (isSeverity && SEVERITY_STYLE.get(cell)) || PLAIN;
  if ('cents' in cell) {
    let style = moneyStyles.get(cell.currency);
    if (!style)
      moneyStyles.set(cell.currency, (style = Object.freeze({ numFmt: moneyFormat(cell.currency), alignment: TOP })));
    return style;
  }
  if ('date' in cell) return DATE_STYLE;
  if ('sheet' in cell) return LINK_STYLE;
  if ('count' in cell) return PLAIN;
  if ('share' in cell) return SHARE_STYLE;
  if ('label' in cell) return LABEL_STYLE;
  if ('emphasis' in cell) return cell.good ? GOOD_STYLE : BAD_STYLE;
  if ('note' in cell) return cell.strong ? STRONG_NOTE_STYLE : NOTE_STYLE;
  return HEADING_STYLE;
}

/** The widest a column grows; text longer than this wraps within it. */
const MAX_WIDTH = 48;

function fitWidths(header: string[] | undefined, sample: Cell[][]): number[] {
  const columns = Math.max(header?.length ?? 0, ...sample.map((r) => r.length));
  return Array.from({ length: columns }, (_, i) => {
    // A header wraps onto up to three lines (never inside a word) before it widens a column of short figures.
    const label = header?.[i] ?? '';
    const lengths = [
      Math.max(Math.ceil(label.length / 3), ...label.split(' ').map((word) => word.length)),
      ...sample.map((row) => displayLength(row[i] ?? null)),
    ];
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
  if ('share' in cell) return 6;
  if ('label' in cell) return cell.label.length;
  if ('emphasis' in cell) return Math.ceil(cell.emphasis.length * 1.4);
  // A note runs on into the empty cells beside it: it neither widens nor wraps its column.
  if ('note' in cell) return 0;
  return Math.min(cell.heading.length, 30);
}

/**
 * A sheet's rows (or batches of them): an asynchronous source's own iterator (a generator
 * wrapped around it would cost each of a million rows another promise), a synchronous one wrapped.
 */
function rowsIterator<T>(rows: Iterable<T> | AsyncIterable<T>): AsyncIterator<T> {
  if (Symbol.asyncIterator in rows) return rows[Symbol.asyncIterator]();
  return (async function* () {
    yield* rows;
  })();
}
