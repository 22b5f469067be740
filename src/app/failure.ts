/**
 * A job's failure as the one line a person reads and the exit code a scheduler reads: what
 * failed, the value involved (never a secret) and what to do; the stack only when asked for.
 * The CLI prints it; a test asks it of the error a job threw, in its own process.
 */
import { missingTableMessage } from '../db/expected-tables.js';
import { LedgerReconError } from '../errors.js';
import { oneLine, redact } from '../log.js';

export interface Failure {
  /** One line, `ledger-recon: …` (the stack after it when asked for, on an unexpected error). */
  line: string;
  exitCode: number;
  /** A failure the product names (it knows its cause and fix), not an unexpected error. */
  named: boolean;
}

/** `error` as its line and exit code, `secrets` redacted from both message and stack. */
export function failureOf(error: unknown, secrets: readonly string[], withStack = false): Failure {
  // A mirror changed by hand under the tool: the table it lacks, and what to do.
  const missing = missingTableMessage(error);
  if (missing !== undefined) return { line: `ledger-recon: ${oneLine(missing)}`, exitCode: 2, named: true };
  if (error instanceof LedgerReconError)
    return { line: `ledger-recon: ${oneLine(redact(error.message, secrets))}`, exitCode: error.exitCode, named: true };
  // Still one line; the stack only for whoever asks for it.
  const message = error instanceof Error ? error.message : String(error);
  const stack =
    withStack && error instanceof Error && error.stack
      ? `\n${error.stack}`
      : ' (LEDGER_RECON_DEBUG=1 prints the stack)';
  return {
    line: `ledger-recon: unexpected error: ${redact(message.split('\n')[0] ?? '', secrets)}${redact(stack, secrets)}`,
    exitCode: 2,
    named: false,
  };
}
