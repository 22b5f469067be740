/**
 * `ledger-recon liability --as-of DATE`: the liability as finance closes it (vintages, dormancy,
 * breakage, unclaimed property) at the end of a day, printed; and `export unclaimed --period`,
 * the holder report as CSV. Both read the mirror only; `--liability FILE` (or
 * LEDGER_RECON_LIABILITY) sets what shapes breakage and unclaimed property.
 */
import { resolve } from 'node:path';
import { liabilityAsOf, unclaimedReport } from '../app/liability.js';
import { ConfigError } from '../errors.js';
import { defaultLocations } from '../locations.js';
import { outputTarget } from '../paths.js';
import { periodOf } from '../report/period.js';
import { reporter } from './reporter.js';
import { terminalWidth, wrapText } from '../fit-width.js';
import { liabilitySettingsOf } from '../app/settings-files.js';
import type { declareExport, declareLiability, FlagsOf } from './declarations.js';

/** `ledger-recon liability` (src/app/liability.ts): its lines, each broken between words at a terminal's width; or its JSON. */
export async function liabilityCommand(options: FlagsOf<typeof declareLiability>): Promise<void> {
  const { say, record } = reporter(options);
  const stated = await liabilityAsOf(options.db ?? defaultLocations().db, options.asOf, {
    tz: options.tz,
    liability: liabilitySettingsOf(options.liability),
  });
  say(wrapText(`${stated.lines.join('\n')}\n`, terminalWidth(process.stdout), '    '));
  record(stated.json);
}

/** `ledger-recon export unclaimed --period`: the holder report at the period's closing cut-off, one row per property. */
export async function exportUnclaimed(options: FlagsOf<typeof declareExport>): Promise<void> {
  const { say, record } = reporter(options);
  const settings = liabilitySettingsOf(options.liability);
  const period = periodOf(options);
  const target = outputTarget('--out', options.out);
  if (target.kind === 'stdout' && options.json)
    throw new ConfigError(
      '--json',
      '--json and --out - both want standard output: write the report to a file, or leave out --json',
    );
  const written = await unclaimedReport(
    options.db ?? defaultLocations().db,
    period,
    settings,
    target.kind === 'stdout' ? undefined : target.path,
  );
  if (target.kind === 'stdout') {
    process.stdout.write(written.csv);
    return;
  }
  const { properties, cutOff } = written;
  say(
    `wrote ${options.out}: ${properties} ${properties === 1 ? 'property' : 'properties'} past their dormancy period at ${cutOff}\n`,
  );
  record({ format: 'unclaimed', out: resolve(target.path), properties, cutOff });
}
