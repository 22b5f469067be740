import { defaultLocations } from '../locations.js';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { EXCLUSIVE, outputTarget, temporaryBeside } from '../paths.js';
import { openForReading } from '../db/mirror.js';
import { ConfigError, MirrorError } from '../errors.js';
import { resolve } from 'node:path';
import { reporter } from './reporter.js';
import { findingsStore } from '../findings/store.js';
import type { Mirror } from '../db/mirror.js';
import { dataAsOf } from '../report/close.js';
import { exportHledger, type JournalScope } from '../report/hledger-export.js';

export interface ExportOptions {
  db?: string;
  out: string;
  /** The check run whose cut-off and merchant the journal takes (default: the newest completed). */
  run?: number;
  json?: boolean;
  quiet?: boolean;
  write?: (text: string) => void;
}

/**
 * `ledger-recon export hledger --out FILE`: the gift card ledger as an hledger journal with a
 * balance assertion on every entry (`hledger -f FILE check` recomputes every balance).
 * Written under a temporary name, then renamed; `--out -` writes it to standard output.
 */
export async function exportCommand(format: string, options: ExportOptions): Promise<void> {
  const { say, record } = reporter(options);
  if (format !== 'hledger') throw new MirrorError(`unknown export format ${format}: the one format is hledger`);
  // Refused before the mirror opens: a device or a FIFO named by mistake is never replaced.
  const target = outputTarget('--out', options.out);
  if (target.kind === 'stdout' && options.json)
    throw new ConfigError(
      '--json',
      '--json and --out - both want standard output: write the journal to a file, or leave out --json',
    );
  const dbPath = options.db ?? defaultLocations().db;
  const mirror = await openForReading(dbPath, 'sync');
  try {
    const scope = await journalScope(mirror, options.run);
    if (target.kind === 'stdout') {
      // The journal alone on standard output, for a pipe (`| hledger -f - check`).
      await exportHledger(mirror, process.stdout, scope);
      return;
    }
    const temporary = temporaryBeside(target.path);
    try {
      const { cards, entries } = await exportHledger(mirror, createWriteStream(temporary, { flags: EXCLUSIVE }), scope);
      renameSync(temporary, target.path);
      say(
        `wrote ${options.out}: ${cards} cards, ${entries} ledger entries; check it with: hledger -f ${options.out} check\n`,
      );
      record({ format, out: resolve(target.path), cards, entries, cutOff: new Date(scope.cutOffMs).toISOString() });
    } finally {
      rmSync(temporary, { force: true });
    }
  } finally {
    await mirror.close();
  }
}

/**
 * The cut-off and merchant of the liability the journal states: the check run's (the newest
 * completed, or `--run`), else the newest completed sync's edge and the pinned merchant.
 * @throws MirrorError when the run is not a completed one, or the mirror holds no completed sync.
 */
async function journalScope(mirror: Mirror, runId: number | undefined): Promise<JournalScope> {
  const findings = findingsStore(mirror);
  const run = await findings.history.completedRun(runId);
  if (runId !== undefined && (run === null || run.asOfMs === null))
    throw new MirrorError(`check run ${runId} is not a completed run of this mirror: see \`ledger-recon history\``);
  if (run !== null && run.asOfMs !== null) return { cutOffMs: run.asOfMs, merchantId: run.merchantId };
  const asOfMs = await dataAsOf(mirror);
  if (asOfMs === null) throw new MirrorError('the mirror holds no completed sync: run `ledger-recon sync` first');
  return { cutOffMs: asOfMs, merchantId: await findings.pinnedMerchant() };
}
