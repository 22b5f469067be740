/**
 * Money is integer minor units at scale 2 ("cents") everywhere inside the tool.
 * API numbers are converted once, at the edge, by {@link toCents}; an amount that does not
 * sit on a cent is reported as such, never rounded.
 */

declare const centsBrand: unique symbol;
/** An integer number of cents. Only {@link toCents} and {@link cents} make one. */
export type Cents = number & { readonly [centsBrand]: true };

/** Brands an integer already known to be cents (e.g. read back from the mirror). */
export function cents(value: number): Cents {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer number of cents: ${value}`);
  return value as Cents;
}

/** Brands a nullable integer read back from the mirror (null: an amount the edge found off the cent). */
export function storedCents(value: number | null): Cents | null {
  return value === null ? null : cents(value);
}

export type CentsResult = { ok: true; cents: Cents } | { ok: false; reason: string };

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Converts a JSON number from an API into cents without float arithmetic: it reads the
 * number's shortest decimal representation (what the JSON said, for any value JSON can
 * carry exactly) and fails when more than two decimals are non-zero.
 * `toCents(10.1)` → 1010; `toCents(0.1 + 0.2)` → not on a cent.
 */
export function toCents(value: number | NumberLiteral): CentsResult {
  if (typeof value === 'object' && value !== null && typeof value.literal === 'string')
    return literalCents(value.literal);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return { ok: false, reason: `not a finite number: ${String(value)}` };
  }
  return decimalCents(plainDecimal(value));
}

/** A JSON number a double cannot carry, read as its text at the edge (api/json-text.ts's InexactNumber). */
export interface NumberLiteral {
  readonly literal: string;
}

/**
 * Cents of a plain decimal text (`-12.50`, `12.5`, `12`), exactly: what the merchant's books
 * write, once their separators are normalised. More than two non-zero decimals is not on a cent.
 */
export function decimalTextCents(text: string): CentsResult {
  return literalCents(text);
}

/** Cents of a number literal kept as text: exact, so `10.000000000000000001` is not on a cent. */
function literalCents(literal: string): CentsResult {
  if (/[eE]/.test(literal)) return { ok: false, reason: `${literal} cannot be read exactly as a decimal amount` };
  return decimalCents(literal);
}

function decimalCents(text: string): CentsResult {
  const plain = plainCents(text);
  if (plain !== undefined) return { ok: true, cents: plain as Cents };
  const match = DECIMAL.exec(text);
  if (!match) return { ok: false, reason: `not a decimal amount: ${text}` };
  const [, sign, whole = '0', fraction = ''] = match;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > 2) return { ok: false, reason: `${text} is not on a cent` };
  // What plainCents leaves (trailing zeros, more than 13 whole digits) is rare: BigInt keeps it exact.
  const minor = BigInt(whole) * 100n + BigInt(significant.padEnd(2, '0'));
  const signed = sign === '-' ? -minor : minor;
  if (signed > BigInt(Number.MAX_SAFE_INTEGER) || signed < BigInt(Number.MIN_SAFE_INTEGER)) {
    return { ok: false, reason: `${text} is too large` };
  }
  return { ok: true, cents: Number(signed) as Cents };
}

/**
 * The common case read digit by digit, without regular expressions (a sync converts millions
 * of amounts): an optional minus, 1 to 13 whole digits, and an optional point with one or two
 * decimals. Up to 13 whole digits the cents stay below 2^53, so the arithmetic is exact.
 * Anything else gives undefined and takes the general path.
 */
function plainCents(text: string): number | undefined {
  const negative = text.charCodeAt(0) === 45; // '-'
  let i = negative ? 1 : 0;
  let whole = 0;
  const wholeStart = i;
  for (; i < text.length; i += 1) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    whole = whole * 10 + digit;
  }
  if (i === wholeStart || i - wholeStart > 13) return undefined;
  let hundredths = 0;
  if (i < text.length) {
    const decimals = text.length - i - 1;
    if (text.charCodeAt(i) !== 46 || decimals < 1 || decimals > 2) return undefined; // '.'
    for (let j = i + 1; j < text.length; j += 1) {
      const digit = text.charCodeAt(j) - 48;
      if (digit < 0 || digit > 9) return undefined;
      hundredths = hundredths * 10 + digit;
    }
    if (decimals === 1) hundredths *= 10;
  }
  const minor = whole * 100 + hundredths;
  return negative && minor !== 0 ? -minor : minor;
}

/** The decimal expansion of a number without exponent notation (1e-7 → "0.0000001"). */
function plainDecimal(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  const [mantissa = '', exponentText = '0'] = text.toLowerCase().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '');
  const [intPart = '', fracPart = ''] = digits.split('.');
  const all = intPart + fracPart;
  const point = intPart.length + exponent;
  let result: string;
  if (point <= 0) result = `0.${'0'.repeat(-point)}${all}`;
  else if (point >= all.length) result = all + '0'.repeat(point - all.length);
  else result = `${all.slice(0, point)}.${all.slice(point)}`;
  return (negative ? '-' : '') + result;
}

/** Cents as their sign, whole units and minor units, by integer arithmetic: a multiple of a hundred divided by a hundred is exact. */
function splitCents(value: Cents | number): { sign: string; whole: number; minor: number } {
  const abs = Math.abs(value);
  const minor = abs % 100;
  return { sign: value < 0 ? '-' : '', whole: (abs - minor) / 100, minor };
}

/** Formats cents as a plain decimal string with two places: 1010 → "10.10", -5 → "-0.05". */
export function formatCents(value: Cents | number): string {
  const { sign, whole, minor } = splitCents(value);
  return `${sign}${whole}.${minor < 10 ? '0' : ''}${minor}`;
}

/**
 * Cents as the shortest decimal that states them exactly, as a spreadsheet's number cell holds
 * them: 1380 → "13.8", 1300 → "13", -5 → "-0.05". Integer arithmetic only: the figure is never a
 * float divided by a hundred.
 */
export function shortestDecimal(value: Cents | number): string {
  const { sign, whole, minor } = splitCents(value);
  if (minor === 0) return `${sign}${whole}`;
  if (minor % 10 === 0) return `${sign}${whole}.${minor / 10}`;
  return `${sign}${whole}.${minor < 10 ? '0' : ''}${minor}`;
}

/**
 * A decimal string with thousands separators in its integer part, for people on a terminal:
 * "23733500.00" → "23,733,500.00", "-1234.50" → "-1,234.50". Text only: no arithmetic.
 */
export function groupThousands(decimal: string): string {
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(decimal);
  if (!match) return decimal;
  const [, sign = '', whole = '', fraction = ''] = match;
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction}`;
}

/** Formats cents with the currency code, as a finding's message states money: "EUR 10.10". */
export function formatMoney(value: Cents | number, currency: string): string {
  return `${currency} ${formatCents(value)}`;
}

/** Cents back to the JSON number an API would send (exact for any safe integer of cents). */
export function centsToNumber(value: Cents | number): number {
  return Number(formatCents(value));
}

/** No money. */
export const ZERO_CENTS = 0 as Cents;

/**
 * Cents added, subtracted or negated stay cents: integers in, an integer out, with nothing to
 * round (a sum beyond 2^53 cents, some 90 trillion, is not a gift card's). The ledger stage's
 * figures keep their brand through these.
 */
export function plusCents(a: Cents, b: Cents): Cents {
  return (a + b) as Cents;
}

export function minusCents(a: Cents, b: Cents): Cents {
  return (a - b) as Cents;
}
