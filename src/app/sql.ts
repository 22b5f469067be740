import { defaultLocations } from '../locations.js';
import { readRegularFile } from '../paths.js';
import { openForReading } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { DEFAULT_STATEMENT_BOUNDS } from '../db/types.js';
import { forTerminal, oneLine } from '../log.js';
import type { SqlFormat } from '../sql-formats.js';

/** The largest statement `--file` reads. */
const MAX_STATEMENT_BYTES = 1024 * 1024;

export interface SqlOptions {
  db?: string | undefined;
  file?: string | undefined;
  format?: SqlFormat | undefined;
  /** For a terminal: a table by default, fitted to `width`, its control characters shown, never obeyed. */
  tty?: boolean | undefined;
  width?: number | undefined;
  /** The statement's bounds (`--max-rows`, `--max-mb`, `--max-seconds`): the defaults where not given. */
  maxRows?: number | undefined;
  maxMb?: number | undefined;
  maxSeconds?: number | undefined;
}

/**
 * The job of `ledger-recon sql "<statement>"` (or `--file`): runs one read-only statement against
 * the mirror, opened read-only, and renders its rows: a table on a terminal, CSV otherwise, or as
 * `--format` says. CSV and JSON carry the data as it is: CSV by RFC 4180 with numbers bare,
 * text quoted and NULL an empty unquoted field (so NULL and '' differ), JSON with its types.
 * Nothing is neutralised here: that belongs to files made for spreadsheets (the reports). A statement that would write is refused and the file left untouched.
 * @throws MirrorError (exit 2) for a writing statement, several statements, or bad SQL.
 */
export async function queryMirror(
  statement: string | undefined,
  options: SqlOptions,
): Promise<{ text: string; rows: number }> {
  // A statement is text of a person's size: a device (/dev/zero) or a FIFO is refused, a file over 1 MiB too.
  const text = options.file ? readRegularFile(options.file, '--file', MAX_STATEMENT_BYTES) : statement;
  if (!text?.trim()) throw new MirrorError('give one SQL statement, or --file query.sql');
  const dbPath = options.db ?? defaultLocations().db;
  const mirror = await openForReading(dbPath, 'sync');
  try {
    // Integers as BigInt: none past 2^53 loses a digit (9007199254740993 stays …993).
    const { columns, rows } = await mirror.readOnlyStatement(text, {
      maxRows: options.maxRows ?? DEFAULT_STATEMENT_BOUNDS.maxRows,
      maxBytes: options.maxMb !== undefined ? options.maxMb * 1024 * 1024 : DEFAULT_STATEMENT_BOUNDS.maxBytes,
      timeoutMs: options.maxSeconds !== undefined ? options.maxSeconds * 1000 : DEFAULT_STATEMENT_BOUNDS.timeoutMs,
    });
    const tty = options.tty === true;
    const rendered = render(columns, rows, options.format ?? (tty ? 'table' : 'csv'), options.width);
    // On a terminal, a value's control characters (ESC[2J, an OSC 52 clipboard write) are shown, never obeyed.
    return { text: tty ? forTerminal(rendered) : rendered, rows: rows.length };
  } finally {
    await mirror.close();
  }
}

function render(columns: string[], rows: Record<string, unknown>[], format: SqlFormat, screenWidth?: number): string {
  if (format === 'json')
    return `${JSON.stringify(rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, jsonValue(value)]))))}\n`;
  const cell = (value: unknown): string =>
    value === null || value === undefined
      ? ''
      : value instanceof Date
        ? value.toISOString()
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
  if (format === 'csv')
    return [columns.map(quoted), ...rows.map((row) => columns.map((c) => rfc4180(row[c])))]
      .map((fields) => `${fields.join(',')}\r\n`)
      .join('');
  const table = rows.map((row) => columns.map((c) => oneLine(cell(row[c]).replace(/\s+/g, ' '))));
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...table.map((r) => r[i]?.length ?? 0))));
  // On a terminal, the widest columns give way (down to 8 characters, cut with …) until a row fits.
  if (screenWidth !== undefined) {
    const total = (): number => widths.reduce((sum, w) => sum + w, 0) + 3 * Math.max(0, widths.length - 1);
    while (total() > screenWidth) {
      const widest = widths.indexOf(Math.max(...widths));
      if ((widths[widest] ?? 0) <= 8) break;
      widths[widest] = Math.max(8, (widths[widest] ?? 0) - (total() - screenWidth));
    }
  }
  const line = (cells: string[]): string =>
    cells
      .map((v, i) => (v.length > (widths[i] ?? 0) ? `${v.slice(0, (widths[i] ?? 1) - 1)}…` : v.padEnd(widths[i] ?? 0)))
      .join(' │ ')
      .trimEnd();
  return `${[line(columns), widths.map((w) => '─'.repeat(w)).join('─┼─'), ...table.map(line), `(${rows.length} row${rows.length === 1 ? '' : 's'})`].join('\n')}\n`;
}

/** A value as JSON carries it exactly: an integer past 2^53 as its decimal text, a blob as its hex literal (x'00ff'). */
function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Buffer.isBuffer(value)) return `x'${value.toString('hex')}'`;
  return value;
}

const quoted = (text: string): string => `"${text.replace(/"/g, '""')}"`;

/** One CSV field as the value is: NULL empty, numbers bare, text (and anything else) quoted. */
function rfc4180(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (Buffer.isBuffer(value)) return quoted(`x'${value.toString('hex')}'`);
  // A server's timestamp, as RFC 3339 UTC (String() of a Date is a locale's long form).
  if (value instanceof Date) return quoted(value.toISOString());
  return quoted(String(value));
}
