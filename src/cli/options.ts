/**
 * What the program's declarations are made of: options that take a whole number, one of some
 * choices, a variable's value, a list or a parsed value, and the parsers behind them. A value
 * that does not read is a usage error naming its flag (exit 2).
 */
import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { amountsPerCurrency } from '../app/settings.js';

/** A whole number ≥ `min`, or a usage error naming the flag. */
export const integer =
  (name: string, min: number) =>
  (value: string): number => {
    if (!/^-?\d+$/.test(value) || Number(value) < min)
      throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return Number(value);
  };

/** The flag of a declaration: `--max-rows <n>` → `--max-rows`. */
const flagOf = (flags: string): string => flags.split(/[ ,]/)[0] ?? flags;

/** An option taking a whole number ≥ `min`, `value` by default. */
export function int<U extends string, D extends number | undefined = undefined>(
  flags: U,
  help: string,
  min: number,
  value?: D,
) {
  return new Option(flags, help).argParser(integer(flagOf(flags), min)).default(value as D);
}

/** An option taking one of `choices`, `value` by default. */
export function oneOf<U extends string, const C extends readonly string[], D extends C[number] | undefined = undefined>(
  flags: U,
  help: string,
  choices: C,
  value?: D,
) {
  return new Option(flags, help).choices(choices).default(value as D);
}

/** An option its environment variable sets too (help names the variable, never its value). */
export function fromEnv<U extends string>(flags: U, help: string, variable: string) {
  return new Option(flags, help).env(variable);
}

/** An option whose value `parse` reads (a usage error when it cannot). */
export function parsed<U extends string, T>(flags: U, help: string, parse: (value: string) => T) {
  return new Option(flags, help).argParser(parse);
}

/** A repeatable option: every value given, in order. */
export function repeated<U extends string>(flags: U, help: string) {
  return new Option(flags, help).argParser((value: string, previous: string[] = []) => [...previous, value]);
}

/** `USD=100.00,EUR=100` → cents per currency, read exactly from the decimal text; a usage error saying why not. */
export const materiality = (value: string): Map<string, number> => {
  try {
    return amountsPerCurrency(value);
  } catch (error) {
    throw new InvalidArgumentError(`It takes ${(error as Error).message}.`);
  }
};

/** The same, as the JSON-friendly record the check options keep. */
export const amounts = (value: string): Record<string, number> => Object.fromEntries(materiality(value));

/** An http(s) URL, or a usage error naming the flag. */
export const httpUrl =
  (flag: string) =>
  (value: string): string => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new InvalidArgumentError(`${flag} needs an http:// or https:// URL, e.g. http://pushgateway:9091`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new InvalidArgumentError(`${flag} needs an http:// or https:// URL, e.g. http://pushgateway:9091`);
    return value;
  };

/** A probability from 0 to 1. */
export const rate = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
};

/** A help's examples, as gh and hledger show them: what each does (`# …`), then the command line. */
export function examples(lines: readonly (readonly [string, string])[]): string {
  return `\nExamples:\n${lines.map(([command, comment]) => `  # ${comment}\n  ledger-recon ${command}`).join('\n\n')}`;
}
