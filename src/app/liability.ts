/**
 * The liability as finance closes it, on demand: a period's close computed over the mirror
 * (read-only, nothing written or sealed), for `ledger-recon liability --as-of` and the holder
 * report `export unclaimed`. The same walk and definitions as the sealed close.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { type Mirror, openForReading } from '../db/mirror.js';
import { ConfigError } from '../errors.js';
import { findingsStore } from '../findings/store.js';
import { formatCents, groupThousands } from '../money.js';
import { EXCLUSIVE, temporaryBeside } from '../paths.js';
import {
  breakageEntries,
  formatRate,
  type LiabilitySettings,
  liabilityJson,
  unclaimedCsv,
} from '../report/liability-sheets.js';
import { type ClosedPeriodFigures, closePeriod } from '../report/close.js';
import { dateOf, type Period, periodOf, type PeriodOptions } from '../report/period.js';

/** The period's close with its liability at the closing cut-off, for our merchant as the newest check run pinned it. */
export async function liabilityOf(
  mirror: Mirror,
  period: Period,
  settings?: LiabilitySettings,
): Promise<ClosedPeriodFigures> {
  const findings = findingsStore(mirror);
  return closePeriod(mirror, period, undefined, {
    merchantId: await findings.pinnedMerchant(),
    inFlight: await findings.inFlightOf(),
    ...(settings ? { liability: settings } : {}),
  });
}

/** The liability at the end of a day, as `ledger-recon liability` tells it: its lines and its JSON record. */
export interface LiabilityStated {
  lines: string[];
  json: Record<string, unknown>;
}

const shown = (cents: number): string => groupThousands(formatCents(cents));

/** The period whose closing cut-off is the end of `day` (its month so far): the liability at that instant. */
function periodEnding(day: string, tz: string | undefined): Period {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day))
    throw new ConfigError('--as-of', `--as-of ${day}: give a day as YYYY-MM-DD; the liability is stated at its end`);
  // A day that does not exist (2026-12-40) is named by the flag the user gave, not the period's --to.
  dateOf('--as-of', day);
  return periodOf({ from: `${day.slice(0, 8)}01`, to: day, ...(tz !== undefined ? { tz } : {}) } as PeriodOptions);
}

/**
 * The job of `ledger-recon liability --as-of DAY`: per currency the split, per program its rate
 * and breakage, and the escheat candidates' count, of the mirror at `db` (read only).
 * @throws ConfigError for a day that is not YYYY-MM-DD.
 */
export async function liabilityAsOf(
  db: string,
  day: string,
  settings: { tz?: string | undefined; liability?: LiabilitySettings | undefined } = {},
): Promise<LiabilityStated> {
  const period = periodEnding(day, settings.tz);
  const mirror = await openForReading(db, 'sync');
  try {
    const close = await liabilityOf(mirror, period, settings.liability);
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
      `escheat candidates: ${at.escheat.length}`,
    ];
    return { lines, json: liabilityJson(close.liability, breakageEntries(close)) as Record<string, unknown> };
  } finally {
    await mirror.close();
  }
}

/** The holder report of a period as written: how many properties, at which cut-off. */
export interface UnclaimedWritten {
  csv: string;
  properties: number;
  cutOff: string;
}

/**
 * The job of `ledger-recon export unclaimed`: the holder report at the period's closing cut-off,
 * one row per property, of the mirror at `db` (read only); written whole to `path` (renamed into
 * place) when one is given.
 */
export async function unclaimedReport(
  db: string,
  period: Period,
  settings: LiabilitySettings | undefined,
  path?: string,
): Promise<UnclaimedWritten> {
  const mirror = await openForReading(db, 'sync');
  try {
    const close = await liabilityOf(mirror, period, settings);
    const candidates = close.liability.closing.escheat;
    const csv = unclaimedCsv(candidates);
    if (path !== undefined) {
      const temporary = temporaryBeside(path);
      try {
        writeFileSync(temporary, csv, { flag: EXCLUSIVE });
        renameSync(temporary, path);
      } finally {
        rmSync(temporary, { force: true });
      }
    }
    return { csv, properties: candidates.length, cutOff: new Date(close.closingCutOffMs).toISOString() };
  } finally {
    await mirror.close();
  }
}
