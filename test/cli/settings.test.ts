/**
 * Per-currency amounts and `verify --set` settings as a user writes them: read exactly, or
 * refused naming the pair and why. The flags (`--materiality`, `--books-tolerance`) and
 * `verify --set` read them with the one function.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountsPerCurrency, SETTABLE_KEYS, whatIfSettingsOf } from '../../src/app/settings.js';
import { formatCents } from '../../src/money.js';

describe('per-currency amounts', () => {
  it('reads any currencies and cents written as text back to the same cents', () => {
    const currency = fc.stringMatching(/^[A-Z]{3}$/);
    fc.assert(
      fc.property(fc.dictionary(currency, fc.integer({ min: 0, max: 1e13 }), { minKeys: 1 }), (amounts) => {
        const text = Object.entries(amounts)
          .map(([c, cents]) => `${c}=${formatCents(cents)}`)
          .join(', ');
        expect(Object.fromEntries(amountsPerCurrency(text))).toEqual(amounts);
      }),
    );
  });

  it('reads whole amounts and one decimal as cents', () => {
    expect([...amountsPerCurrency('USD=100,EUR=0.5,GBP=0.05')]).toEqual([
      ['USD', 10_000],
      ['EUR', 50],
      ['GBP', 5],
    ]);
  });

  it.each([
    ['usd=0.05', 'usd=0.05: a currency is its three capital letters, e.g. USD'],
    ['USD=0.005', 'USD=0.005: 0.005 is not on a cent'],
    ['USD=-5', 'USD=-5: -5 is below zero'],
    ['USD=5,USD=6', 'USD=6: USD is given twice'],
    ['USD', 'USD: no "="'],
    ['USD=1e3', 'USD=1e3: 1e3 cannot be read exactly as a decimal amount'],
    ['USD=', 'USD=: not a decimal amount: '],
    ['', 'an empty pair: no "="'],
  ])('refuses %j, naming the pair and why', (text, why) => {
    expect(() => amountsPerCurrency(text)).toThrow(`CURRENCY=AMOUNT pairs, e.g. USD=100.00,EUR=0.05 (${why})`);
  });
});

describe('verify --set', () => {
  it('reads each setting into what the re-performance changes', () => {
    expect(
      whatIfSettingsOf([
        'fail-on=warning',
        'materiality=USD=500.00',
        'books-tolerance=USD=0.05,EUR=0.05',
        'books-window-hours=2',
        'double-debit-window-seconds=0',
      ]),
    ).toEqual({
      failOn: 'warning',
      materiality: new Map([['USD', 50_000]]),
      options: { booksToleranceCents: { USD: 5, EUR: 5 }, booksWindowHours: 2, doubleDebitWindowSeconds: 0 },
    });
  });

  it('refuses a setting it cannot change, listing those it can', () => {
    expect(() => whatIfSettingsOf(['colour=blue'])).toThrow(
      `--set colour=blue: not a setting verify can change (${SETTABLE_KEYS.join(', ')})`,
    );
    expect(SETTABLE_KEYS).toContain('books-cutoff-minutes');
  });

  it('says what a setting takes', () => {
    expect(() => whatIfSettingsOf(['books-window-hours=-1'])).toThrow(
      '--set books-window-hours=-1: books-window-hours takes a whole number',
    );
    expect(() => whatIfSettingsOf(['fail-on=sometimes'])).toThrow('--set fail-on=sometimes: fail-on takes one of');
  });
});
