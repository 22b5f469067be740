/**
 * Where a mirror lives, as output shows it: a server's URL never shows any part of a password,
 * whatever characters the password holds, in a message, in doctor or in --help.
 */
import { describe, expect, it } from 'vitest';
import { shownDb } from '../../src/db/location.js';
import { cleanEnv, runCli } from '../support/cli.js';

const SECRET = 'Tail-Secret-77q';

describe('a mirror URL as output shows it', () => {
  it.each([
    [
      `postgres://recon:pa@ss@${SECRET}@db.example:5432/ledger?schema=merchant_a`,
      'postgres://db.example:5432/ledger?schema=merchant_a',
    ],
    [`postgres://recon:${SECRET}@db.example/ledger`, 'postgres://db.example/ledger'],
    [`postgresql://recon:a:b/@${SECRET}@db.example/ledger?schema=s`, 'postgresql://db.example/ledger?schema=s'],
    [`postgres://db.example/ledger?schema=s&password=${SECRET}`, 'postgres://db.example/ledger?schema=s&password=…'],
    ['data/ledger.db', 'data/ledger.db'],
  ])('%s is shown as %s', (url, shown) => {
    expect(shownDb(url)).toBe(shown);
  });

  it("never prints a password holding @ in --help, in check's line or in doctor", async () => {
    const url = `postgres://recon:x@${SECRET}@127.0.0.1:9/ledger?schema=merchant_a`;
    const env = cleanEnv({ LEDGER_RECON_DB: url });
    for (const args of [['--help'], ['check', '--help'], ['check'], ['doctor'], ['sql', 'SELECT 1']]) {
      const result = await runCli(args, env);
      expect(result.stdout + result.stderr, args.join(' ')).not.toMatch(/Tail-Secret|77q/);
    }
  }, 60_000);
});
