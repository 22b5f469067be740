/**
 * Wall clocks in IANA zones, from the platform's Intl (the database Node ships), so no library
 * is needed: the period close's cut-offs and the merchant's books' times both read them.
 */

/** True when the platform knows `zone` (an IANA name such as Europe/Berlin, or UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** One formatter per zone: making one costs far more than using it, and a books import asks twice a row. */
const FORMATTERS = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = FORMATTERS.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    FORMATTERS.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * Epoch ms of a UTC calendar time, for any year: `Date.UTC` reads years 0 to 99 as 1900 to 1999.
 * Day, hour, minute may run past their range (the 32nd of a month is the next month's 1st).
 */
export function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

/**
 * Offsets per zone and quarter hour of UTC: asking Intl costs some 5 µs, twice for each of a
 * million books rows. A quarter whose start and end show the same offset has it throughout;
 * one with a change inside (historical offsets change at odd minutes and seconds) is asked
 * for the instant itself.
 */
const OFFSETS = new Map<string, Map<number, number | null>>();
const QUARTER_HOUR = 900_000;

/** The offset at `instant` as Intl shows it, to the second. */
function exactOffsetMs(instant: number, timeZone: string): number {
  const second = Math.floor(instant / 1000) * 1000;
  const parts = formatterOf(timeZone).formatToParts(new Date(second));
  const get = (type: string): number => Number(parts.find((part) => part.type === type)?.value);
  return utcMs(get('year'), get('month'), get('day'), get('hour'), get('minute'), get('second')) - second;
}

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in ms. */
export function offsetMs(instant: number, timeZone: string): number {
  let offsets = OFFSETS.get(timeZone);
  if (!offsets || offsets.size > 100_000) {
    offsets = new Map();
    OFFSETS.set(timeZone, offsets);
  }
  const quarter = Math.floor(instant / QUARTER_HOUR);
  let offset = offsets.get(quarter);
  if (offset === undefined) {
    const start = exactOffsetMs(quarter * QUARTER_HOUR, timeZone);
    offset = exactOffsetMs((quarter + 1) * QUARTER_HOUR - 1, timeZone) === start ? start : null;
    offsets.set(quarter, offset);
  }
  return offset ?? exactOffsetMs(instant, timeZone);
}

const DAY = 86_400_000;

/**
 * The instant a wall-clock time (given as if it were UTC: `utcMs(...)` of its fields) shows in
 * `timeZone`. A wall time shown twice (clocks set back) is its first showing; one never shown
 * (clocks set forward over it: Pacific/Apia skipped 2011-12-30 whole, Sao Paulo's DST began
 * at midnight) is the first instant after the gap.
 */
export function wallClockInstant(wallMs: number, timeZone: string): number {
  if (timeZone === 'UTC') return wallMs;
  const offsets = [
    ...new Set([offsetMs(wallMs - DAY, timeZone), offsetMs(wallMs, timeZone), offsetMs(wallMs + DAY, timeZone)]),
  ];
  const shown = offsets
    .map((offset) => wallMs - offset)
    .filter((instant) => offsetMs(instant, timeZone) === wallMs - instant);
  if (shown.length > 0) return Math.min(...shown);
  // In a gap: the change lies between the instant the larger offset gives (still before it)
  // and the one the smaller gives (already after); found to the second.
  let before = wallMs - Math.max(...offsets);
  let after = wallMs - Math.min(...offsets);
  const offsetBefore = offsetMs(before, timeZone);
  while (after - before > 1000) {
    const middle = Math.floor((before + after) / 2000) * 1000;
    if (middle <= before) break;
    if (offsetMs(middle, timeZone) === offsetBefore) before = middle;
    else after = middle;
  }
  return after;
}
