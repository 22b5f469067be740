#!/usr/bin/env node
import { CommanderError } from 'commander';
import { LedgerReconError } from '../errors.js';
import { redact } from '../log.js';
import { buildProgram } from './index.js';

/** Secrets this process may know of, so an unexpected stack trace cannot print them. */
const secrets = [process.env['GIFTCARD_CLIENT_SECRET'], process.env['DP_CLIENT_SECRET']].filter((s): s is string => !!s);

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(error);
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // commander has printed help, the version, or the usage error already.
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof LedgerReconError) {
    process.stderr.write(`ledger-recon: ${redact(error.message, secrets)}\n`);
    return error.exitCode;
  }
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`ledger-recon: unexpected error\n${redact(text, secrets)}\n`);
  return 2;
}
