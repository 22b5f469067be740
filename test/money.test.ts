import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCents, groupThousands, shortestDecimal, toCents } from '../src/money.js';
import { runs } from './support/property.js';

describe('toCents', () => {
  it('reads every amount on a cent exactly, as JSON carries it', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e13, max: 1e13 }), (cents) => {
        const json = JSON.parse(JSON.stringify(cents / 100)) as number;
        expect(toCents(json)).toEqual({ ok: true, cents });
      }),
    );
  });

  it('round-trips through its own formatting', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e13, max: 1e13 }), (cents) => {
        expect(toCents(Number(formatCents(cents)))).toEqual({ ok: true, cents });
      }),
    );
  });

  it('accepts any number exactly when its decimal form has at most two decimals and fits, and nothing else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true }),
          fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 1000),
        ),
        (value) => {
          // The oracle reads the number's shortest decimal form (what JSON carries) in BigInt.
          const form = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(value));
          const cents = form ? BigInt(`${form[1]}${form[2]}${(form[3] ?? '').padEnd(2, '0')}`) : undefined;
          const fits =
            cents !== undefined &&
            cents <= BigInt(Number.MAX_SAFE_INTEGER) &&
            cents >= -BigInt(Number.MAX_SAFE_INTEGER);
          expect(toCents(value)).toEqual(
            fits ? { ok: true, cents: Number(cents) } : expect.objectContaining({ ok: false }),
          );
        },
      ),
      runs(2_000),
    );
  });

  it('refuses an amount off the cent instead of rounding it', () => {
    for (const value of [0.1 + 0.2, 1.005, 12.345, 1e-7, -0.001]) {
      expect(toCents(value).ok, String(value)).toBe(false);
    }
  });

  it('reads trailing zeros and exponents', () => {
    expect(toCents(10.1)).toEqual({ ok: true, cents: 1010 });
    expect(toCents(1e21)).toEqual({ ok: false, reason: '1000000000000000000000 is too large' });
    expect(toCents(5e-2)).toEqual({ ok: true, cents: 5 });
    expect(toCents(-0)).toEqual({ ok: true, cents: 0 });
  });

  it('reads the same on either side of its 13-digit fast path', () => {
    expect(toCents(9999999999999.5)).toEqual({ ok: true, cents: 999999999999950 });
    expect(toCents(12345678901234.5)).toEqual({ ok: true, cents: 1234567890123450 });
    expect(toCents(-12345678901234)).toEqual({ ok: true, cents: -1234567890123400 });
    expect(toCents(90071992547409.92).ok).toBe(false); // 9007199254740992 cents: past 2^53
  });

  it('formats cents with two places and a sign', () => {
    expect([formatCents(1010), formatCents(-5), formatCents(0), formatCents(-12345)]).toEqual([
      '10.10',
      '-0.05',
      '0.00',
      '-123.45',
    ]);
  });
});

describe('groupThousands', () => {
  it('groups the integer part of a decimal string for people, without arithmetic', () => {
    expect(['23733500.00', '-1234.50', '999.99', '0.05', '1000', 'n/a'].map(groupThousands)).toEqual([
      '23,733,500.00',
      '-1,234.50',
      '999.99',
      '0.05',
      '1,000',
      'n/a',
    ]);
  });
});

describe('shortestDecimal', () => {
  it('states cents as the number a spreadsheet cell holds, the shortest decimal JavaScript writes for it', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e13, max: 1e13 }), (cents) => {
        const text = shortestDecimal(cents);
        expect(text).toBe(String(cents / 100).replace(/^-0$/, '0'));
        expect(toCents(Number(text))).toEqual({ ok: true, cents });
      }),
    );
  });

  it('writes whole amounts without a point, and a cent with its zero', () => {
    expect([1300, 1380, 1385, 5, -5, 0, -100].map(shortestDecimal)).toEqual([
      '13',
      '13.8',
      '13.85',
      '0.05',
      '-0.05',
      '0',
      '-1',
    ]);
  });
});
