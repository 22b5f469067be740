import { resolve } from 'node:path';
import { defaultLocations } from '../locations.js';
import { reporter } from './reporter.js';
import { sealSettingsOf } from '../app/settings-files.js';
import { systemClock } from '../app/context.js';
import { reportAt, scopeOf } from '../app/report.js';
import type { declareReport, FlagsOf } from './declarations.js';

/**
 * `ledger-recon report`: writes the workbook, CSV and JSON of a check run (the newest by
 * default) from the mirror, and their evidence manifest (sealed into the mirror's chain). Prints
 * the four paths.
 * @throws MirrorError when there is no mirror or no such check run.
 */
export async function report(options: FlagsOf<typeof declareReport>): Promise<void> {
  const { say, record } = reporter(options);
  const seal = sealSettingsOf(options);
  const { evidence, checkpoint, ...paths } = await reportAt(options.db ?? defaultLocations().db, systemClock, {
    outDir: options.out ?? defaultLocations().reports,
    ...(options.run !== undefined ? { checkRunId: options.run } : {}),
    scope: scopeOf(options),
    ...seal,
  });
  say(
    `${paths.workbook}\n${paths.csv}\n${paths.json}\n${paths.page}\n${evidence}\n${checkpoint ? `${checkpoint}\n` : ''}`,
  );
  record({
    runId: paths.checkRunId,
    workbook: resolve(paths.workbook),
    csv: resolve(paths.csv),
    json: resolve(paths.json),
    page: resolve(paths.page),
    evidence: resolve(evidence),
    ...(checkpoint ? { checkpoint } : {}),
  });
}
