import { defaultLocations } from '../locations.js';
import { outputTarget } from '../paths.js';
import { ConfigError, MirrorError } from '../errors.js';
import { resolve } from 'node:path';
import { reporter } from './reporter.js';
import { journalOf } from '../app/export.js';
import type { declareExport, FlagsOf } from './declarations.js';

/**
 * `ledger-recon export hledger --out FILE` (src/app/export.ts): the gift card ledger as an hledger
 * journal; `--out -` writes it to standard output.
 */
export async function exportCommand(format: string, options: FlagsOf<typeof declareExport>): Promise<void> {
  const { say, record } = reporter(options);
  if (format !== 'hledger') throw new MirrorError(`unknown export format ${format}: the one format is hledger`);
  // Refused before the mirror opens: a device or a FIFO named by mistake is never replaced.
  const target = outputTarget('--out', options.out);
  if (target.kind === 'stdout' && options.json)
    throw new ConfigError(
      '--json',
      '--json and --out - both want standard output: write the journal to a file, or leave out --json',
    );
  const db = options.db ?? defaultLocations().db;
  // The journal alone on standard output, for a pipe (`| hledger -f - check`).
  if (target.kind === 'stdout') {
    await journalOf(db, { stream: process.stdout }, options.run);
    return;
  }
  const { cards, entries, cutOffMs } = await journalOf(db, { path: target.path }, options.run);
  say(
    `wrote ${options.out}: ${cards} cards, ${entries} ledger entries; check it with: hledger -f ${options.out} check\n`,
  );
  record({ format, out: resolve(target.path), cards, entries, cutOff: new Date(cutOffMs).toISOString() });
}
