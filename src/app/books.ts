import { existsSync, statSync } from 'node:fs';
import { BOOKS_KINDS, type BooksKind, readMap } from '../books/books-map.js';
import type { BooksFailure, BooksFile, BooksFolder, ImportResult } from '../books/import-books.js';
import { importBooksFile, kindOfName, mapBeside } from '../books/import-books.js';
import { openForWriting } from '../db/mirror.js';
import type { JobContext } from './context.js';
import { BooksImportError, ConfigError, InterruptedError, LedgerReconError } from '../errors.js';
import { oneLine } from '../log.js';

/** What the night's JSON record says of the books it imported. */
export interface BooksFigures {
  files: number;
  unchanged: number;
  /** Files of a header alone (a quiet day): imported as versions of zero rows. */
  empty: number;
  rowsAdded: number;
  rowsWithdrawn: number;
  rowsRejected: number;
  /** Files the night could not import (their map, or every row, failed): the matching is not complete. */
  failed: BooksFailure[];
}

/**
 * The night's books (`run --books`): every file it can import is imported; one it cannot is
 * named with why, and the night goes on: the services are synced, checked and reported, and
 * the night is INCOMPLETE because its matching is.
 */
export async function importBooksForNight(
  context: Pick<JobContext, 'mirror' | 'clock' | 'signal' | 'sink'>,
  folder: BooksFolder,
): Promise<BooksFigures> {
  const problem = (text: string): void => context.sink.note(text);
  const results: ImportResult[] = [];
  const failed: BooksFailure[] = [...folder.failed];
  for (const file of folder.files) {
    try {
      const result = await importFile(context, file);
      // The same export under another name is said once and counted once: its rows are in already.
      if (result.duplicateOf !== null) problem(`${describeImport(result)}\n`);
      else if (result.fileId === null)
        failed.push({
          file: file.path,
          reason: `no row could be imported (${result.problems.length} ${result.problems.length === 1 ? 'problem' : 'problems'}; the first, line ${result.problems[0]?.line}: ${result.problems[0]?.reason})`,
        });
      else {
        results.push(result);
        // What landed is matched; what the file hid or lost makes the matching incomplete, named.
        if (result.incomplete !== null) failed.push({ file: file.path, reason: result.incomplete });
      }
    } catch (error) {
      // The operator's stop ends the night; any other failure is this file's alone.
      if (!(error instanceof LedgerReconError) || error instanceof InterruptedError) throw error;
      failed.push({ file: file.path, reason: error.message });
    }
  }
  return { ...booksFigures(results), failed };
}

/** One line per file: what was read, new, withdrawn and rejected. */
export function describeImport(r: ImportResult): string {
  return oneLine(importLine(r));
}

function importLine(r: ImportResult): string {
  const n = (value: number): string => value.toLocaleString('en-US');
  if (r.unchanged) return `${r.file}: ${r.kind}, unchanged since imported: nothing added`;
  if (r.duplicateOf !== null)
    return `${r.file}: ${r.kind}, the same bytes as ${r.duplicateOf}, imported already: not imported twice (--source NAME imports it as a version of NAME)`;
  if (r.fileId === null)
    return `${r.file}: ${r.kind}, nothing imported (${n(r.problems.length)} problem${r.problems.length === 1 ? '' : 's'})`;
  if (r.rowsRead === 0)
    return `${r.file}: ${r.kind}, no rows (a header alone: a quiet day): imported as a version of 0 rows, ${n(r.rowsWithdrawn)} withdrawn`;
  // Rows are counted against the file's lines: a file whose rows end early says so.
  const lines = r.lines > r.rowsRead + 1 ? ` from ${n(r.lines)} lines` : '';
  const incomplete = r.incomplete === null ? '' : `; not complete: ${r.incomplete}`;
  // Rows a rolling export no longer holds because they are older than its window stay, and are counted apart.
  const agedOut =
    r.rowsAgedOut > 0
      ? ` (${n(r.rowsAgedOut)} older than this version's first row kept: aged out of the export's window)`
      : '';
  return `${r.file}: ${r.kind}, ${n(r.rowsRead)} rows read${lines}: ${n(r.rowsAdded)} new, ${n(r.rowsWithdrawn)} withdrawn${agedOut}, ${n(r.problems.length)} rejected${incomplete}`;
}

export function booksFigures(results: readonly ImportResult[]): BooksFigures {
  return {
    files: results.length,
    unchanged: results.filter((r) => r.unchanged).length,
    empty: results.filter((r) => !r.unchanged && r.rowsRead === 0).length,
    failed: [],
    rowsAdded: results.reduce((n, r) => n + r.rowsAdded, 0),
    rowsWithdrawn: results.reduce((n, r) => n + r.rowsWithdrawn, 0),
    rowsRejected: results.reduce((n, r) => n + r.problems.length, 0),
  };
}

/**
 * `ledger-recon books import`'s job: files imported in order into the mirror (the caller holds its
 * lock), each problem a note of its own; `versions` names what a file is a version of.
 * @throws BooksImportError when nothing could be imported.
 */
export async function importBooks(
  context: Pick<JobContext, 'mirror' | 'clock' | 'signal' | 'sink'>,
  files: readonly BooksFile[],
  versions: { source?: string; replace?: boolean } = {},
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const file of files) results.push(await importFile(context, file, versions));
  if (results.every((r) => r.fileId === null && r.duplicateOf === null)) {
    const problems = results.reduce((n, r) => n + r.problems.length, 0);
    throw new BooksImportError(
      `nothing could be imported from ${files.map((f) => f.path).join(', ')}: ${problems === 1 ? 'the problem on the line above' : `${problems} problems, each on a line above`}`,
    );
  }
  return results;
}

/** One file imported at the context's clock, each of its problems a note of its own. */
async function importFile(
  context: Pick<JobContext, 'mirror' | 'clock' | 'signal' | 'sink'>,
  file: BooksFile,
  versions: { source?: string; replace?: boolean } = {},
): Promise<ImportResult> {
  const result = await importBooksFile(context.mirror, file.path, {
    kind: file.kind,
    map: file.map,
    nowMs: context.clock.now(),
    signal: context.signal,
    ...versions,
  });
  for (const p of result.problems) context.sink.note(`${oneLine(`${p.file}:${p.line}: ${p.reason}`)}\n`);
  return result;
}

/** What `books import` is told of its files: their kind and map (else by name and beside each), and what one is a version of. */
export interface BooksImportSettings {
  kind?: BooksKind | undefined;
  map?: string | undefined;
  source?: string | undefined;
  replace?: boolean | undefined;
}

/**
 * The files at `paths` imported into the mirror at `location` under its lock, one transaction
 * per file (`ledger-recon books import`).
 * @throws ConfigError for a --source that is no name or names several files, a path that is no
 * file, or a kind that cannot be told; BooksImportError when nothing could be imported.
 */
export async function importBooksAt(
  location: string,
  context: Pick<JobContext, 'clock' | 'signal' | 'sink'>,
  paths: readonly string[],
  settings: BooksImportSettings = {},
): Promise<ImportResult[]> {
  const { source } = settings;
  if (source !== undefined && (source.trim() === '' || source.length > 200 || oneLine(source) !== source))
    throw new ConfigError(
      '--source',
      `--source names what a file is a version of in at most 200 characters, on one line and not blank: ${JSON.stringify(source.slice(0, 60))}${source.length > 60 ? '…' : ''} is not such a name`,
    );
  if (source !== undefined && paths.length > 1)
    throw new ConfigError(
      '--source',
      `--source names what one file is a version of; ${paths.length} files were given: import them one at a time`,
    );
  const files = paths.map((path) => fileToImport(path, settings));
  const { mirror, release } = await openForWriting(location, 'books import');
  try {
    return await importBooks({ ...context, mirror }, files, {
      ...(source !== undefined ? { source } : {}),
      ...(settings.replace ? { replace: true } : {}),
    });
  } finally {
    await release();
  }
}

/** The kind (given, or the file's name) and map (given, or `<kind>.map.json` beside the file) of a file. */
function fileToImport(path: string, settings: BooksImportSettings): BooksFile {
  if (!existsSync(path)) throw new ConfigError('FILE', `${path}: no such file`);
  if (statSync(path).isDirectory())
    throw new ConfigError(
      'FILE',
      `${path}: a folder, where books import takes files: name its files (ledger-recon books import ${path}/*.csv), or let the nightly run import the folder (ledger-recon run --books ${path})`,
    );
  const kind = settings.kind ?? kindOfName(path);
  if (!kind)
    throw new ConfigError(
      '--kind',
      `${path}: say what it holds with --kind ${BOOKS_KINDS.join('|')} (or name it after its kind, e.g. tenders-2026-10.csv)`,
    );
  return { path, kind, map: settings.map !== undefined ? readMap(settings.map) : mapBeside(path, kind) };
}
