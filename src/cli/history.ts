import { historyOf, historyTable, type HistorySettings } from '../app/history.js';
import { terminalWidth } from '../fit-width.js';

/** `ledger-recon history` (src/app/history.ts): the runs as a table fitted to the terminal, or one JSON array. */
export async function history(options: HistorySettings & { json?: boolean }): Promise<void> {
  const rows = await historyOf(options);
  const text = options.json
    ? `${JSON.stringify(rows)}\n`
    : historyTable(rows, terminalWidth(process.stdout))
        .map((line) => `${line}\n`)
        .join('');
  process.stdout.write(text);
}
