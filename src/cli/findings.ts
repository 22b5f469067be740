import { findingsTable, listFindings, type FindingsListSettings } from '../app/findings.js';
import { terminalWidth } from '../fit-width.js';

/** `ledger-recon findings list` (src/app/findings.ts): a table fitted to a terminal, or one JSON array. */
export async function findingsList(options: FindingsListSettings & { json?: boolean }): Promise<void> {
  const found = await listFindings(options);
  const text = options.json
    ? `${JSON.stringify(found.listed)}\n`
    : findingsTable(found, terminalWidth(process.stdout))
        .map((line) => `${line}\n`)
        .join('');
  process.stdout.write(text);
}
