import { renameSync } from 'node:fs';
import { DEFAULT_DB_PATH, openForReading } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { exportHledger } from '../report/hledger-export.js';

export interface ExportOptions {
  db?: string;
  out: string;
  write?: (text: string) => void;
}

/**
 * `ledger-recon export hledger --out FILE`: the gift card ledger as an hledger journal with a
 * balance assertion on every entry (`hledger -f FILE check` recomputes every balance).
 * Written under a temporary name, then renamed.
 */
export async function exportCommand(format: string, options: ExportOptions): Promise<void> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  if (format !== 'hledger') throw new MirrorError(`unknown export format ${format}: the one format is hledger`);
  const dbPath = options.db ?? DEFAULT_DB_PATH;
  const mirror = await openForReading(dbPath, 'sync');
  try {
    const temporary = `${options.out}.partial`;
    const { cards, entries } = await exportHledger(mirror, temporary);
    renameSync(temporary, options.out);
    write(`wrote ${options.out}: ${cards} cards, ${entries} ledger entries; check it with: hledger -f ${options.out} check\n`);
  } finally {
    await mirror.close();
  }
}
