/**
 * Imports a file of the merchant's books into the mirror, in one transaction: either every
 * good row of the file lands, or nothing does. The same file again adds nothing (its SHA-256 is
 * known); a changed file of the same name is a new version: its new rows are added, the rows it
 * no longer holds are marked withdrawn, never deleted. A row that fails is reported with its
 * line and reason and kept out; the rest is imported.
 */
import { closeSync, createReadStream, existsSync, fstatSync, readdirSync, statSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { shownValue } from '../config.js';
import { basename, dirname, join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { parse } from 'csv-parse';
import { BooksImportError, ConfigError, FileSystemError } from '../errors.js';
import { openRegularFile } from '../paths.js';
import {
  BOOKS_KINDS,
  defaultMap,
  missingColumns,
  readMap,
  unmappedCodeColumn,
  type BooksEncoding,
  type BooksKind,
  type BooksMap,
} from './books-map.js';
import { readBooksRow, type BooksRow } from './books-row.js';
import { sha256Hex } from '../hash.js';
import type { Mirror } from '../db/mirror.js';
import { ADD_AT_ONCE, BooksStore, type ImportSession } from './store.js';

/** The longest line (CSV record or JSON line) a books file may hold; a longer one is rejected, not read whole. */
export const MAX_LINE_BYTES = 1024 * 1024;

/** One problem with a file: where, and why. */
export interface BooksProblem {
  file: string;
  line: number;
  reason: string;
}

/** A books file the night could not import, and why. */
export interface BooksFailure {
  file: string;
  reason: string;
}

/** The books files of a folder: those to import, and those whose map could not be read. */
export interface BooksFolder {
  files: BooksFile[];
  failed: BooksFailure[];
}

export interface ImportResult {
  file: string;
  kind: BooksKind;
  /** The file's version in the mirror; null when nothing was imported. */
  fileId: number | null;
  /** The same bytes were imported before: nothing to do. */
  unchanged: boolean;
  /** The source whose newest version holds these very bytes under another name: not imported twice. Null otherwise. */
  duplicateOf: string | null;
  rowsRead: number;
  rowsAdded: number;
  rowsWithdrawn: number;
  /**
   * Rows of earlier versions older than this version's first row that it no longer holds: aged
   * out of a rolling export's window (the last N days), kept, never withdrawn (`--replace`
   * withdraws them too).
   */
  rowsAgedOut: number;
  /** The file's physical lines (header included): the rows read are counted against them. */
  lines: number;
  problems: BooksProblem[];
  /**
   * Why the file's rows that landed are not all its rows (a quote never closed hid the rest, or
   * more than REJECTED_SHARE_LIMIT of its rows were rejected): the night's matching is not
   * complete. Null when the file was read whole.
   */
  incomplete: string | null;
}

/** The share of a file's rows that may be rejected before the night's matching counts as incomplete. */
export const REJECTED_SHARE_LIMIT = 0.01;

export interface ImportOptions {
  kind: BooksKind;
  map?: BooksMap;
  /** When the import happened, from the job's clock. */
  nowMs: number;
  /** The operator's stop: the file's transaction rolls back (it lands whole or not at all) and its reason is thrown. */
  signal?: AbortSignal;
  /**
   * What the file is a version of (default: its name, the path relative to the books folder).
   * A new version replaces the previous one of the same source.
   */
  source?: string;
  /** Let a version withdraw most of the previous one (default: refused, as another period's file would). */
  replace?: boolean;
  /** The largest file read (default LEDGER_RECON_MAX_BOOKS_MB, 1024 MB): a larger one is refused before a byte is read, the lock not held for it. */
  maxBytes?: number;
}

const MB = 1024 * 1024;

/** LEDGER_RECON_MAX_BOOKS_MB (whole megabytes, default 1024), in bytes. @throws ConfigError for another value. */
export function maxBooksBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['LEDGER_RECON_MAX_BOOKS_MB']?.trim();
  if (raw === undefined || raw === '') return 1024 * MB;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1)
    throw new ConfigError(
      'LEDGER_RECON_MAX_BOOKS_MB',
      `LEDGER_RECON_MAX_BOOKS_MB is ${shownValue(raw)}: it must be whole megabytes, at least 1`,
    );
  return Number(raw) * MB;
}

/** The longest reason a problem line carries: a hostile map or row cannot fill stderr. */
const MAX_REASON = 300;

/** A row read from the file, or a problem on a line. */
type Read =
  | { line: number; fields: Record<string, unknown> }
  | { line: number; problem: string; raw: string | null; fileLevel?: true; cutShort?: true; refuse?: true };

/**
 * Imports `path` as books of `options.kind`.
 * @returns what was read, added and withdrawn, and every problem (file and line); a file of
 *   which no row could be imported is not recorded at all (`fileId` null).
 * @throws FileSystemError when the file cannot be read.
 */
export async function importBooksFile(mirror: Mirror, path: string, options: ImportOptions): Promise<ImportResult> {
  const kind = options.kind;
  const map = options.map ?? defaultMap();
  const source = options.source ?? basename(path);
  const result: ImportResult = {
    file: path,
    kind,
    fileId: null,
    unchanged: false,
    duplicateOf: null,
    rowsRead: 0,
    rowsAdded: 0,
    rowsWithdrawn: 0,
    rowsAgedOut: 0,
    lines: 0,
    problems: [],
    incomplete: null,
  };
  // A FIFO or a device (`/dev/zero` behind a symlink) is refused before a byte is read: it would hang the night with the lock held.
  const fd = openRegularFile(path, '', 'books are read from a regular file (an export written to disk)');
  const maxBytes = options.maxBytes ?? maxBooksBytes();
  const size = fstatSync(fd).size;
  if (size > maxBytes) {
    closeSync(fd);
    throw new BooksImportError(
      `${path}: ${(size / MB).toFixed(0)} MB, more than the ${(maxBytes / MB).toFixed(0)} MB a books file may be (LEDGER_RECON_MAX_BOOKS_MB): is it the right file? Split the export by period, or raise the limit`,
    );
  }
  try {
    return await importOpenFile(new BooksStore(mirror), fd, path, source, map, options, result);
  } finally {
    closeSync(fd);
  }
}

/** A row that could not be imported: its line, why, and what it held. */
type Rejection = { line: number; reason: string; raw: string | null };

/** Thrown inside the import's transaction to roll it back when the file is refused: the rows rejected say why. */
const REFUSED = new Error('the file is refused');

async function importOpenFile(
  store: BooksStore,
  fd: number,
  path: string,
  source: string,
  map: BooksMap,
  options: ImportOptions,
  result: ImportResult,
): Promise<ImportResult> {
  const kind = options.kind;
  // The bytes parsed are hashed as they are read: a file rewritten between the hash and the
  // parse would otherwise be recorded under the whole file's hash with part of its rows.
  const parsed = createHash('sha256');
  const open = (): Readable =>
    decoded(hashing(createReadStream('', { fd, start: 0, autoClose: false }), parsed), map.encoding);
  const digest = await fileSha256(createReadStream('', { fd, start: 0, autoClose: false }), path);
  const known = await store.knownFile(kind, source, digest);
  if (known !== undefined) return { ...result, fileId: known, unchanged: true };
  // The same export under another name (a renamed file) is not imported twice, unless --source or --replace says what it is.
  const elsewhere =
    options.source === undefined && !options.replace ? await store.knownFileElsewhere(kind, source, digest) : undefined;
  if (elsewhere !== undefined) return { ...result, duplicateOf: elsewhere };

  const format = map.format ?? (/\.(jsonl|ndjson)$/i.test(path) ? 'jsonl' : 'csv');
  const shape: CsvShape = { lines: 0, openQuoteLine: null };
  const rows = format === 'csv' ? csvRows(open(), map, kind, shape) : jsonLines(open(), shape);
  const { nowMs } = options;
  const rejections: Rejection[] = [];
  // One transaction across the file's reads (the connection is this process's alone while it
  // imports): a failure anywhere, or a file refused, leaves the mirror as it was.
  try {
    return await store.importing(async (session) => {
      const fileId = await session.file({ kind, source, path, sha256: digest, imported_at_ms: nowMs });
      const adder = rowAdder(session, kind, source, fileId, result);
      const { accepted, firstAtMs, cutShort } = await addRows(
        rows,
        kind,
        map,
        adder,
        rejections,
        result,
        options.signal,
      );
      await adder.flush();
      if (parsed.digest('hex') !== digest) {
        throw new BooksImportError(
          `${path}: the file changed while it was read (its bytes are not those it held when the import began): nothing of it was imported; import it again once its writer has finished`,
        );
      }
      result.problems = rejections
        .map((r) => ({ file: path, line: r.line, reason: r.reason }))
        .sort((a, b) => a.line - b.line);
      result.lines = shape.lines;
      const rejected = rejections.length - (cutShort === null ? 0 : 1);
      if (cutShort !== null) result.incomplete = cutShort;
      else if (rejected > result.rowsRead * REJECTED_SHARE_LIMIT) {
        result.incomplete = `${rejected.toLocaleString('en-US')} of its ${result.rowsRead.toLocaleString('en-US')} rows rejected (more than ${REJECTED_SHARE_LIMIT * 100} %)`;
      }
      // A file of a header alone (a quiet day) is a version of zero rows; one whose every row was
      // rejected is not imported at all.
      if (accepted === 0 && (result.problems.length > 0 || result.rowsRead > 0)) throw REFUSED;
      const live = await session.held(kind, source, fileId);
      // Rows before this version's first row aged out of a rolling export (the last N days): they
      // stay, with their breaks. --replace says the version replaces every earlier row.
      const fromMs = options.replace || accepted === 0 ? Number.MIN_SAFE_INTEGER : firstAtMs;
      const unclaimed = await session.withdrawUnclaimed(kind, source, fileId, fromMs);
      result.rowsWithdrawn = unclaimed.withdrawn;
      result.rowsAgedOut = unclaimed.agedOut;
      // Another period's file under the same name would withdraw this one's books and their breaks with them.
      if (!options.replace && result.rowsWithdrawn >= 2 && result.rowsWithdrawn * 2 > live) {
        throw new BooksImportError(
          `${path}: this version of ${source} would withdraw ${result.rowsWithdrawn.toLocaleString('en-US')} of the ${live.toLocaleString('en-US')} rows its previous version holds: is it another period's file? Import it as a source of its own (books import --source NAME) or, if it does replace them, with books import --replace`,
        );
      }
      for (const r of rejections) await session.reject(fileId, r.line, r.reason, r.raw);
      await session.counts(fileId, {
        read: result.rowsRead,
        added: result.rowsAdded,
        withdrawn: result.rowsWithdrawn,
        rejected: rejections.length,
      });
      result.fileId = fileId;
      return result;
    });
  } catch (error) {
    if (error !== REFUSED) throw error;
    result.problems = rejections
      .map((r) => ({ file: path, line: r.line, reason: r.reason }))
      .sort((a, b) => a.line - b.line);
    return result;
  }
}

/** Reads the file's rows into the version, the rows that cannot be read into `rejections`. */
async function addRows(
  rows: AsyncIterable<Read>,
  kind: BooksKind,
  map: BooksMap,
  adder: ReturnType<typeof rowAdder>,
  rejections: Rejection[],
  result: ImportResult,
  signal: AbortSignal | undefined,
): Promise<{ accepted: number; firstAtMs: number; cutShort: string | null }> {
  let accepted = 0;
  // The version's first row: a rolling export's window starts there.
  let firstAtMs = Number.MAX_SAFE_INTEGER;
  let cutShort: string | null = null;
  for await (const read of rows) {
    signal?.throwIfAborted();
    // A row that could not be read is a row read, and rejected; a problem of the whole file is not a row.
    if (!('problem' in read && read.fileLevel)) result.rowsRead += 1;
    if ('problem' in read) {
      rejections.push({ line: read.line, reason: bounded(read.problem), raw: read.raw });
      if (read.refuse) throw REFUSED;
      if (read.cutShort) cutShort = read.problem;
      continue;
    }
    const parsed = readBooksRow(kind, map, read.fields, read.line);
    if (!parsed.ok) {
      rejections.push({ line: read.line, reason: bounded(parsed.reason), raw: parsed.raw.slice(0, 2_000) });
      continue;
    }
    if (parsed.row.atMs < firstAtMs) firstAtMs = parsed.row.atMs;
    await adder.add(parsed.row);
    accepted += 1;
  }
  return { accepted, firstAtMs, cutShort };
}

/** Adds a version's rows, a batch at a time, each under its identity (see the comments within). */
function rowAdder(session: ImportSession, kind: BooksKind, source: string, fileId: number, result: ImportResult) {
  // Equal rows of one file are told apart by their order: the second of two equal payments is
  // a row of its own, its identity that of the meaning's second occurrence. The mirror says
  // whether a meaning's first occurrence is this version's already; only meanings met more
  // than once are counted in memory (a 12-byte key each), so each row costs a bounded number
  // of statements however many equal rows precede it, and a file of distinct rows no memory.
  const repeats = new Map<string, number>();
  // Rows are added a batch at a time (one statement a batch on a server). A first occurrence
  // not added then goes, in the file's order, the way it would alone: its identity is held by
  // an earlier version (the row is kept in this one) or by this version already (the row is a
  // later occurrence, added or kept under that occurrence's identity). A meaning this version
  // has met more than once needs no asking: the row is its next occurrence (a promo code used
  // all day is one statement a batch, not three).
  let firsts: Array<{ row: BooksRow; identity: string }> = [];
  let occurrences: Array<{ row: BooksRow; identity: string }> = [];
  const meaningKey = (row: BooksRow): string => Buffer.from(row.meaning.slice(0, 24), 'hex').toString('latin1');
  const nextOccurrence = (row: BooksRow, key: string): void => {
    const occurrence = (repeats.get(key) ?? 1) + 1;
    repeats.set(key, occurrence);
    occurrences.push({ row, identity: identityOf(kind, source, row.meaning, occurrence) });
  };
  const flush = async (): Promise<void> => {
    const added = await session.addAll(firsts, source, fileId);
    const notAdded = firsts.filter((_, i) => !added[i]);
    result.rowsAdded += firsts.length - notAdded.length;
    const claims = await session.claimedBy([...new Set(notAdded.map(({ identity }) => identity))]);
    for (const { row, identity: first } of notAdded) {
      if (claims.get(first) !== fileId) {
        session.keep(fileId, row.lineNo, first);
        claims.set(first, fileId);
      } else nextOccurrence(row, meaningKey(row));
    }
    const addedLater = await session.addAll(occurrences, source, fileId);
    for (const [i, { row, identity }] of occurrences.entries()) {
      if (addedLater[i]) result.rowsAdded += 1;
      else session.keep(fileId, row.lineNo, identity);
    }
    firsts = [];
    occurrences = [];
  };
  return {
    add: async (row: BooksRow): Promise<void> => {
      // A file of distinct rows has met no meaning twice: no key to build.
      const key = repeats.size > 0 ? meaningKey(row) : undefined;
      if (key !== undefined && repeats.has(key)) nextOccurrence(row, key);
      else firsts.push({ row, identity: identityOf(kind, source, row.meaning, 1) });
      if (firsts.length + occurrences.length === ADD_AT_ONCE) await flush();
    },
    flush,
  };
}

/** A reason cut to MAX_REASON characters. */
function bounded(reason: string): string {
  return reason.length <= MAX_REASON ? reason : `${reason.slice(0, MAX_REASON - 1)}…`;
}

/**
 * A row's identity in the mirror: its kind, its file's name, what it means and which of the
 * file's equal rows it is, hashed (128 bits: a short key keeps a million-row import's index in
 * memory). The same row in a later version of the file has the same identity.
 */
function identityOf(kind: BooksKind, source: string, meaning: string, occurrence: number): string {
  return sha256Hex(`${kind}\u0000${source}\u0000${meaning}\u0000${occurrence}`).slice(0, 32);
}

async function fileSha256(stream: Readable, path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of stream) hash.update(chunk as Buffer);
  } catch (error) {
    throw new FileSystemError(
      `${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  return hash.digest('hex');
}

/** A CSV file's records as objects keyed by its header; a bad record is a problem on its line, the rest read on. */
async function* csvRows(file: Readable, map: BooksMap, kind: BooksKind, shape: CsvShape): AsyncGenerator<Read> {
  let headerProblem: string | null = null;
  const oversized: Read[] = [];
  const tooLong = (first: number, last: number): void => {
    oversized.push({
      line: first,
      problem: `a record longer than ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes${last > first ? ` (lines ${first} to ${last})` : ''}`,
      raw: null,
    });
  };
  const scanner = capRecords(MAX_LINE_BYTES, map.delimiter, tooLong, shape);
  const parser = file.pipe(scanner).pipe(
    parse({
      bom: true,
      delimiter: map.delimiter,
      info: true,
      skip_records_with_error: true,
      skip_empty_lines: true,
      columns: (header: string[]) => {
        const names = header.map((h) => h.trim());
        const missing = missingColumns(kind, map, names);
        const code = unmappedCodeColumn(kind, map, names);
        if (missing.length > 0)
          headerProblem = `the file has no column ${missing.map((field) => `"${map.columns[field]}" (${field})`).join(', ')}: is it ${kind} as CSV, and does the map name its columns?`;
        else if (code !== undefined)
          headerProblem = `the column "${code}" looks like a code column the map does not read: name it in the map (columns.${kind === 'tenders' ? 'cardCode' : 'couponCode'}) so its codes are hashed and matched`;
        return names;
      },
    }),
  );
  // A fault upstream (a text that is not in the file's encoding) ends the parse with its reason.
  for (const stage of [file, scanner]) stage.on('error', (error) => parser.destroy(error));
  const skipped: Read[] = [];
  let lastSkipped = -1;
  parser.on('skip', (error: Error & { code?: string; lines?: number }) => {
    // A quote never closed swallows the rest of the file: the rows it hides are named, and the night is not complete.
    if (error.code === 'CSV_QUOTE_NOT_CLOSED') return;
    // One record, one problem: the parser may find a second fault in a record it rejected.
    const line = error.lines ?? 0;
    if (line === lastSkipped) return;
    lastSkipped = line;
    skipped.push({ line, problem: csvReason(error), raw: null });
  });
  try {
    for await (const item of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      if (headerProblem !== null) break;
      yield* skipped.splice(0);
      yield { line: item.info.lines, fields: item.record };
    }
  } catch (error) {
    if (error instanceof EncodingProblem)
      yield { line: error.line, problem: error.message, raw: null, fileLevel: true, refuse: true };
    else
      yield {
        line: (error as { lines?: number }).lines ?? 1,
        problem: `the file cannot be read as CSV: ${csvReason(error as Error)}`,
        raw: null,
        fileLevel: true,
      };
    return;
  } finally {
    parser.destroy();
  }
  // A file without the columns is one problem, not one per row.
  if (headerProblem !== null) {
    yield { line: 1, problem: headerProblem, raw: null, fileLevel: true };
    return;
  }
  yield* [...skipped.splice(0), ...oversized];
  if (shape.openQuoteLine !== null) {
    const from = shape.openQuoteLine;
    yield {
      line: from,
      problem: `a quote opens on line ${from} and never closes: ${from === shape.lines ? `line ${from} was` : `lines ${from} to ${shape.lines} (${(shape.lines - from + 1).toLocaleString('en-US')} lines) were`} not read`,
      raw: null,
      fileLevel: true,
      cutShort: true,
    };
  }
}

/**
 * Passes a CSV file's records through, except one longer than `maxBytes`: it is never held
 * whole; only its line breaks go on (so the parser's line numbers stay true), and `oversize` is
 * told the lines it spans. Quotes are followed as csv-parse reads them: a quote opens a field
 * only at the field's start, a doubled quote inside a quoted field is a quote, and a quote
 * closes the field only before a delimiter, a line end or the end of the file (any other quote,
 * `12" card` or `"12\" card"`, is the parser's error on that record alone). CR, LF and CRLF end
 * lines, as the parser finds them.
 */
export function capRecords(
  maxBytes: number,
  delimiter: string,
  oversize: (firstLine: number, lastLine: number) => void,
  shape: CsvShape,
): Transform {
  const cap = new RecordCap(maxBytes, delimiter, oversize, shape);
  const passed = (done: TransformCallback, { data, bad }: { data: Buffer; bad: number | null }): void =>
    done(bad === null ? null : new EncodingProblem(bad), data);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      passed(done, cap.chunk(chunk));
    },
    flush(done) {
      passed(done, cap.end());
    },
  });
}
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** The scanner behind {@link capRecords}: where records and quoted fields begin and end, and what is held. */
class RecordCap {
  #inQuotes = false;
  #quoteSeen = false;
  #fieldStart = true;
  #afterCR = false;
  #atFileStart = true;
  #line = 1;
  #recordLine = 1;
  #quoteLine = 1;
  #lineHasBytes = false;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #dropping = false;
  #lineBreak: Buffer | null = null;
  // The line the next output begins on: output is whole records, so a line is checked whole.
  #outLine = 1;
  readonly #maxBytes: number;
  readonly #delimiter: number;
  readonly #oversize: (firstLine: number, lastLine: number) => void;
  readonly #shape: CsvShape;

  constructor(
    maxBytes: number,
    delimiter: string,
    oversize: (firstLine: number, lastLine: number) => void,
    shape: CsvShape,
  ) {
    this.#maxBytes = maxBytes;
    this.#delimiter = delimiter.charCodeAt(0);
    this.#oversize = oversize;
    this.#shape = shape;
  }

  /** A chunk in, the whole records it completes out (a record too long: its line breaks alone), and the first line not UTF-8. */
  chunk(chunk: Buffer): { data: Buffer; bad: number | null } {
    const out: Buffer[] = [];
    let start = 0;
    if (this.#atFileStart && chunk.length > 0) {
      this.#atFileStart = false;
      // A BOM is the parser's to strip: the first field starts after it.
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        out.push(chunk.subarray(0, 3));
        start = 3;
      }
    }
    for (let i = start; i < chunk.length; i += 1) {
      const byte = chunk[i]!;
      if (this.#quoteSeen) {
        this.#quoteSeen = false;
        if (byte === QUOTE) continue;
        if (byte === this.#delimiter || byte === CR || byte === LF) this.#inQuotes = false;
      }
      const isBreak = byte === CR || (byte === LF && !this.#afterCR);
      const secondOfCRLF = byte === LF && this.#afterCR;
      this.#afterCR = byte === CR;
      if (isBreak) {
        this.#line += 1;
        this.#lineHasBytes = false;
      } else if (!secondOfCRLF) this.#lineHasBytes = true;
      if (this.#inQuotes) {
        if (byte === QUOTE) this.#quoteSeen = true;
      } else if (byte === QUOTE) {
        if (this.#fieldStart) {
          this.#inQuotes = true;
          this.#quoteLine = this.#line;
        }
        this.#fieldStart = false;
      } else if (byte === this.#delimiter) this.#fieldStart = true;
      else if (isBreak || secondOfCRLF) {
        this.#fieldStart = true;
        if (this.#lineBreak === null && isBreak)
          this.#lineBreak = byte === CR && chunk[i + 1] === LF ? Buffer.from('\r\n') : Buffer.from([byte]);
        if (this.#dropping) {
          // The record's own line end goes on as written (its LF follows a CR by itself).
          out.push(chunk.subarray(i, i + 1));
          this.#oversize(this.#recordLine, this.#line - 1);
        } else out.push(...this.#pending, chunk.subarray(start, i + 1));
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#dropping = false;
        this.#recordLine = this.#line;
        start = i + 1;
        continue;
      } else this.#fieldStart = false;
      if (this.#dropping) {
        // A line break inside the dropped record's quotes: the parser still counts the line.
        if (isBreak) out.push(this.#lineBreak ?? NEWLINE);
        start = i + 1;
        continue;
      }
      if (this.#pendingBytes + (i + 1 - start) > this.#maxBytes) {
        // Too long: what was held goes, but its line breaks.
        for (let n = this.#recordLine; n < this.#line; n += 1) out.push(this.#lineBreak ?? NEWLINE);
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#dropping = true;
        start = i + 1;
      }
    }
    if (!this.#dropping && start < chunk.length) {
      this.#pending.push(chunk.subarray(start));
      this.#pendingBytes += chunk.length - start;
    }
    const data = Buffer.concat(out);
    const bad = firstLineNotUtf8(data, this.#outLine);
    this.#outLine = this.#recordLine;
    return { data, bad };
  }

  /** The end of the file: what is held, and the file's shape. */
  end(): { data: Buffer; bad: number | null } {
    if (this.#quoteSeen) this.#inQuotes = false;
    this.#shape.lines = this.#lineHasBytes ? this.#line : this.#line - 1;
    this.#shape.openQuoteLine = this.#inQuotes ? this.#quoteLine : null;
    if (this.#dropping) this.#oversize(this.#recordLine, this.#shape.lines);
    const data = this.#dropping ? Buffer.alloc(0) : Buffer.concat(this.#pending);
    const bad = firstLineNotUtf8(data, this.#outLine);
    return { data, bad };
  }
}

const NEWLINE = Buffer.from('\n');

/**
 * The first line of `data` (whole lines, the first numbered `firstLine`) that is not UTF-8, or
 * null. A line break byte never occurs inside a UTF-8 sequence, so lines are checked apart.
 */
function firstLineNotUtf8(data: Buffer, firstLine: number): number | null {
  if (isUtf8(data)) return null;
  let line = firstLine;
  let start = 0;
  for (let i = 0; i <= data.length; i += 1) {
    const byte = data[i];
    if (i < data.length && byte !== 0x0a && byte !== 0x0d) continue;
    if (!isUtf8(data.subarray(start, i))) return line;
    if (byte === 0x0d && data[i + 1] === 0x0a) i += 1;
    line += 1;
    start = i + 1;
  }
  return line;
}

function csvReason(error: Error & { code?: string }): string {
  const fields = /columns length is (\d+), got (\d+)/.exec(error.message);
  if (fields) return `${fields[2]} fields where the header has ${fields[1]}`;
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') return 'a quote is opened and never closed: the file was not read past it';
  const field = /on field "([^"]+)"/.exec(error.message)?.[1];
  if (error.code === 'INVALID_OPENING_QUOTE')
    return `a quote inside the unquoted field${field ? ` "${field}"` : ''}: a field holding quotes must be quoted, its quotes doubled ("12"" card")`;
  if (error.code === 'CSV_INVALID_CLOSING_QUOTE')
    return 'a quote inside a quoted field is not doubled (a backslash does not escape it: write "12"" card")';
  // csv-parse quotes the field it stopped at ("…, value is \"…\""): it may be a card's code, which goes no further.
  return error.message
    .replace(/^Invalid Record Length: /, '')
    .split('\n')[0]!
    .replace(/, value is .*$/, '');
}

/** JSON Lines: one object a line; a line longer than MAX_LINE_BYTES is skipped unread. */
async function* jsonLines(file: Readable, shape: CsvShape): AsyncGenerator<Read> {
  let line = 0;
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  const finish = (): Read | null => {
    line += 1;
    const bytes = Buffer.concat(parts);
    parts = [];
    size = 0;
    if (tooLong) {
      tooLong = false;
      return { line, problem: `a line longer than ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes`, raw: null };
    }
    if (!isUtf8(bytes)) return { line, problem: notUtf8(line), raw: null, fileLevel: true, refuse: true };
    const text = bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim();
    if (text === '') return null;
    try {
      const value: unknown = JSON.parse(text);
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        return { line, problem: 'not a JSON object', raw: null };
      return { line, fields: value as Record<string, unknown> };
    } catch {
      return { line, problem: 'not JSON', raw: null };
    }
  };
  try {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      let start = 0;
      for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, start)) {
        if (!tooLong) parts.push(chunk.subarray(start, at));
        const read = finish();
        if (read) yield read;
        start = at + 1;
      }
      if (start < chunk.length && !tooLong) {
        size += chunk.length - start;
        if (size > MAX_LINE_BYTES) {
          tooLong = true;
          parts = [];
        } else parts.push(chunk.subarray(start));
      }
    }
  } catch (error) {
    if (!(error instanceof EncodingProblem)) throw error;
    yield { line: error.line, problem: error.message, raw: null, fileLevel: true, refuse: true };
    return;
  }
  if (size > 0 || tooLong || parts.length > 0) {
    const read = finish();
    if (read) yield read;
  }
  shape.lines = line;
}

/** Why a file that is not UTF-8 text is refused, with the line and the map's setting that reads it. */
function notUtf8(line: number): string {
  return `line ${line} is not UTF-8 text: if the file is written in another encoding, name it in the map ("encoding": "windows-1252", "iso-8859-1" or "utf-16le"); nothing of the file was imported`;
}

/** A byte sequence the file's encoding does not allow, on a line. */
class EncodingProblem extends Error {
  constructor(readonly line: number) {
    super(notUtf8(line));
  }
}

/**
 * The file as UTF-8: read as written for UTF-8 (checked byte by byte by the record scanner),
 * else decoded from the map's encoding.
 */
/** The file's bytes as they pass, added to `hash`. */
function hashing(file: Readable, hash: Hash): Readable {
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  file.on('error', (error) => tap.destroy(error));
  // A reader that stops early (a refused file, a failed import) stops the file's reads too (not
  // destroyed: that would close the descriptor its opener closes); a read still in flight when
  // the descriptor closes fails into the listener above.
  tap.on('close', () => {
    file.unpipe(tap);
    file.pause();
  });
  return file.pipe(tap);
}

function decoded(file: Readable, encoding: BooksEncoding): Readable {
  if (encoding === 'utf-8') return file;
  const decoder = new TextDecoder(encoding);
  const transcoder = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      done(null, Buffer.from(decoder.decode(chunk, { stream: true }), 'utf8'));
    },
    flush(done) {
      done(null, Buffer.from(decoder.decode(), 'utf8'));
    },
  });
  file.on('error', (error) => transcoder.destroy(error));
  return file.pipe(transcoder);
}

/**
 * What the record scanner saw of a CSV file: its physical lines, and where a quote was left open.
 */
export interface CsvShape {
  /** Physical lines (a CR, an LF or a CRLF ends one; a last line without a break counts). */
  lines: number;
  /** The line a quote opened on that never closed, or null. */
  openQuoteLine: number | null;
}

/** A books file to import: its kind, and the map that reads it. */
export interface BooksFile {
  path: string;
  kind: BooksKind;
  map: BooksMap;
}

/** The kind a file's name says it holds (`tenders-2026-10.csv`), if any. */
export function kindOfName(path: string): BooksKind | undefined {
  const name = basename(path).toLowerCase();
  return BOOKS_KINDS.find((kind) => name.startsWith(kind));
}

/** The map beside a file (`<kind>.map.json` in its folder), or the default map when there is none. */
export function mapBeside(path: string, kind: BooksKind): BooksMap {
  const mapPath = join(dirname(path), `${kind}.map.json`);
  return existsSync(mapPath) ? readMap(mapPath) : defaultMap();
}

/**
 * The books files a folder holds, in name order: `<kind>[-anything].csv|jsonl|ndjson`, each read
 * with `<kind>.map.json` when the folder has one.
 * A folder that holds no books file is named in `failed`, for the night to say so.
 * @throws ConfigError when the folder cannot be read.
 */
export function booksFilesIn(folder: string): BooksFolder {
  let names: string[];
  if (existsSync(folder) && !statSync(folder).isDirectory()) {
    throw new ConfigError(
      '--books',
      `--books ${folder}: a file, where --books takes the folder of exports; import one file with \`ledger-recon books import ${folder}\``,
    );
  }
  try {
    names = readdirSync(folder).sort();
  } catch (error) {
    throw new ConfigError(
      '--books',
      `--books ${folder}: not a folder that can be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const files: BooksFile[] = [];
  const failed: BooksFailure[] = [];
  for (const name of names) {
    const path = join(folder, name);
    const kind = /\.(csv|jsonl|ndjson)$/i.test(name) ? kindOfName(path) : undefined;
    if (!kind) continue;
    // A map that cannot be read fails its file, not the night: the services are still checked.
    try {
      files.push({ path, kind, map: mapBeside(path, kind) });
    } catch (error) {
      if (!(error instanceof ConfigError) && !(error instanceof FileSystemError)) throw error;
      failed.push({ file: path, reason: error.message });
    }
  }
  // An export that did not arrive (an empty folder, sub-folders only) is the books' failure, not
  // the night's: the services are still synced and checked, and the night is INCOMPLETE, naming it.
  if (files.length === 0 && failed.length === 0)
    failed.push({
      file: folder,
      reason:
        'no books file in it (tenders*.csv, coupon-uses*.csv, dp-purchases*.csv, or .jsonl): did the export arrive?',
    });
  return { files, failed };
}
