/**
 * Text for a terminal of a given width: long lines wrap between words (a number never breaks:
 * "533.06" stays whole), and a table drops the columns that matter least until it fits, as
 * `gh` and `kubectl` do. Without a terminal, lines stay whole: a file or a pipe reads them best.
 */
import { oneLine } from './log.js';

/** The terminal's width for `stream`, or undefined when it is not a terminal. */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number }): number | undefined {
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : undefined;
}

/** A line's length on screen: colour codes take no room. */
const visible = (text: string): number => text.replace(/\x1b\[[0-9;]*m/g, '').length;

/** Wraps one line between words at `width`; continuation lines start with `indent`. */
export function wrapLine(line: string, width: number, indent = '  '): string[] {
  if (visible(line) <= width) return [line];
  const lines: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    const candidate = current === '' ? word : `${current} ${word}`;
    if (visible(candidate) <= width || current.trim() === '') current = candidate;
    else {
      lines.push(current);
      current = `${indent}${word}`;
    }
  }
  if (current !== '') lines.push(current);
  return lines;
}

/** Wraps every line of `text` at `width` (none when undefined), keeping its final newline. */
export function wrapText(text: string, width: number | undefined, indent = '  '): string {
  if (width === undefined) return text;
  const ends = text.endsWith('\n');
  const body = (ends ? text.slice(0, -1) : text).split('\n').flatMap((line) => wrapLine(line, width, indent));
  return `${body.join('\n')}${ends ? '\n' : ''}`;
}

/**
 * The columns of a table that fit `width` (all of them when undefined): dropping, in
 * `dropOrder`, the columns that matter least. Widths are each column's widest cell.
 * @returns the indexes of the columns to print, in their order.
 */
export function columnsThatFit(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  width: number | undefined,
  dropOrder: readonly string[],
  gap = 2,
): number[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const kept = header.map((_h, i) => i);
  const total = (): number => kept.reduce((sum, i) => sum + (widths[i] ?? 0), 0) + gap * Math.max(0, kept.length - 1);
  if (width === undefined) return kept;
  for (const name of dropOrder) {
    if (total() <= width) break;
    const index = kept.indexOf(header.indexOf(name));
    if (index >= 0) kept.splice(index, 1);
  }
  return kept;
}

/**
 * A table as lines of text: the columns that fit `width` (see columnsThatFit), each padded to its
 * widest cell, two spaces apart; a line still wider than `width` is cut with …, its whole in --json.
 */
export function tableLines(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  width: number | undefined,
  dropOrder: readonly string[],
): string[] {
  // A cell from a service or the mirror (a record ID, a message) never moves the cursor or writes to the clipboard: escaped.
  rows = rows.map((row) => row.map(oneLine));
  const shown = columnsThatFit(header, rows, width, dropOrder);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]?.length ?? 0)));
  return [header, ...rows].map((row) => {
    const line = shown
      .map((i) => (row[i] ?? '').padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
    return width !== undefined && line.length > width ? `${line.slice(0, width - 1)}…` : line;
  });
}
