import { slaRulesOf } from '../app/settings-files.js';
import { defaultLocations } from '../locations.js';
import { checkAt, exportedFindings } from '../app/check.js';
import { systemClock } from '../app/context.js';
import { shownMirror } from '../db/mirror.js';
import { outputTarget, writeAtomically } from '../paths.js';
import { colourFor, formatCheckSummary } from '../app/check-lines.js';
import { terminalWidth, wrapText } from '../fit-width.js';
import { checkOptionsOf, type declareCheck, type FlagsOf } from './declarations.js';

/**
 * `ledger-recon check`: runs the check catalogue over the mirror's newest sync under the
 * mirror's lock, stores the run's findings, prints the verdict first, and sets the exit code
 * (0 clean, 1 findings at or above --fail-on, 2 incomplete).
 * @throws LockHeldError, MirrorError (exit 2).
 */
export async function check(options: FlagsOf<typeof declareCheck>): Promise<void> {
  // Refused before anything runs: a device or a FIFO named by mistake is never replaced.
  const findingsTarget =
    options.findingsJson === undefined ? undefined : outputTarget('--findings-json', options.findingsJson);
  // The findings on standard output (`--findings-json -`): the summary goes to stderr, apart.
  const write = (text: string) => (findingsTarget?.kind === 'stdout' ? process.stderr : process.stdout).write(text);
  const sla = slaRulesOf(options.sla);
  const dbPath = options.db ?? defaultLocations().db;
  const checked = await checkAt(dbPath, systemClock, {
    checkOptions: checkOptionsOf(options),
    ...(options.failOn ? { failOn: options.failOn } : {}),
    ...(options.merchantId ? { merchantId: options.merchantId } : {}),
    ...(options.dryRun ? { dryRun: true } : {}),
    ...(sla ? { sla } : {}),
  });
  const { summary } = checked;
  if (findingsTarget) {
    const text = `${JSON.stringify(exportedFindings(checked, options.dryRun), null, 2)}\n`;
    if (findingsTarget.kind === 'stdout') process.stdout.write(text);
    else writeAtomically(findingsTarget.path, text);
  }
  const recorded = options.dryRun ? { ...summary, checkRunId: null, dryRun: true } : summary;
  if (options.json) write(`${JSON.stringify({ mirror: shownMirror(dbPath), ...recorded })}\n`);
  else if (!options.quiet)
    write(wrapText(formatCheckSummary(summary, colourFor(process.stdout)), terminalWidth(process.stdout)));
  process.exitCode = summary.exitCode;
}
