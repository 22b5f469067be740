/**
 * The merchant's books as a careless exporter and an attacker write them: every case costs what
 * it breaks and no more, is named, and never hides a break, leaks a code or wedges a night.
 * Each runs the real CLI over real files and a real mirror.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { cleanEnv, runCli, simulatorEnv } from '../support/cli.js';

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-books-hostile-'));
  db = join(dir, 'ledger.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = 'reference,type,amount,currency,time';
const tender = (n: number): string => `ORD-${n},payment,${(n % 90) + 10}.25,USD,2026-10-0${(n % 9) + 1}T12:00:00Z`;
const importBooks = (...args: string[]) => runCli(['books', 'import', '--db', db, ...args], cleanEnv());

function query<T>(sql: string): T[] {
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite.prepare(sql).all() as T[];
  } finally {
    sqlite.close();
  }
}
const count = (sql: string): number => Object.values(query<Record<string, number>>(sql)[0]!)[0]!;

describe('a stray quote costs its record alone', () => {
  // 20,000 rows after the bad one: more than the 1 MiB a record may hold, so a scanner that
  // followed every quote would take the rest of the file for one record and drop it.
  const rows = Array.from({ length: 20_000 }, (_, i) => tender(i + 1));
  const cases: Array<[string, string]> = [
    ['a quote inside an unquoted field', 'ORD-X,payment,25.00,USD,2026-10-01T12:00:00Z,12" card'],
    ['a backslash-escaped quote', 'ORD-X,payment,25.00,USD,2026-10-01T12:00:00Z,"12\\" card"'],
  ];
  for (const [name, bad] of cases) {
    it(`${name}: every other row is read and the night is named incomplete`, async () => {
      const file = join(dir, 'tenders.csv');
      writeFileSync(file, [`${HEADER},note`, `${tender(0)},x`, bad, ...rows.map((r) => `${r},x`)].join('\n'));
      const result = await importBooks(file);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toMatch(new RegExp(`^${file}:3: a quote inside`));
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(count('SELECT COUNT(*) FROM books_rows')).toBe(20_001);
    }, 60_000);
  }

  it('CR-only line ends over 1 MiB are lines, not one record', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(file, [HEADER, tender(0), 'ORD-X,payment,25.00,USD,12" card', ...rows].join('\r'));
    const result = await importBooks(file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^${file}:3: a quote inside the unquoted field "time"`));
    expect(count('SELECT COUNT(*) FROM books_rows')).toBe(20_001);
  }, 60_000);

  it('a quote that never closes names the lines it hid, and the file is not complete', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(file, [HEADER, tender(1), tender(2), 'ORD-X,payment,25.00,USD,"2026-10-01', tender(3), tender(4)].join('\n'));
    const result = await importBooks(file);
    expect(result.stderr).toContain(`${file}:4: a quote opens on line 4 and never closes: lines 4 to 6 (3 lines) were not read`);
    expect(result.stdout).toMatch(/2 rows read from 6 lines: 2 new, .*; not complete: a quote opens on line 4/);
  });

  describe('in the night', () => {
    let sim: Simulator;
    beforeAll(async () => {
      sim = await startSimulator({ seed: 23, size: 'tiny' });
    });
    afterAll(() => sim.close());

    it('a books-only tender behind a stray quote makes the night INCOMPLETE naming the file, never RECONCILED', async () => {
      const books = join(dir, 'books');
      sim.writeBooks(books);
      const path = join(books, 'tenders.csv');
      const lines = readFileSync(path, 'utf8').split('\n');
      // A books-only 25.00 tender whose reference carries a stray quote, on line 3.
      const fields = lines[1]!.split(',');
      const header = lines[0]!.split(',');
      const at = (name: RegExp): number => header.findIndex((h) => name.test(h));
      fields[at(/amount/i)] = '25.00';
      fields[at(/order no|ref/i)] = 'TILL-12" card';
      lines.splice(2, 0, fields.join(','));
      writeFileSync(path, lines.join('\n'));
      const night = await runCli(['run', '--db', db, '--out', join(dir, 'out'), '--books', books, '--json'], simulatorEnv(sim));
      const json = JSON.parse(night.stdout) as { verdict: string; books: { rowsRejected: number; failed: { file: string; reason: string }[] } };
      expect(json.verdict).toBe('INCOMPLETE');
      expect(json.books.rowsRejected).toBe(1);
      expect(json.books.failed).toEqual([{ file: path, reason: expect.stringMatching(/^1 of its \d+ rows rejected/) }]);
      expect(night.stderr).toContain(`${path}:3: a quote inside the unquoted field`);
    }, 60_000);
  });
});
