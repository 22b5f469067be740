/**
 * Periods and wall clocks at their edges: days a zone skipped, midnights that do not exist,
 * historical offsets that change at odd minutes and seconds, and years `Date.UTC` misreads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTime } from '../../src/books/books-row.js';
import { midnight, periodOf } from '../../src/report/period.js';
import { offsetMs, utcMs, wallClockInstant } from '../../src/time-zone.js';
import { runs } from '../support/property.js';

const at = (iso: string): number => Date.parse(iso);

describe('a midnight that does not exist', () => {
  it('closes a day before a skipped day whole, and refuses the skipped day as empty (Pacific/Apia 2011-12-30)', () => {
    const before = periodOf({ from: '2011-12-29', to: '2011-12-29', tz: 'Pacific/Apia' });
    expect([before.startMs, before.endMs]).toEqual([at('2011-12-29T10:00:00Z'), at('2011-12-30T10:00:00Z')]);
    expect(() => periodOf({ from: '2011-12-30', to: '2011-12-30', tz: 'Pacific/Apia' })).toThrow(
      '2011-12-30 does not exist in Pacific/Apia: its clocks skipped the whole day',
    );
  });

  it('ends a day at the first instant after a DST gap at midnight (America/Sao_Paulo 2018-11-04)', () => {
    const day = periodOf({ from: '2018-11-03', to: '2018-11-03', tz: 'America/Sao_Paulo' });
    expect(day.endMs).toBe(at('2018-11-04T03:00:00Z'));
    expect(day.endMs - day.startMs).toBe(24 * 3_600_000);
  });

  it('follows an offset that changes at 44 minutes 30 seconds (Africa/Monrovia 1972-01-07)', () => {
    expect(midnight(1972, 1, 6, 'Africa/Monrovia')).toBe(at('1972-01-06T00:44:30Z'));
    expect(midnight(1972, 1, 7, 'Africa/Monrovia')).toBe(at('1972-01-07T00:44:30Z'));
    expect(midnight(1972, 1, 8, 'Africa/Monrovia')).toBe(at('1972-01-08T00:00:00Z'));
  });

  it('maps every wall time a zone shows to the first instant that shows it (property)', () => {
    const zones = [
      'Europe/Berlin',
      'America/Sao_Paulo',
      'Pacific/Apia',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'Africa/Monrovia',
      'America/St_Johns',
      'Pacific/Chatham',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: at('1970-01-01T00:00:00Z') / 1000, max: at('2040-01-01T00:00:00Z') / 1000 }),
        (zone, seconds) => {
          const instant = seconds * 1000;
          const wall = instant + offsetMs(instant, zone);
          const first = wallClockInstant(wall, zone);
          expect(first).toBeLessThanOrEqual(instant);
          expect(first + offsetMs(first, zone)).toBe(wall);
        },
      ),
      runs(2_000),
    );
  });
});

describe('years before 1970', () => {
  it('are refused in a period, never read as 1900 to 1999', () => {
    expect(() => periodOf({ period: '0099-12' })).toThrow('--period 0099-12 is before 1970');
    expect(() => periodOf({ from: '0025-06-01', to: '2026-01-01' })).toThrow('--from 0025-06-01 is before 1970');
    expect(new Date(utcMs(99, 12, 1)).toISOString()).toBe('0099-12-01T00:00:00.000Z');
  });

  it('are not a books time', () => {
    expect(readTime('0025-06-01', { timeFormats: ['iso'], timeZone: 'UTC' })).toBeNull();
    expect(readTime('01.06.0025', { timeFormats: ['dd.MM.yyyy'], timeZone: 'Europe/Berlin' })).toBeNull();
    expect(readTime('2025-06-01', { timeFormats: ['iso'], timeZone: 'UTC' })).toBe(at('2025-06-01T00:00:00Z'));
  });
});
