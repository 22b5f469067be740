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

/** How far `timeZone`'s wall clock is ahead of UTC at `instant`, in ms. */
export function offsetMs(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(new Date(instant));
  const get = (type: string): number => Number(parts.find((part) => part.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(instant / 1000) * 1000;
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
