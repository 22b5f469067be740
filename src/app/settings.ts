/**
 * Settings as a user writes them on the command line, read exactly: the per-currency amounts of
 * `--materiality` and `--books-tolerance`, and the settings `verify --run N --set KEY=VALUE`
 * may change. Light on purpose: the program's flags read their values with it at start-up.
 */
import type { WhatIfSettings } from '../evidence/reperform.js';
import { FAIL_ON, type FailOn } from '../findings/verdict.js';
import { oneLine } from '../log.js';
import { decimalTextCents } from '../money.js';

/** The form a per-currency amount takes, as each message names it. */
const PAIRS = 'CURRENCY=AMOUNT pairs, e.g. USD=100.00,EUR=0.05';

/**
 * `USD=100.00,EUR=0.05` → cents per currency, each read exactly from its decimal text.
 * @throws Error naming the form, the pair that does not read and why (a currency not in capitals,
 *   an amount off the cent or below zero, a currency given twice).
 */
export function amountsPerCurrency(value: string): Map<string, number> {
  const amounts = new Map<string, number>();
  for (const pair of value.split(',').map((part) => part.trim())) {
    const why = (reason: string) => new Error(`${PAIRS} (${oneLine(pair) || 'an empty pair'}: ${reason})`);
    const at = pair.indexOf('=');
    if (at < 0) throw why('no "="');
    const [currency, amount] = [pair.slice(0, at), pair.slice(at + 1)];
    if (!/^[A-Z]{3}$/.test(currency)) throw why(`a currency is its three capital letters, e.g. USD`);
    const cents = decimalTextCents(amount);
    if (!cents.ok) throw why(cents.reason);
    if (cents.cents < 0) throw why(`${amount} is below zero`);
    if (amounts.has(currency)) throw why(`${currency} is given twice`);
    amounts.set(currency, cents.cents);
  }
  return amounts;
}

function wholeNumber(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new Error('a whole number');
  return Number(value);
}

/** What `--set` may change, and how each value is read. */
const SETTABLE: Record<string, (value: string, into: WhatIfSettings) => void> = {
  'fail-on': (value, into) => {
    if (!(FAIL_ON as readonly string[]).includes(value)) throw new Error(`one of ${FAIL_ON.join(', ')}`);
    into.failOn = value as FailOn;
  },
  materiality: (value, into) => {
    into.materiality = amountsPerCurrency(value);
  },
  'expiry-grace-minutes': (value, into) => {
    into.options.expiryGraceMinutes = wholeNumber(value);
  },
  'double-debit-window-seconds': (value, into) => {
    into.options.doubleDebitWindowSeconds = wholeNumber(value);
  },
  'stuck-order-sla-hours': (value, into) => {
    into.options.stuckOrderSlaHours = wholeNumber(value);
  },
  'books-tolerance': (value, into) => {
    into.options.booksToleranceCents = Object.fromEntries(amountsPerCurrency(value));
  },
  'books-window-hours': (value, into) => {
    into.options.booksWindowHours = wholeNumber(value);
  },
  'books-cutoff-minutes': (value, into) => {
    into.options.booksCutoffMinutes = wholeNumber(value);
  },
};

/** The settings `verify --set` can change, as its help and its refusals list them. */
export const SETTABLE_KEYS: readonly string[] = Object.keys(SETTABLE);

/** The settings that shape the matching of the merchant's books. */
export const BOOKS_SETTINGS: readonly string[] = ['books-tolerance', 'books-window-hours', 'books-cutoff-minutes'];

/**
 * The `--set KEY=VALUE` pairs read.
 * @throws Error naming the pair that cannot be read, and what its key takes.
 */
export function whatIfSettingsOf(pairs: readonly string[]): WhatIfSettings {
  const settings: WhatIfSettings = { options: {} };
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const [key, value] = at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    const read = SETTABLE[key];
    if (read === undefined)
      throw new Error(`--set ${oneLine(pair)}: not a setting verify can change (${SETTABLE_KEYS.join(', ')})`);
    try {
      read(value, settings);
    } catch (error) {
      throw new Error(`--set ${oneLine(pair)}: ${key} takes ${(error as Error).message}`);
    }
  }
  return settings;
}
