import { queryMirror } from '../app/sql.js';
import { ConfigError } from '../errors.js';
import { terminalWidth } from '../fit-width.js';
import type { declareSql, FlagsOf } from './declarations.js';

/** `ledger-recon sql` (src/app/sql.ts): the rows on stdout, a table fitted to a terminal, CSV otherwise. */
export async function sql(words: string[], options: FlagsOf<typeof declareSql>): Promise<void> {
  // `sql select 1` reaches here as two words (and `*` as the shell's file names): one statement, quoted, is asked for.
  if (words.length > 1)
    throw new ConfigError(
      'statement',
      `the statement came as ${words.length} arguments, and sql takes one: put it in quotes, e.g. ledger-recon sql "SELECT count(*) FROM gift_cards"`,
    );
  const tty = process.stdout.isTTY === true;
  const { text } = await queryMirror(words[0], { ...options, tty, width: terminalWidth(process.stdout) });
  process.stdout.write(text);
}
