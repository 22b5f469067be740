/**
 * Formula-injection defence (OWASP CSV injection): a string from the services that would start
 * a formula in a spreadsheet — its first character after any leading whitespace or control
 * characters is =, +, -, @, tab, CR or LF — is prefixed with an apostrophe. Strings only:
 * money stays a number.
 */
const DANGEROUS = /^[\s\u0000-\u001f]*[=+\-@\t\r\n]/;

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
