/**
 * What an investigator and the doctor ask of the mirror directly: one read-only statement of
 * their own, its integrity, its schema version. SQLite's: a second backend answers the same.
 */
import { MirrorError } from '../../errors.js';
import type { Mirror } from './open.js';
import { schemaVersion } from './open.js';
import { untypedRows } from './statement.js';

/** An investigator's statement's result: its columns and rows, integers as BigInt (none past 2^53 loses a digit). */
export interface StatementResult {
  columns: string[];
  rows: Record<string, unknown>[];
}

/**
 * Runs one statement that only reads. @throws MirrorError when it does not parse, is several
 * statements, would write, or fails.
 */
export async function runReadOnlyStatement(mirror: Mirror, text: string): Promise<StatementResult> {
  let prepared;
  try {
    prepared = mirror.sqlite.prepare(text);
  } catch (error) {
    throw new MirrorError(`the statement was refused: ${(error as Error).message}`);
  }
  if (!prepared.reader || !prepared.readonly) throw new MirrorError('ledger-recon sql only reads: this statement would change the mirror, and was not run');
  let rows: Record<string, unknown>[];
  try {
    rows = untypedRows(prepared.safeIntegers(true));
  } catch (error) {
    throw new MirrorError(`the statement failed: ${(error as Error).message}`);
  }
  return { columns: prepared.columns().map((c) => c.name), rows };
}

/** The mirror's own integrity check (quick): 'ok', or what it found. */
export async function integrityOf(mirror: Mirror): Promise<string> {
  return String(mirror.sqlite.pragma('quick_check', { simple: true }));
}

/** The migrations the mirror has applied, and the number this version knows. */
export async function schemaOf(mirror: Mirror): Promise<{ applied: number; known: number }> {
  return schemaVersion(mirror.sqlite);
}
