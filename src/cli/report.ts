import { DEFAULT_DB_PATH, openForReading } from '../db/mirror.js';
import type { ReportScope } from '../report/report-sheets.js';
import { writeReport, type ReportPaths } from '../report/write-report.js';

export interface ReportCommandOptions {
  db?: string;
  out?: string;
  run?: number;
  preparer?: string;
  materiality?: Map<string, number>;
  write?: (text: string) => void;
}

/**
 * `ledger-recon report`: writes the workbook, CSV and JSON of a check run (the newest by
 * default) from the mirror, read-only. Prints the three paths.
 * @throws MirrorError when there is no mirror or no such check run.
 */
export async function report(options: ReportCommandOptions): Promise<ReportPaths> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const dbPath = options.db ?? DEFAULT_DB_PATH;
  const mirror = await openForReading(dbPath, 'run');
  try {
    const paths = await writeReport({
      mirror,
      outDir: options.out ?? 'reports',
      ...(options.run !== undefined ? { checkRunId: options.run } : {}),
      scope: scopeOf(options),
    });
    write(`${paths.workbook}\n${paths.csv}\n${paths.json}\n`);
    return paths;
  } finally {
    await mirror.close();
  }
}

/** The sign-off name and materiality a command was given, for the workbook. */
export function scopeOf(options: { preparer?: string; materiality?: Map<string, number> }): ReportScope {
  return {
    ...(options.preparer !== undefined ? { preparer: options.preparer } : {}),
    ...(options.materiality !== undefined ? { materiality: options.materiality } : {}),
  };
}
