/**
 * What an investigator asks of a SQLite mirror directly: one read-only statement of their own.
 * (A second backend answers the same through its own Mirror.readOnlyStatement.)
 */
import type Database from 'better-sqlite3';
import { MirrorError } from '../../errors.js';
import { SEVERAL_STATEMENTS, type StatementResult } from '../types.js';
import { untypedRows } from './statement.js';

/**
 * Runs one statement that only reads. @throws MirrorError when it does not parse, is several
 * statements, would write, or fails.
 */
export async function runReadOnlyStatement(sqlite: Database.Database, text: string): Promise<StatementResult> {
  let prepared;
  try {
    prepared = sqlite.prepare(text);
  } catch (error) {
    if (/more than one statement/.test((error as Error).message)) throw new MirrorError(SEVERAL_STATEMENTS);
    throw new MirrorError(`the statement was refused: ${(error as Error).message}`);
  }
  if (!prepared.reader || !prepared.readonly)
    throw new MirrorError('this statement would change the mirror, and `sql` only reads: it was not run');
  let rows: Record<string, unknown>[];
  try {
    rows = untypedRows(prepared.safeIntegers(true));
  } catch (error) {
    throw new MirrorError(`the statement failed: ${(error as Error).message}`);
  }
  return { columns: prepared.columns().map((c) => c.name), rows };
}
