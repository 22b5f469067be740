/**
 * Text from the services for a workbook cell, as sent: a text cell in .xlsx is not read as a
 * formula, so nothing is prefixed and the text matches the mirror (a cell that starts like a
 * formula is given the Text format `@` by the writer, so that editing it keeps it text). XML cannot
 * carry NUL and most control characters (a writer would drop them silently), and a carriage
 * return comes back from XML as a line feed: each is shown escaped, as `\u0000` or `\u000d`,
 * so an identifier that holds one is visibly not the plain one. Tab and line feed stay.
 */
export function visibleText(text: string): string {
  return CONTROL.test(text)
    ? text.replace(CONTROL_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : text;
}

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\ufffe\uffff]/;
const CONTROL_ALL = new RegExp(CONTROL.source, 'g');

/**
 * Formula-injection defence for CSV files (OWASP CSV injection), which a spreadsheet reads as
 * typed: a string from the services that would start
 * a formula in a spreadsheet — its first character after any leading whitespace or control
 * characters is =, +, -, @, tab, CR or LF — is prefixed with an apostrophe. Strings only:
 * money stays a number.
 */
const DANGEROUS = /^[\s\u0000-\u001f]*[=+\-@\t\r\n]/;

/** Text a spreadsheet would take for a formula once a user edits and confirms its cell. */
export function looksLikeFormula(text: string): boolean {
  return DANGEROUS.test(text);
}

export function neutralise(text: string): string {
  return DANGEROUS.test(text) ? `'${text}` : text;
}

/** One CSV field: text neutralised, every field quoted, embedded quotes doubled. */
export function csvField(value: string | number | null): string {
  if (value === null) return '""';
  const text = typeof value === 'number' ? String(value) : neutralise(value);
  return `"${text.replace(/"/g, '""')}"`;
}

/** A CSV field for a figure this tool formatted (a decimal amount): never prefixed. */
export function csvFigure(value: string | null): string {
  return value === null ? '""' : `"${value}"`;
}
