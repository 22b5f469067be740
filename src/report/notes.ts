/**
 * Text on a free-form sheet (the Summary, the close's workpapers): broken between words into
 * lines a page wide, each a note that runs on into the empty cells to its right.
 */
import type { Cell } from './xlsx-writer.js';

/** The widest line of text a free-form sheet prints beside its label before it goes on to the next row (at the sheets' widths, one page wide). */
export const LINE = 105;

/**
 * A label and its text as rows of notes (each runs on into the empty cells to its right), the
 * text broken between words into lines of at most LINE characters: long text neither widens a
 * column of figures nor runs off the page.
 */
export function noteRows(label: string, text: string, width = LINE): Cell[][] {
  return linesOf(text, width).map((l, i): Cell[] => [i === 0 ? label : null, { note: l }]);
}

/** Text broken between words into lines of at most `width` characters (a word longer than that stands alone). */
export function linesOf(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
