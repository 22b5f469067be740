/**
 * The mapping file: which column of the merchant's export holds what, and how its amounts and
 * times are written. One map per export (`tenders.map.json` beside `tenders.csv`); without one,
 * the columns carry the field names themselves (`reference`, `amount`, …) and times are RFC 3339.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { isTimeZone } from '../time-zone.js';

/** What a books file holds: gift card tenders and refunds, coupon uses, or DP voucher purchases. */
export const BOOKS_KINDS = ['tenders', 'coupon-uses', 'dp-purchases'] as const;
export type BooksKind = (typeof BOOKS_KINDS)[number];

/** The fields a books row can carry; each kind requires some (REQUIRED). */
export const BOOKS_FIELDS = ['reference', 'amount', 'currency', 'time', 'type', 'cardCode', 'giftCardId', 'couponCode', 'externalRef'] as const;
export type BooksField = (typeof BOOKS_FIELDS)[number];

export const REQUIRED: Record<BooksKind, readonly BooksField[]> = {
  tenders: ['reference', 'amount', 'currency', 'time', 'type'],
  'coupon-uses': ['couponCode', 'time'],
  'dp-purchases': ['externalRef', 'amount', 'currency', 'time'],
};

const mapSchema = z
  .object({
    /** csv (default for .csv) or jsonl (JSON Lines: one object a line, default for .jsonl / .ndjson). */
    format: z.enum(['csv', 'jsonl']).optional(),
    /** The CSV field separator (default ","). */
    delimiter: z.string().length(1).optional(),
    /** Column (CSV header, or JSON key) per field. */
    columns: z.partialRecord(z.enum(BOOKS_FIELDS), z.string().min(1)).optional(),
    /** The values of the type column that mean a payment and a refund (tenders; compared ignoring case). */
    types: z.object({ payment: z.array(z.string().min(1)).min(1), refund: z.array(z.string().min(1)).min(1) }).strict().optional(),
    /** The decimal separator of amounts: "." (thousands as "," or a space) or "," (thousands as "." or a space). */
    decimalSeparator: z.enum(['.', ',']).optional(),
    /** Formats of the time column, tried in order: "iso" (RFC 3339) or a pattern of yyyy MM dd HH mm ss SSS. */
    timeFormats: z.array(z.string().min(1)).min(1).optional(),
    /** The zone of times written without an offset (IANA, e.g. Europe/Berlin; default UTC). */
    timeZone: z.string().optional(),
    /** The currency of every row, where the file has no currency column. */
    currency: z.string().regex(/^[A-Z]{3}$/).optional(),
  })
  .strict();

export interface BooksMap {
  format: 'csv' | 'jsonl' | undefined;
  delimiter: string;
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
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('--map', `--map ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
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
  if (given.timeZone !== undefined && !isTimeZone(given.timeZone)) throw new ConfigError('--map', `--map ${path}: timeZone ${given.timeZone} is not a time zone this platform knows (an IANA name such as Europe/Berlin)`);
  for (const format of given.timeFormats ?? []) {
    if (format !== 'iso' && !/yyyy/.test(format)) throw new ConfigError('--map', `--map ${path}: time format "${format}" has no yyyy: use "iso" or a pattern such as "dd.MM.yyyy HH:mm"`);
  }
  const base = defaultMap();
  return {
    format: given.format,
    delimiter: given.delimiter ?? base.delimiter,
    columns: { ...base.columns, ...given.columns },
    types: given.types ?? base.types,
    decimalSeparator: given.decimalSeparator ?? base.decimalSeparator,
    timeFormats: given.timeFormats ?? base.timeFormats,
    timeZone: given.timeZone ?? base.timeZone,
    currency: given.currency,
  };
}

/** The fields a kind needs that the map cannot find: a file-level problem, named once. */
export function missingColumns(kind: BooksKind, map: BooksMap, header: readonly string[]): BooksField[] {
  const present = new Set(header);
  return REQUIRED[kind].filter((field) => !(field === 'currency' && map.currency !== undefined) && !present.has(map.columns[field]));
}
