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
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    FORMATTERS.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * Offsets per zone and quarter hour of UTC: zones change their offset only on a quarter hour,
 * and asking Intl costs some 5 µs, twice for each of a million books rows.
 */
const OFFSETS = new Map<string, Map<number, number>>();
const QUARTER_HOUR = 900_000;

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
    const start = quarter * QUARTER_HOUR;
    const parts = formatterOf(timeZone).formatToParts(new Date(start));
    const get = (type: string): number => Number(parts.find((part) => part.type === type)?.value);
    offset = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - start;
    offsets.set(quarter, offset);
  }
  return offset;
}

/**
 * The instant a wall-clock time (given as if it were UTC: `Date.UTC(...)` of its fields) shows
 * in `timeZone`: the zone's offset at the guess, then at the instant it gives, right across a
 * DST change.
 */
export function wallClockInstant(wallMs: number, timeZone: string): number {
  if (timeZone === 'UTC') return wallMs;
  const instant = wallMs - offsetMs(wallMs, timeZone);
  return wallMs - offsetMs(instant, timeZone);
}
