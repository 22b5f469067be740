import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { outputTarget } from '../paths.js';
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
 * Written under a temporary name, then renamed; `--out -` writes it to standard output.
 */
export async function exportCommand(format: string, options: ExportOptions): Promise<void> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  if (format !== 'hledger') throw new MirrorError(`unknown export format ${format}: the one format is hledger`);
  // Refused before the mirror opens: a device or a FIFO named by mistake is never replaced.
  const target = outputTarget('--out', options.out);
  const dbPath = options.db ?? DEFAULT_DB_PATH;
  const mirror = await openForReading(dbPath, 'sync');
  try {
    if (target.kind === 'stdout') {
      // The journal alone on standard output, for a pipe (`| hledger -f - check`).
      await exportHledger(mirror, process.stdout);
      return;
    }
    const temporary = `${target.path}.${process.pid}.partial`;
    try {
      const { cards, entries } = await exportHledger(mirror, createWriteStream(temporary));
      renameSync(temporary, target.path);
      write(
        `wrote ${options.out}: ${cards} cards, ${entries} ledger entries; check it with: hledger -f ${options.out} check\n`,
      );
    } finally {
      rmSync(temporary, { force: true });
    }
  } finally {
    await mirror.close();
  }
}
