import { queryMirror, type SqlOptions } from '../app/sql.js';
import { terminalWidth } from '../fit-width.js';

/** `ledger-recon sql` (src/app/sql.ts): the rows on stdout, a table fitted to a terminal, CSV otherwise. */
export async function sql(statement: string | undefined, options: Omit<SqlOptions, 'tty' | 'width'>): Promise<void> {
  const tty = process.stdout.isTTY === true;
  const { text } = await queryMirror(statement, { ...options, tty, width: terminalWidth(process.stdout) });
  process.stdout.write(text);
}
