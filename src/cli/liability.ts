/**
 * `ledger-recon liability --as-of DATE`: the liability as finance closes it (vintages, dormancy,
 * breakage, unclaimed property) at the end of a day, printed; and `export unclaimed --period`,
 * the holder report as CSV. Both read the mirror only; `--liability FILE` (or
 * LEDGER_RECON_LIABILITY) sets what shapes breakage and unclaimed property.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { liabilityOf } from '../app/liability.js';
import { openForReading } from '../db/mirror.js';
import { ConfigError } from '../errors.js';
import { defaultLocations } from '../locations.js';
import { formatCents, groupThousands } from '../money.js';
import { EXCLUSIVE, outputTarget, temporaryBeside } from '../paths.js';
import {
  breakageEntries,
  formatRate,
  type LiabilitySettings,
  LiabilitySettingsError,
  liabilityJson,
  parseLiabilitySettings,
  unclaimedCsv,
} from '../report/liability-sheets.js';
import { periodOf, type PeriodOptions } from '../report/period.js';
import { reporter } from './reporter.js';
import { terminalWidth, wrapText } from '../fit-width.js';
import { settingsFileOf } from './settings-files.js';

/**
 * The settings file `--liability` names, read and checked now (before the mirror opens).
 * @throws ConfigError naming the flag, the key and the fix.
 */
export function liabilitySettingsOf(path: string | undefined): LiabilitySettings | undefined {
  return settingsFileOf(path, {
    flag: '--liability',
    what: 'the liability settings file',
    docs: 'docs/liability.md',
    parse: parseLiabilitySettings,
    refusal: LiabilitySettingsError,
  });
}

export interface LiabilityCommandOptions {
  asOf: string;
  tz?: string;
  liability?: string;
  db?: string;
  json?: boolean;
  quiet?: boolean;
  write?: (text: string) => void;
}

const shown = (cents: number): string => groupThousands(formatCents(cents));

/** The period whose closing cut-off is the end of `day` (its month so far): the liability at that instant. */
function periodEnding(day: string, tz: string | undefined): ReturnType<typeof periodOf> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
    throw new ConfigError('--as-of', `--as-of ${day}: give a day as YYYY-MM-DD; the liability is stated at its end`);
  return periodOf({ from: `${day.slice(0, 8)}01`, to: day, ...(tz !== undefined ? { tz } : {}) } as PeriodOptions);
}

/** `ledger-recon liability`: per currency the split, per program its rate and breakage, and the escheat candidates' count. */
export async function liabilityCommand(options: LiabilityCommandOptions): Promise<void> {
  const { say, record } = reporter(options);
  const settings = liabilitySettingsOf(options.liability);
  const period = periodEnding(options.asOf, options.tz);
  const mirror = await openForReading(options.db ?? defaultLocations().db, 'sync');
  try {
    const close = await liabilityOf(mirror, period, settings);
    const at = close.liability.closing;
    const lines = [
      `liability at ${new Date(at.cutOffMs).toISOString()} (${at.standard.toUpperCase()}):`,
      ...at.split.map(
        (s) =>
          `${s.currency}: balances ${shown(s.balancesCents)} − breakage recognised ${shown(s.breakageRecognisedCents)} − escheat payable ${shown(s.escheatPayableCents)} = contract liability ${shown(s.contractLiabilityCents)}${s.unknownCards > 0 ? ` (${s.unknownCards} cards off the cent, apart)` : ''}`,
      ),
      ...at.programs.map(
        (p) =>
          `  ${p.currency} ${p.programId ?? '(no program)'}: breakage rate ${p.rate === null ? 'none (no mature vintage, none set)' : `${formatRate(p.rate)} from ${p.source === 'set' ? 'the settings' : `${p.matureVintages} mature vintages`}`}, ${formatRate(p.constrainedRate)} after the haircut`,
      ),
    ];
    // On a terminal, each line broken between words at its width; elsewhere, whole lines.
    say(
      wrapText(
        `${lines.join('\n')}\n`,
        options.write === undefined ? terminalWidth(process.stdout) : undefined,
        '    ',
      ),
    );
    say(`escheat candidates: ${at.escheat.length}\n`);
    record(liabilityJson(close.liability, breakageEntries(close)) as Record<string, unknown>);
  } finally {
    await mirror.close();
  }
}

export interface UnclaimedOptions extends PeriodOptions {
  out: string;
  liability?: string;
  db?: string;
  json?: boolean;
  quiet?: boolean;
  write?: (text: string) => void;
}

/** `ledger-recon export unclaimed --period`: the holder report at the period's closing cut-off, one row per property. */
export async function exportUnclaimed(options: UnclaimedOptions): Promise<void> {
  const { say, record } = reporter(options);
  const settings = liabilitySettingsOf(options.liability);
  const period = periodOf(options);
  const target = outputTarget('--out', options.out);
  if (target.kind === 'stdout' && options.json)
    throw new ConfigError(
      '--json',
      '--json and --out - both want standard output: write the report to a file, or leave out --json',
    );
  const mirror = await openForReading(options.db ?? defaultLocations().db, 'sync');
  try {
    const close = await liabilityOf(mirror, period, settings);
    const candidates = close.liability.closing.escheat;
    const csv = unclaimedCsv(candidates);
    if (target.kind === 'stdout') {
      process.stdout.write(csv);
      return;
    }
    const temporary = temporaryBeside(target.path);
    try {
      writeFileSync(temporary, csv, { flag: EXCLUSIVE });
      renameSync(temporary, target.path);
    } finally {
      rmSync(temporary, { force: true });
    }
    const cutOff = new Date(close.closingCutOffMs).toISOString();
    say(
      `wrote ${options.out}: ${candidates.length} ${candidates.length === 1 ? 'property' : 'properties'} past their dormancy period at ${cutOff}\n`,
    );
    record({ format: 'unclaimed', out: resolve(target.path), properties: candidates.length, cutOff });
  } finally {
    await mirror.close();
  }
}
