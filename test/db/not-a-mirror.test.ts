/**
 * A `--db` that is no mirror, as a new user gives one: a folder, a README, a mistyped file name
 * beside the real mirror, a LEDGER_RECON_HOME that does not exist. Each is named for what it
 * is, with the fix, and nothing is made beside it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noMirrorAt, openForReading, openForWriting } from '../../src/db/mirror.js';

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-not-a-mirror-'));
  // A real mirror, data/ledger.db, beside which the typos fall.
  const { release } = await openForWriting(join(dir, 'data', 'ledger.db'), 'sync');
  await release();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a --db that is no mirror', () => {
  it('is a folder: said so, with the file to give, by a reading and a writing command alike', async () => {
    const folder = join(dir, 'data');
    const said = `--db ${folder}: it is a folder: give --db the mirror's file, e.g. ${join(folder, 'ledger.db')}`;
    await expect(openForReading(folder)).rejects.toThrow(said);
    await expect(openForWriting(folder, 'check')).rejects.toThrow(said);
  });

  it('is a file that is no SQLite database: said so, and no lock file is left beside it', async () => {
    const readme = join(dir, 'README.md');
    writeFileSync(readme, '# a readme\n');
    const said = `--db ${readme}: not a mirror (the file is no SQLite database): give --db the mirror's file, e.g. ${join(dir, 'ledger.db')}`;
    await expect(openForReading(readme)).rejects.toThrow(said);
    await expect(openForWriting(readme, 'check')).rejects.toThrow(said);
    expect(readdirSync(dir).filter((name) => name.startsWith('README.md'))).toEqual(['README.md']);
  });

  it('is a mistyped name beside a mirror: the mirror beside it is named', async () => {
    const typo = join(dir, 'data', 'ledgr.db');
    await expect(openForReading(typo)).rejects.toThrow(
      `there is no mirror at ${typo}, but ${join(dir, 'data', 'ledger.db')} is one beside it: give --db one of them, or run \`ledger-recon sync\` to make a new one there`,
    );
    expect(existsSync(typo)).toBe(false);
    // Where nothing stands beside it, the command that makes one.
    const alone = join(dir, 'empty', 'ledger.db');
    mkdirSync(join(dir, 'empty'));
    expect(noMirrorAt(alone, alone).message).toBe(`there is no mirror at ${alone}: run \`ledger-recon sync\` first`);
  });

  it('is the default under a LEDGER_RECON_HOME that does not exist: the variable is named, not the --db nobody typed', () => {
    const home = join(dir, 'no-such-home');
    const before = process.env['LEDGER_RECON_HOME'];
    process.env['LEDGER_RECON_HOME'] = home;
    try {
      const db = join(home, 'data', 'ledger.db');
      expect(noMirrorAt(db, db).message).toBe(
        `LEDGER_RECON_HOME is ${home}, which does not exist, so there is no mirror at ${db}: set LEDGER_RECON_HOME to the folder that holds data/ledger.db, or give --db`,
      );
    } finally {
      if (before === undefined) delete process.env['LEDGER_RECON_HOME'];
      else process.env['LEDGER_RECON_HOME'] = before;
    }
  });
});
