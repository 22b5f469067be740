/**
 * Rates as exact fractions (a breakage rate, a haircut, a share redeemed): a numerator and a
 * denominator in BigInt, never a float. Money times a rate is rounded down to the cent, once,
 * where the figure is stated: a recognised amount is never more than the method gives.
 */
import { type Cents, cents } from '../money.js';

/** n / d, with d > 0, in lowest terms. */
export interface Rate {
  readonly n: bigint;
  readonly d: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
};

/** n / d in lowest terms; d must not be 0. */
export function rateOf(n: bigint | number, d: bigint | number): Rate {
  let num = BigInt(n);
  let den = BigInt(d);
  if (den === 0n) throw new RangeError('a rate of denominator 0');
  if (den < 0n) [num, den] = [-num, -den];
  const g = gcd(num, den);
  return { n: num / g, d: den / g };
}

export const ZERO_RATE: Rate = { n: 0n, d: 1n };
export const ONE_RATE: Rate = { n: 1n, d: 1n };

/** a × b. */
export function timesRate(a: Rate, b: Rate): Rate {
  return rateOf(a.n * b.n, a.d * b.d);
}

/** 1 − r. */
export function complementOf(r: Rate): Rate {
  return rateOf(r.d - r.n, r.d);
}

/** a < b. */
export function rateBelow(a: Rate, b: Rate): boolean {
  return a.n * b.d < b.n * a.d;
}

/** Floor of cents × r: the rate's share of an amount, rounded down to the cent. */
export function shareOf(amount: Cents, r: Rate): Cents {
  const product = BigInt(amount) * r.n;
  // BigInt division truncates toward zero: step down once more for a negative remainder.
  let q = product / r.d;
  if (product % r.d !== 0n && product < 0n) q -= 1n;
  return cents(Number(q));
}

/** Floor of amount × part ÷ whole (whole > 0): an amount in proportion, rounded down to the cent. */
export function proportionOf(amount: Cents, part: Cents, whole: Cents): Cents {
  return shareOf(amount, rateOf(part, whole));
}

const DECIMAL_RATE = /^(\d{1,6})(?:\.(\d{1,12}))?(%?)$/;

/**
 * A rate written as a decimal fraction ("0.15") or a percentage ("15%", "12.5%"), exactly; null
 * for anything else (a negative, an exponent, words). Between 0 and 1 inclusive is the caller's
 * to require.
 */
export function parseRate(text: string): Rate | null {
  const match = DECIMAL_RATE.exec(text.trim());
  if (!match) return null;
  const [, whole = '0', fraction = '', percent] = match;
  const scale = 10n ** BigInt(fraction.length) * (percent ? 100n : 1n);
  return rateOf(BigInt(whole + fraction), scale);
}

/** A rate as a percentage with `digits` decimals, rounded half up for display ("12.35 %"). */
export function formatRate(r: Rate, digits = 2): string {
  const scale = 10n ** BigInt(digits);
  const scaled = (r.n * 100n * scale * 2n + r.d) / (2n * r.d);
  const whole = scaled / scale;
  const fraction = (scaled % scale).toString().padStart(digits, '0');
  return `${whole}${digits > 0 ? `.${fraction}` : ''} %`;
}

/** A rate as an exact decimal string when it has one within 12 places ("0.125"), else "n/d": how it is stated in JSON and the manifest. */
export function rateText(r: Rate): string {
  let d = r.d;
  let places = 0;
  while (d % 10n === 0n) {
    d /= 10n;
    places += 1;
  }
  let twos = 0;
  let fives = 0;
  while (d % 2n === 0n) {
    d /= 2n;
    twos += 1;
  }
  while (d % 5n === 0n) {
    d /= 5n;
    fives += 1;
  }
  if (d !== 1n || places + Math.max(twos, fives) > 12) return `${r.n}/${r.d}`;
  const digits = places + Math.max(twos, fives);
  const scaled = (r.n * 10n ** BigInt(digits)) / r.d;
  const text = scaled.toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}
