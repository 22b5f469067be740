import { systemClock } from '../app/context.js';
import { fleetOf, merchantLine, mirrorsOf } from '../app/fleet.js';
import { writeFleet } from '../app/fleet-page.js';
import { ConfigError } from '../errors.js';
import { reporter } from './reporter.js';
import type { declareFleet, FlagsOf } from './declarations.js';

/**
 * `ledger-recon fleet [MIRROR…] [--server URL]` (src/app/fleet.ts): every merchant at once, a line
 * each, worst first; the page and the JSON written into --out. Exit 1 when any needs a person.
 */
export async function fleetCommand(named: string[], options: FlagsOf<typeof declareFleet>): Promise<void> {
  const { say, record } = reporter(options);
  const mirrors = await mirrorsOf(named, options.server ?? []);
  if (mirrors.length === 0)
    throw new ConfigError(
      'MIRROR',
      'fleet reads the mirrors it is given: name their files, or --server postgres://…/db for every schema holding one',
    );
  const fleet = await fleetOf(systemClock, { mirrors, lateAfterHours: options.lateAfterHours });
  const written = writeFleet(fleet, options.out);
  say(`${fleet.merchants.map(merchantLine).join('\n')}\n${written.page}\n${written.json}\n`);
  record({ ...fleet, files: written });
  process.exitCode = fleet.exitCode;
}
