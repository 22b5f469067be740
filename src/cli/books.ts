import { defaultLocations } from '../locations.js';
import { onInterrupt } from './interrupt.js';
import { describeImport, importBooksAt } from '../app/books.js';
import { silentProgress, systemClock } from '../app/context.js';
import type { declareBooks, FlagsOf } from './declarations.js';

/**
 * `ledger-recon books import FILE…`: reads the merchant's exports into the mirror, under its
 * lock, one transaction per file. One line per file on stdout; one line per problem
 * (`file:line: reason`) on stderr; matching happens at the next `check` or `run`.
 * @throws BooksImportError (exit 2) when not one row of the files could be imported.
 */
export async function booksImport(paths: string[], options: FlagsOf<typeof declareBooks>): Promise<void> {
  const write = (text: string) => process.stdout.write(text);
  const interruption = onInterrupt(
    'the import stopped; each file lands whole or not at all: run the same import again (the files already in are recognised as unchanged)',
  );
  try {
    const note = (text: string) => process.stderr.write(text);
    const results = await importBooksAt(
      options.db ?? defaultLocations().db,
      { clock: systemClock, signal: interruption.signal, sink: { progress: silentProgress, note } },
      paths,
      options,
    );
    if (options.json) write(`${JSON.stringify(results)}\n`);
    else if (!options.quiet) write(results.map((r) => `${describeImport(r)}\n`).join(''));
  } finally {
    interruption.dispose();
  }
}
