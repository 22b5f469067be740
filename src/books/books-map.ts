/**
 * The mapping file: which column of the merchant's export holds what, and how its amounts and
 * times are written. One map per export (`tenders.map.json` beside `tenders.csv`); without one,
 * the columns carry the field names themselves (`reference`, `amount`, …) and times are RFC 3339.
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { readRegularFile } from '../paths.js';
import { isTimeZone } from '../time-zone.js';

/** What a books file holds: gift card tenders and refunds, coupon uses, or DP voucher purchases. */
export const BOOKS_KINDS = ['tenders', 'coupon-uses', 'dp-purchases'] as const;
export type BooksKind = (typeof BOOKS_KINDS)[number];

/** The fields a books row can carry; each kind requires some (REQUIRED). */
export const BOOKS_FIELDS = [
  'reference',
  'amount',
  'currency',
  'time',
  'type',
  'cardCode',
  'giftCardId',
  'couponCode',
  'externalRef',
] as const;
export type BooksField = (typeof BOOKS_FIELDS)[number];

export const REQUIRED: Record<BooksKind, readonly BooksField[]> = {
  tenders: ['reference', 'amount', 'currency', 'time', 'type'],
  'coupon-uses': ['couponCode', 'time'],
  'dp-purchases': ['externalRef', 'amount', 'currency', 'time'],
};

/** The largest mapping file read (a map is a few hundred bytes; /dev/zero is not one). */
export const MAX_MAP_BYTES = 64 * 1024;
const name = z.string().min(1).max(200);
const values = z.array(name).min(1).max(50);

/** The encodings a books file may be written in (`encoding` in the map; UTF-8 by default). */
export const BOOKS_ENCODINGS = ['utf-8', 'windows-1252', 'iso-8859-1', 'utf-16le'] as const;
export type BooksEncoding = (typeof BOOKS_ENCODINGS)[number];

const mapSchema = z
  .object({
    /** csv (default for .csv) or jsonl (JSON Lines: one object a line, default for .jsonl / .ndjson). */
    format: z.enum(['csv', 'jsonl']).optional(),
    /** The CSV field separator (default ","). */
    delimiter: z
      .string()
      .regex(/^[\x01-\x7f]$/, 'one ASCII character, such as "," ";" "|" or a tab')
      .refine((d) => !'"\r\n'.includes(d), 'a quote or a line end cannot separate fields')
      .optional(),
    /** The text encoding of the file (default utf-8). */
    encoding: z.enum(BOOKS_ENCODINGS).optional(),
    /** Column (CSV header, or JSON key) per field. */
    columns: z.partialRecord(z.enum(BOOKS_FIELDS), name).optional(),
    /** The values of the type column that mean a payment and a refund (tenders; compared ignoring case). */
    types: z.object({ payment: values, refund: values }).strict().optional(),
    /** The decimal separator of amounts: "." (thousands as "," or a space) or "," (thousands as "." or a space). */
    decimalSeparator: z.enum(['.', ',']).optional(),
    /** Formats of the time column, tried in order: "iso" (RFC 3339) or a pattern of yyyy MM dd HH mm ss SSS. */
    timeFormats: z.array(z.string().min(1).max(100)).min(1).max(20).optional(),
    /** The zone of times written without an offset (IANA, e.g. Europe/Berlin; default UTC). */
    timeZone: z.string().max(100).optional(),
    /** The currency of every row, where the file has no currency column. */
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional(),
  })
  .strict();

export interface BooksMap {
  format: 'csv' | 'jsonl' | undefined;
  delimiter: string;
  encoding: BooksEncoding;
  /** The fields the map file names a column for (the others take their default names and may be absent). */
  named: BooksField[];
  columns: Record<BooksField, string>;
  types: { payment: string[]; refund: string[] };
  decimalSeparator: '.' | ',';
  timeFormats: string[];
  timeZone: string;
  currency: string | undefined;
}

/** The map a file without a mapping file uses: columns named after the fields, RFC 3339 times in UTC. */
export function defaultMap(): BooksMap {
  return {
    format: undefined,
    delimiter: ',',
    encoding: 'utf-8',
    named: [],
    columns: Object.fromEntries(BOOKS_FIELDS.map((field) => [field, field])) as Record<BooksField, string>,
    types: { payment: ['payment'], refund: ['refund'] },
    decimalSeparator: '.',
    timeFormats: ['iso'],
    timeZone: 'UTC',
    currency: undefined,
  };
}

/**
 * Reads and checks a mapping file.
 * @throws ConfigError naming the file and what is wrong in it.
 */
export function readMap(path: string): BooksMap {
  const text = readRegularFile(path, '--map', MAX_MAP_BYTES);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError('--map', `--map ${path}: not JSON (${(error as Error).message})`);
  }
  const parsed = mapSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError('--map', `--map ${path}: ${issue.path.join('.') || 'the map'}: ${issue.message}`);
  }
  const given = parsed.data;
  if (given.timeZone !== undefined && !isTimeZone(given.timeZone))
    throw new ConfigError(
      '--map',
      `--map ${path}: timeZone ${given.timeZone} is not a time zone this platform knows (an IANA name such as Europe/Berlin)`,
    );
  for (const format of given.timeFormats ?? []) {
    if (format !== 'iso' && !/yyyy/.test(format))
      throw new ConfigError(
        '--map',
        `--map ${path}: time format "${format}" has no yyyy: use "iso" or a pattern such as "dd.MM.yyyy HH:mm"`,
      );
  }
  const base = defaultMap();
  const columns = { ...base.columns, ...given.columns };
  // One column read as two fields would match a row against itself (a code read as a reference).
  for (const [i, field] of BOOKS_FIELDS.entries()) {
    const twin = BOOKS_FIELDS.slice(i + 1).find((other) => columns[other] === columns[field]);
    if (twin)
      throw new ConfigError(
        '--map',
        `--map ${path}: the column "${columns[field]}" is named for both ${field} and ${twin}: each field needs a column of its own`,
      );
  }
  const types = given.types ?? base.types;
  const both = types.payment.find((p) => types.refund.some((r) => r.toLowerCase() === p.toLowerCase()));
  if (both !== undefined)
    throw new ConfigError(
      '--map',
      `--map ${path}: "${both}" is listed as both a payment and a refund: a row of that type could be either`,
    );
  return {
    format: given.format,
    delimiter: given.delimiter ?? base.delimiter,
    encoding: given.encoding ?? base.encoding,
    named: Object.keys(given.columns ?? {}) as BooksField[],
    columns,
    types,
    decimalSeparator: given.decimalSeparator ?? base.decimalSeparator,
    timeFormats: given.timeFormats ?? base.timeFormats,
    timeZone: given.timeZone ?? base.timeZone,
    currency: given.currency,
  };
}

/**
 * The fields a kind needs that the map cannot find: a file-level problem, named once. A code
 * column the map names is needed too: a header that spells it otherwise would leave every
 * row's code unhashed and unmatched.
 */
export function missingColumns(kind: BooksKind, map: BooksMap, header: readonly string[]): BooksField[] {
  const present = new Set(header);
  const codes = CODE_FIELDS_OF[kind].filter((field) => map.named.includes(field));
  return [...REQUIRED[kind], ...codes].filter(
    (field) => !(field === 'currency' && map.currency !== undefined) && !present.has(map.columns[field]),
  );
}

/** The code fields a kind carries: hashed at once, and matched by their hash. */
export const CODE_FIELDS_OF: Record<BooksKind, readonly BooksField[]> = {
  tenders: ['cardCode'],
  'coupon-uses': ['couponCode'],
  'dp-purchases': [],
};

/**
 * A header column the map does not read that looks like a code column (`Gift card code`,
 * `GiftCardCode`, `Promo-Code`) in a kind that carries codes: its codes would go unhashed and
 * unmatched, so the file is refused until the map names it.
 */
export function unmappedCodeColumn(kind: BooksKind, map: BooksMap, header: readonly string[]): string | undefined {
  if (CODE_FIELDS_OF[kind].length === 0) return undefined;
  const read = new Set(Object.values(map.columns));
  return header.find((column) => !read.has(column) && /(card|gift|coupon|promo|voucher)[\s_-]*code/i.test(column));
}
