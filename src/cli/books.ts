import { defaultLocations } from '../locations.js';
import { oneLine } from '../log.js';
import { existsSync, statSync } from 'node:fs';
import { BOOKS_KINDS, readMap, type BooksKind } from '../books/books-map.js';
import { kindOfName, mapBeside, type BooksFile, type ImportResult } from '../books/import-books.js';
import { openForWriting } from '../db/mirror.js';
import { ConfigError } from '../errors.js';
import { onInterrupt } from './interrupt.js';
import { describeImport, importBooks } from '../app/books.js';
import { silentProgress, systemClock } from '../app/context.js';

export interface BooksImportOptions {
  kind?: BooksKind;
  map?: string;
  source?: string;
  replace?: boolean;
  db?: string;
  json?: boolean;
  /** No line per file on success: problems still go to stderr. */
  quiet?: boolean;
  write?: (text: string) => void;
  stderr?: (text: string) => void;
}

/**
 * `ledger-recon books import FILE…`: reads the merchant's exports into the mirror, under its
 * lock, one transaction per file. One line per file on stdout; one line per problem
 * (`file:line: reason`) on stderr; matching happens at the next `check` or `run`.
 * @throws BooksImportError (exit 2) when not one row of the files could be imported.
 */
export async function booksImport(paths: string[], options: BooksImportOptions): Promise<ImportResult[]> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  if (
    options.source !== undefined &&
    (options.source.trim() === '' || options.source.length > 200 || oneLine(options.source) !== options.source)
  ) {
    throw new ConfigError(
      '--source',
      `--source names what a file is a version of in at most 200 characters, on one line and not blank: ${JSON.stringify(options.source.slice(0, 60))}${options.source.length > 60 ? '…' : ''} is not such a name`,
    );
  }
  if (options.source !== undefined && paths.length > 1)
    throw new ConfigError(
      '--source',
      `--source names what one file is a version of; ${paths.length} files were given: import them one at a time`,
    );
  const files = paths.map((path) => fileToImport(path, options));
  const { mirror, release } = await openForWriting(options.db ?? defaultLocations().db, 'books import');
  const interruption = onInterrupt(
    'the import stopped; each file lands whole or not at all: run the same import again (the files already in are recognised as unchanged)',
  );
  try {
    const versions = {
      ...(options.source !== undefined ? { source: options.source } : {}),
      ...(options.replace ? { replace: true } : {}),
    };
    const note = options.stderr ?? ((text: string) => process.stderr.write(text));
    const context = {
      mirror,
      clock: systemClock,
      signal: interruption.signal,
      sink: { progress: silentProgress, note },
    };
    const results = await importBooks(context, files, versions);
    if (options.json) write(`${JSON.stringify(results)}\n`);
    else if (!options.quiet) write(results.map((r) => `${describeImport(r)}\n`).join(''));
    return results;
  } finally {
    await release();
    interruption.dispose();
  }
}

/** The kind (flag, or the file's name) and map (flag, or `<kind>.map.json` beside the file) of a file. */
function fileToImport(path: string, options: BooksImportOptions): BooksFile {
  if (!existsSync(path)) throw new ConfigError('FILE', `${path}: no such file`);
  if (statSync(path).isDirectory())
    throw new ConfigError(
      'FILE',
      `${path}: a folder, where books import takes files: name its files (ledger-recon books import ${path}/*.csv), or let the nightly run import the folder (ledger-recon run --books ${path})`,
    );
  const kind = options.kind ?? kindOfName(path);
  if (!kind)
    throw new ConfigError(
      '--kind',
      `${path}: say what it holds with --kind ${BOOKS_KINDS.join('|')} (or name it after its kind, e.g. tenders-2026-10.csv)`,
    );
  return { path, kind, map: options.map !== undefined ? readMap(options.map) : mapBeside(path, kind) };
}
