/**
 * The period an auditor closes: a month (`--period 2026-10`) or dates (`--from 2026-10-01
 * --to 2026-10-31`, both days included), cut off at midnight in UTC or in the merchant's zone
 * (`--tz Europe/Berlin`). Time zones come from the platform's Intl (the IANA database Node
 * ships), so no library is needed.
 */
import { ConfigError } from '../errors.js';
import { isTimeZone, offsetMs, utcMs, wallClockInstant } from '../time-zone.js';

export interface Period {
  /** `2026-10`, or `2026-10-01 to 2026-10-31`. */
  label: string;
  /** First instant of the period (epoch ms), included. */
  startMs: number;
  /** First instant after the period (epoch ms), excluded. */
  endMs: number;
  /** The zone its cut-offs are midnights of. */
  timeZone: string;
}

export interface PeriodOptions {
  period?: string;
  from?: string;
  to?: string;
  tz?: string;
}

/**
 * The period the options name.
 * @throws ConfigError naming the option and what it must be.
 */
export function periodOf(options: PeriodOptions): Period {
  const timeZone = options.tz ?? 'UTC';
  if (!isTimeZone(timeZone))
    throw new ConfigError(
      '--tz',
      `--tz ${timeZone} is not a time zone: name one as Area/City, e.g. Europe/Berlin, or leave it out for UTC`,
    );
  if (options.period !== undefined) {
    if (options.from !== undefined || options.to !== undefined)
      throw new ConfigError('--period', '--period and --from/--to name the same thing: give one or the other');
    const match = /^(\d{4})-(\d{2})$/.exec(options.period);
    const month = Number(match?.[2]);
    if (!match || month < 1 || month > 12)
      throw new ConfigError('--period', `--period ${options.period} is not a month: write it as YYYY-MM, e.g. 2026-10`);
    const year = Number(match[1]);
    refuseEarly('--period', options.period, year);
    return {
      label: options.period,
      startMs: midnight(year, month, 1, timeZone),
      endMs: month === 12 ? midnight(year + 1, 1, 1, timeZone) : midnight(year, month + 1, 1, timeZone),
      timeZone,
    };
  }
  if (options.from === undefined && options.to === undefined)
    throw new ConfigError(
      '--period',
      'name the period to close: --period YYYY-MM, or --from YYYY-MM-DD --to YYYY-MM-DD',
    );
  if (options.from === undefined || options.to === undefined) {
    const [given, missing] = options.from === undefined ? ['--to', '--from'] : ['--from', '--to'];
    throw new ConfigError(
      missing,
      `${given} ${options.from ?? options.to} needs ${missing} too: the period runs from --from to --to, both days included`,
    );
  }
  const [from, to] = [dateOf('--from', options.from), dateOf('--to', options.to)];
  const startMs = midnight(from.year, from.month, from.day, timeZone);
  // --to names the period's last day: it ends at the next midnight.
  const endMs = midnight(to.year, to.month, to.day + 1, timeZone);
  if (endMs === startMs && options.from === options.to)
    throw new ConfigError(
      '--from',
      `${options.from} does not exist in ${timeZone}: its clocks skipped the whole day, so the period is empty`,
    );
  if (endMs <= startMs) throw new ConfigError('--to', `--to ${options.to} is before --from ${options.from}`);
  return { label: `${options.from} to ${options.to}`, startMs, endMs, timeZone };
}

/** The day `text` names (YYYY-MM-DD, a day that exists, not before FIRST_YEAR), or a ConfigError naming `flag`. */
export function dateOf(flag: string, text: string): { year: number; month: number; day: number } {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const [year, month, day] = [Number(match?.[1]), Number(match?.[2]), Number(match?.[3])];
  const valid =
    match !== null && month >= 1 && month <= 12 && day >= 1 && day <= new Date(utcMs(year, month + 1, 0)).getUTCDate();
  if (!valid) throw new ConfigError(flag, `${flag} ${text} is not a date: write it as YYYY-MM-DD, e.g. 2026-10-31`);
  refuseEarly(flag, text, year);
  return { year, month, day };
}

/** The first year a period may lie in: no ledger of this kind is older, and `Date.UTC` reads 0099 as 1999. */
export const FIRST_YEAR = 1970;

function refuseEarly(flag: string, text: string, year: number): void {
  if (year < FIRST_YEAR)
    throw new ConfigError(
      flag,
      `${flag} ${text} is before ${FIRST_YEAR}: no gift card ledger is that old; check the year`,
    );
}

/** The instant of midnight starting `year-month-day` (day may run past the month's end) in `timeZone`. */
export function midnight(year: number, month: number, day: number, timeZone: string): number {
  return wallClockInstant(utcMs(year, month, day), timeZone);
}

/** An instant as the period's zone shows it: `2026-10-01 00:00 Europe/Berlin (2026-09-30 22:00 UTC)`. */
export function describeInstant(instant: number, timeZone: string): string {
  const utc = new Date(instant).toISOString().replace('T', ' ').slice(0, 16);
  if (timeZone === 'UTC') return `${utc} UTC`;
  const local = new Date(instant + offsetMs(instant, timeZone)).toISOString().replace('T', ' ').slice(0, 16);
  return `${local} ${timeZone} (${utc} UTC)`;
}
