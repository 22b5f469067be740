/**
 * One row of the merchant's books, read exactly at the edge: amounts from decimal text into
 * cents (a value off the cent is rejected, never rounded), times in the formats and zone the
 * map names, codes hashed with SHA-256 at once (the plaintext goes no further). Pure.
 */
import { decimalTextCents } from '../money.js';
import { utcMs, wallClockInstant } from '../time-zone.js';
import { BOOKS_FIELDS, type BooksField, type BooksKind, type BooksMap } from './books-map.js';
import { sha256Hex } from '../hash.js';

/** A books row as the mirror keeps it. */
export interface BooksRow {
  kind: BooksKind;
  lineNo: number;
  reference: string | null;
  entryType: 'payment' | 'refund' | 'use' | 'purchase';
  amountCents: number | null;
  currency: string | null;
  atMs: number;
  atText: string;
  codeSha256: string | null;
  giftCardId: string | null;
  externalRef: string | null;
  /** The row's fields as read, each code replaced by `sha256:<hash>`. */
  rawJson: string;
  /** SHA-256 of what the row means (not of how the file spells it). */
  meaning: string;
}

export type RowResult = { ok: true; row: BooksRow } | { ok: false; reason: string; raw: string };

/** The fields whose values are codes: hashed before anything keeps them. */
const CODE_FIELDS: readonly BooksField[] = ['cardCode', 'couponCode'];

/**
 * A row's fields (CSV header → text, or a JSON object's members) as a report or the mirror may
 * show them: the columns the map reads and no other (an export's unmapped `Voucher Code` goes
 * no further), each code and each value equal to one of the row's codes (a till that writes the
 * card's code as the reference) replaced by `sha256:<hash>`.
 */
export function scrubbed(fields: Readonly<Record<string, unknown>>, map: BooksMap): Record<string, unknown> {
  const codes = new Set(
    CODE_FIELDS.map((field) => fields[map.columns[field]])
      .filter((v) => v !== null && v !== undefined && String(v).trim() !== '')
      .map((v) => String(v).trim()),
  );
  const shown: Record<string, unknown> = {};
  for (const field of BOOKS_FIELDS) {
    const column = map.columns[field];
    if (!(column in fields)) continue;
    const value = fields[column];
    const isCode =
      value !== null &&
      value !== undefined &&
      typeof value !== 'object' &&
      (CODE_FIELDS.includes(field) ? String(value).trim() !== '' : codes.has(String(value).trim()));
    shown[column] = isCode ? `sha256:${sha256Hex(String(value).trim())}` : value;
  }
  return shown;
}

/**
 * A value as a problem line may quote it: only what cannot be a code (digits, spaces and the
 * punctuation of amounts and times, with a time's T and Z); anything else is named by its field
 * alone. A shifted row puts a card's code under any column.
 */
function quoted(value: string): string {
  return /^[0-9 .,:+\-/TZ]{1,40}$/.test(value) ? ` "${value}"` : ' (its value not shown: it may be a code)';
}

/** Why a row cannot be imported, and the field whose value it is about (its value then shown or hashed). */
class Refused {
  constructor(
    readonly reason: string,
    readonly field?: BooksField,
  ) {}
}

/**
 * Reads one row.
 * @returns the row, or why it cannot be imported (with its fields, codes hashed).
 */
export function readBooksRow(
  kind: BooksKind,
  map: BooksMap,
  fields: Readonly<Record<string, unknown>>,
  lineNo: number,
): RowResult {
  const shown = scrubbed(fields, map);
  const raw = JSON.stringify(shown);
  try {
    return { ok: true, row: rowOf(kind, map, fieldText(fields, map), lineNo, raw) };
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    // The value a row is rejected for may be a code a shifted row put there: the rejection keeps its hash.
    const column = error.field === undefined ? undefined : map.columns[error.field];
    const value = column === undefined ? undefined : shown[column];
    if (
      column === undefined ||
      typeof value !== 'string' ||
      quoted(value).startsWith(' "') ||
      value.startsWith('sha256:')
    )
      return { ok: false, reason: error.reason, raw };
    return {
      ok: false,
      reason: error.reason,
      raw: JSON.stringify({ ...shown, [column]: `sha256:${sha256Hex(value.trim())}` }),
    };
  }
}

type FieldText = (field: BooksField) => string | null;

/**
 * A row's fields as text, none empty (null instead). References are identifiers, kept exactly as
 * written (a tab or space in one is part of it, as on the ledger); other fields are trimmed.
 */
function fieldText(fields: Readonly<Record<string, unknown>>, map: BooksMap): FieldText {
  for (const field of BOOKS_FIELDS) {
    const value = fields[map.columns[field]];
    if (value !== null && value !== undefined && typeof value === 'object')
      throw new Refused(`${map.columns[field]} is not a single value`);
  }
  return (field) => {
    const value = fields[map.columns[field]];
    if (value === undefined || value === null) return null;
    const trimmed = String(value).trim();
    if (trimmed === '') return null;
    return field === 'reference' || field === 'externalRef' ? String(value) : trimmed;
  };
}

/** The row's meaning, read field by field; a field that cannot be read refuses the row. */
function rowOf(kind: BooksKind, map: BooksMap, text: FieldText, lineNo: number, rawJson: string): BooksRow {
  const timeText = text('time');
  if (timeText === null) throw new Refused(`${map.columns.time} is empty`);
  const atMs = readTime(timeText, map);
  if (atMs === null)
    throw new Refused(
      `${map.columns.time}${quoted(timeText)} is not a time in ${map.timeFormats.map((f) => (f === 'iso' ? 'RFC 3339' : `"${f}"`)).join(' or ')}`,
      'time',
    );
  const entryType = entryTypeOf(kind, map, text);
  const amountCents = amountOf(kind, map, text);
  const currency = text('currency') ?? map.currency ?? null;
  if (currency !== null && !/^[A-Z]{3}$/.test(currency))
    throw new Refused(`${map.columns.currency}${quoted(currency)} is not an ISO 4217 code`, 'currency');
  if (currency === null && kind !== 'coupon-uses') throw new Refused(`${map.columns.currency} is empty`);

  // A till that writes the card's code as the reference: the reference is the code's hash.
  const written = text('reference');
  const cardCode = text('cardCode');
  const reference =
    written !== null && cardCode !== null && written.trim() === cardCode ? `sha256:${sha256Hex(cardCode)}` : written;
  if (reference === null && kind === 'tenders' && cardCode === null && text('giftCardId') === null)
    throw new Refused(`${map.columns.reference} is empty and the row names no card`);
  const code = kind === 'coupon-uses' ? text('couponCode') : text('cardCode');
  if (kind === 'coupon-uses' && code === null) throw new Refused(`${map.columns.couponCode} is empty`);
  const externalRef = kind === 'dp-purchases' ? text('externalRef') : null;
  if (kind === 'dp-purchases' && externalRef === null) throw new Refused(`${map.columns.externalRef} is empty`);
  const codeSha256 = code === null ? null : sha256Hex(code);
  const giftCardId = kind === 'tenders' ? text('giftCardId') : null;
  const meaning = sha256Hex(
    JSON.stringify([kind, reference, entryType, amountCents, currency, atMs, codeSha256, giftCardId, externalRef]),
  );
  return {
    kind,
    lineNo,
    reference,
    entryType,
    amountCents,
    currency,
    atMs,
    atText: timeText,
    codeSha256,
    giftCardId,
    externalRef,
    rawJson,
    meaning,
  };
}

/** A tender's payment or refund, by the map's values for each; every coupon row is a use, every DP row a purchase. */
function entryTypeOf(kind: BooksKind, map: BooksMap, text: FieldText): BooksRow['entryType'] {
  if (kind !== 'tenders') return kind === 'coupon-uses' ? 'use' : 'purchase';
  const type = text('type');
  if (type === null) throw new Refused(`${map.columns.type} is empty`);
  const is = (values: string[]): boolean => values.some((v) => v.toLowerCase() === type.toLowerCase());
  if (is(map.types.payment)) return 'payment';
  if (is(map.types.refund)) return 'refund';
  throw new Refused(
    `${map.columns.type}${quoted(type)} is neither a payment (${map.types.payment.join(', ')}) nor a refund (${map.types.refund.join(', ')})`,
    'type',
  );
}

/** The row's amount in cents, read exactly; a coupon use may have none. */
function amountOf(kind: BooksKind, map: BooksMap, text: FieldText): number | null {
  const amountText = text('amount');
  if (kind === 'coupon-uses' && amountText === null) return null;
  if (amountText === null) throw new Refused(`${map.columns.amount} is empty`);
  const amount = readAmount(amountText, map.decimalSeparator);
  if (!amount.ok) throw new Refused(`${map.columns.amount}${quoted(amountText)} ${amount.reason}`, 'amount');
  return amount.cents;
}

type AmountResult = { ok: true; cents: number } | { ok: false; reason: string };

/**
 * An amount as decimal text, exactly: `1234.5`, `1,234.50` or `1 234.50` (separator "."), or
 * `1.234,50` (separator ","). Negative amounts are refused: the type column says which way money went.
 * A reason never quotes the text (it may be a code in a shifted row): the caller decides.
 */
export function readAmount(text: string, decimalSeparator: '.' | ','): AmountResult {
  const thousands = decimalSeparator === '.' ? '[, \u00a0]' : '[. \u00a0]';
  const point = decimalSeparator === '.' ? '\\.' : ',';
  const pattern = new RegExp(`^(\\d{1,3}(?:${thousands}\\d{3})+|\\d+)(?:${point}(\\d+))?$`);
  const match = pattern.exec(text);
  if (!match)
    return { ok: false, reason: `is not a decimal amount with "${decimalSeparator}" as its decimal separator` };
  const plain = `${match[1]!.replace(/[^\d]/g, '')}${match[2] ? `.${match[2]}` : ''}`;
  const cents = decimalTextCents(plain);
  if (!cents.ok)
    return {
      ok: false,
      reason: cents.reason.startsWith(plain) ? cents.reason.slice(plain.length).trim() : cents.reason,
    };
  return { ok: true, cents: cents.cents };
}

/** The instant a books time names, or null. RFC 3339 without an offset, and patterns, are wall clock in the map's zone. */
export function readTime(text: string, map: Pick<BooksMap, 'timeFormats' | 'timeZone'>): number | null {
  for (const format of map.timeFormats) {
    const instant = format === 'iso' ? isoInstant(text, map.timeZone) : patternInstant(text, format, map.timeZone);
    if (instant !== null) return instant;
  }
  return null;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:\d{2})?$/i;

function isoInstant(text: string, timeZone: string): number | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const wall = wallMs(
    +m[1]!,
    +m[2]!,
    +m[3]!,
    +(m[4] ?? 0),
    +(m[5] ?? 0),
    +(m[6] ?? 0),
    Number((m[7] ?? '0').slice(0, 3).padEnd(3, '0')),
  );
  if (wall === null) return null;
  const zone = m[8];
  if (zone === undefined) return wallClockInstant(wall, timeZone);
  if (zone.toUpperCase() === 'Z') return wall;
  const sign = zone.startsWith('-') ? -1 : 1;
  return wall - sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
}

const TOKENS: Record<string, string> = {
  yyyy: '(\\d{4})',
  MM: '(\\d{1,2})',
  dd: '(\\d{1,2})',
  HH: '(\\d{1,2})',
  mm: '(\\d{2})',
  ss: '(\\d{2})',
  SSS: '(\\d{3})',
};
const compiled = new Map<string, { regex: RegExp; order: string[] }>();

function patternInstant(text: string, format: string, timeZone: string): number | null {
  let pattern = compiled.get(format);
  if (!pattern) {
    const order: string[] = [];
    const source = format.replace(/yyyy|MM|dd|HH|mm|ss|SSS|[^A-Za-z]+|[A-Za-z]/g, (token) => {
      if (TOKENS[token]) {
        order.push(token);
        return TOKENS[token];
      }
      return token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    });
    pattern = { regex: new RegExp(`^${source}$`), order };
    compiled.set(format, pattern);
  }
  const m = pattern.regex.exec(text);
  if (!m) return null;
  const get = (token: string, fallback: number): number => {
    const i = pattern.order.indexOf(token);
    return i < 0 ? fallback : Number(m[i + 1]);
  };
  const wall = wallMs(
    get('yyyy', NaN),
    get('MM', 1),
    get('dd', 1),
    get('HH', 0),
    get('mm', 0),
    get('ss', 0),
    get('SSS', 0),
  );
  return wall === null ? null : wallClockInstant(wall, timeZone);
}

/**
 * A wall-clock time as if UTC, or null when it names no real time (no 30 February, no hour
 * 24) or one before 1970 (`0025-06-01` is a typo, never a tender).
 */
function wallMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number | null {
  if (![year, month, day, hour, minute, second, ms].every(Number.isInteger)) return null;
  if (year < 1970 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const wall = utcMs(year, month, day, hour, minute, second, ms);
  return new Date(wall).getUTCDate() === day ? wall : null;
}
