/**
 * The merchant's books as a careless exporter and an attacker write them: every case costs what
 * it breaks and no more, is named, and never hides a break, leaks a code or wedges a night.
 * Each runs the real CLI over real files and a real mirror.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { importTold, nightOf } from '../support/app.js';
import { booksFilesIn } from '../../src/books/import-books.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { everyTextInMirror, mirrorAt, numberOfMirror, rowsOfMirror } from '../support/test-db.js';
import { everyByteWritten } from '../support/written.js';
import { runs } from '../support/property.js';

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-books-hostile-'));
  db = mirrorAt(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = 'reference,type,amount,currency,time';
const tender = (n: number): string => `ORD-${n},payment,${(n % 90) + 10}.25,USD,2026-10-0${(n % 9) + 1}T12:00:00Z`;
const importBooks = (...args: string[]) => importTold(db, ...args);

const query = <T>(sql: string): Promise<T[]> => rowsOfMirror<T>(db, sql);
const count = (sql: string): Promise<number> => numberOfMirror(db, sql);

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
      expect(await count('SELECT COUNT(*) FROM books_rows')).toBe(20_001);
    }, 60_000);
  }

  it('CR-only line ends over 1 MiB are lines, not one record', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(file, [HEADER, tender(0), 'ORD-X,payment,25.00,USD,12" card', ...rows].join('\r'));
    const result = await importBooks(file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^${file}:3: a quote inside the unquoted field "time"`));
    expect(await count('SELECT COUNT(*) FROM books_rows')).toBe(20_001);
  }, 60_000);

  it('a quote that never closes names the lines it hid, and the file is not complete', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(
      file,
      [HEADER, tender(1), tender(2), 'ORD-X,payment,25.00,USD,"2026-10-01', tender(3), tender(4)].join('\n'),
    );
    const result = await importBooks(file);
    expect(result.stderr).toContain(
      `${file}:4: a quote opens on line 4 and never closes: lines 4 to 6 (3 lines) were not read`,
    );
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
      const night = await nightOf(sim, db, join(dir, 'out'), { books: booksFilesIn(books) });
      const json = night.result.record as unknown as {
        verdict: string;
        books: { rowsRejected: number; failed: { file: string; reason: string }[] };
      };
      expect(json.verdict).toBe('INCOMPLETE');
      expect(json.books.rowsRejected).toBe(1);
      expect(json.books.failed).toEqual([{ file: path, reason: expect.stringMatching(/^1 of its \d+ rows rejected/) }]);
      expect(night.notes.join('')).toContain(`${path}:3: a quote inside the unquoted field`);
    }, 60_000);
  });
});

describe('codes from the books never leave in clear', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, size: 'tiny', plant: true });
  });
  afterAll(() => sim.close());

  /** The books folder with codes where careless exports put them; @returns every code written. */
  function carelessBooks(books: string): string[] {
    sim.writeBooks(books);
    const codes: string[] = [];
    const code = (n: number): string => {
      const value = `GCX-${n}-Q7R2-K9W4`;
      codes.push(value);
      return value;
    };
    const tenders = join(books, 'tenders.csv');
    const lines = readFileSync(tenders, 'utf8').trimEnd().split('\n');
    // Order No, Tender Type, Tender Amount, Currency, Posted At, Gift Card Code
    const base = lines[1]!.split(',');
    const row = (changes: Record<number, string>): string => base.map((field, i) => changes[i] ?? field).join(',');
    const shifted = code(1);
    lines.push(row({ 0: 'ORD-SHIFT-1', 2: shifted, 5: '' }));
    const asTime = code(2);
    lines.push(row({ 0: 'ORD-SHIFT-2', 4: asTime }));
    const asType = code(3);
    lines.push(row({ 0: 'ORD-SHIFT-3', 1: asType }));
    const asCurrency = code(4);
    lines.push(row({ 0: 'ORD-SHIFT-4', 3: asCurrency }));
    const asReference = code(5);
    lines.push(row({ 0: asReference, 5: asReference }));
    lines.push(row({ 0: 'ORD-CODED-6', 5: code(6) }));
    writeFileSync(tenders, `${lines.join('\n')}\n`);
    // An unmapped Voucher Code column in the DP export.
    const purchases = join(books, 'dp-purchases.csv');
    const dp = readFileSync(purchases, 'utf8').trimEnd().split('\n');
    writeFileSync(purchases, `${dp.map((l, i) => `${l};${i === 0 ? 'Voucher Code' : code(100 + i)}`).join('\n')}\n`);
    // The coupon codes the export carries already.
    const uses = readFileSync(join(books, 'coupon-uses.csv'), 'utf8').trimEnd().split('\n').slice(1);
    codes.push(...uses.map((l) => l.split(',')[1]!).filter((c) => c !== ''));
    return codes;
  }

  it('a shifted row, a reference that is the code, an unmapped Voucher Code: no byte the product writes holds a code', async () => {
    const books = mkdtempSync(join(tmpdir(), 'ledger-recon-careless-books-'));
    try {
      const codes = carelessBooks(books);
      expect(codes.length).toBeGreaterThan(10);
      const out = join(dir, 'out');
      const ran = await nightOf(sim, db, out, { books: booksFilesIn(books) });
      const night = { stdout: JSON.stringify(ran.result.record), stderr: ran.notes.join('') };
      expect(night.stderr).toMatch(/Tender Amount \(its value not shown: it may be a code\) is not a decimal amount/);
      const single = await runCli(
        ['books', 'import', '--db', mirrorAt(dir, 'single'), join(books, 'tenders.csv')],
        cleanEnv(),
      );
      const sql = await runCli(['sql', '--db', db, 'SELECT reference, raw_json FROM books_rows'], cleanEnv());
      const written = [
        await everyByteWritten([dir]),
        await everyTextInMirror(db),
        await everyTextInMirror(mirrorAt(dir, 'single')),
      ].join('\n');
      for (const code of codes) {
        for (const [where, text] of [
          ['the files written', written],
          ['stdout', night.stdout + single.stdout + sql.stdout],
          ['stderr', night.stderr + single.stderr + sql.stderr],
        ] as const) {
          expect(text.includes(code), `${code} in ${where}`).toBe(false);
        }
      }
      // The code-as-reference row is matched by its hash, as a reference.
      expect(
        await count(
          `SELECT COUNT(*) FROM books_rows WHERE reference LIKE 'sha256:%' AND reference = 'sha256:' || code_sha256`,
        ),
      ).toBe(1);
    } finally {
      rmSync(books, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses a header that spells the code column otherwise, a map naming one column twice, a type that is both payment and refund', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(
      file,
      ['reference,type,amount,currency,time,Gift card code', `${tender(1)},GCX-77-Q7R2-K9W4`].join('\n'),
    );
    const unmapped = await importBooks(file);
    expect(unmapped.status).toBe(2);
    expect(unmapped.stderr).toContain(
      `${file}:1: the column "Gift card code" looks like a code column the map does not read`,
    );
    const map = join(dir, 'map.json');
    writeFileSync(map, JSON.stringify({ columns: { cardCode: 'Gift Card Code' } }));
    const misspelt = await importBooks('--map', map, file);
    expect(misspelt.status).toBe(2);
    expect(misspelt.stderr).toContain('the file has no column "Gift Card Code" (cardCode)');
    writeFileSync(map, JSON.stringify({ columns: { reference: 'Gift card code', cardCode: 'Gift card code' } }));
    const twice = await importBooks('--map', map, file);
    expect(twice.stderr).toBe(
      `ledger-recon: --map ${map}: the column "Gift card code" is named for both reference and cardCode: each field needs a column of its own\n`,
    );
    writeFileSync(map, JSON.stringify({ types: { payment: ['SALE', 'adj'], refund: ['RETURN', 'ADJ'] } }));
    const both = await importBooks('--map', map, file);
    expect(both.stderr).toBe(
      `ledger-recon: --map ${map}: "adj" is listed as both a payment and a refund: a row of that type could be either\n`,
    );
    expect(await count('SELECT COUNT(*) FROM books_files')).toBe(0);
    for (const result of [unmapped, misspelt, twice, both])
      expect(result.stderr + result.stdout).not.toContain('GCX-77');
  });
});

describe('what is not a books file', () => {
  it('refuses a FIFO, a symlink to /dev/zero and a map on /dev/zero at once, with one line each, and leaves no lock behind', async () => {
    const fifo = join(dir, 'tenders.csv');
    execFileSync('mkfifo', [fifo]);
    const zero = join(dir, 'tenders-zero.csv');
    symlinkSync('/dev/zero', zero);
    for (const file of [fifo, zero]) {
      const result = await importBooks(file);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `^ledger-recon: ${file}: (a FIFO|a device), not a regular file: books are read from a regular file \\(an export written to disk\\)\\n$`,
        ),
      );
    }
    const real = join(dir, 'tenders-real.csv');
    writeFileSync(real, [HEADER, tender(1)].join('\n'));
    const map = await importBooks('--map', '/dev/zero', real);
    expect(map.stderr).toBe('ledger-recon: --map /dev/zero: a device, not a regular file: give --map a file\n');
    // A map that is large: refused by its size, not read whole.
    const huge = join(dir, 'huge.map.json');
    writeFileSync(huge, `{"timeFormats": [${Array.from({ length: 20_000 }, () => '"yyyy-MM-dd"').join(',')}]}`);
    const large = await importBooks('--map', huge, real);
    expect(large.stderr).toMatch(/larger than 65,536 bytes/);
    // The lock went with each: a real import runs.
    expect((await importBooks(real)).status).toBe(0);
  });

  it('names a file of the night that is a FIFO, and checks the services and the rest of the books', async () => {
    const sim = await startSimulator({ seed: 23, size: 'tiny' });
    try {
      const books = join(dir, 'books');
      sim.writeBooks(books);
      const tenders = join(books, 'tenders.csv');
      rmSync(tenders);
      execFileSync('mkfifo', [tenders]);
      const night = await nightOf(sim, db, join(dir, 'out'), { books: booksFilesIn(books) });
      const json = night.result.record as unknown as {
        verdict: string;
        sync: { completed: boolean };
        books: { files: number; failed: { file: string; reason: string }[] };
      };
      expect(json).toMatchObject({ verdict: 'INCOMPLETE', sync: { completed: true }, books: { files: 2 } });
      expect(json.books.failed).toEqual([
        {
          file: tenders,
          reason: `${tenders}: a FIFO, not a regular file: books are read from a regular file (an export written to disk)`,
        },
      ]);
    } finally {
      await sim.close();
    }
  }, 30_000);
});

describe('files written in another encoding, and maps that ask too much', () => {
  it('names the line of a Windows-1252 byte and the map setting, imports nothing of it, and reads it with "encoding"', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(`${HEADER}\n${tender(1)}\n`),
        Buffer.from('Caf\xe9-7,payment,10.00,USD,2026-10-01T12:00:00Z\n', 'latin1'),
      ]),
    );
    const refused = await importBooks(file);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      `${file}:3: line 3 is not UTF-8 text: if the file is written in another encoding, name it in the map ("encoding": "windows-1252"`,
    );
    expect(await count('SELECT COUNT(*) FROM books_rows')).toBe(0);
    const map = join(dir, 'map.json');
    writeFileSync(map, JSON.stringify({ encoding: 'windows-1252' }));
    const read = await importBooks('--map', map, file);
    expect(read.status, read.stderr).toBe(0);
    expect(
      (await query<{ reference: string }>('SELECT reference FROM books_rows ORDER BY line_no')).map((r) => r.reference),
    ).toEqual(['ORD-1', 'Café-7']);
  });

  it('bounds a map’s lists and a problem line', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(file, [HEADER, 'ORD-1,payment,10.00,USD,not a time'].join('\n'));
    const map = join(dir, 'map.json');
    writeFileSync(map, JSON.stringify({ timeFormats: Array.from({ length: 200 }, (_, i) => `yyyy-MM-dd '${i}'`) }));
    const many = await importBooks('--map', map, file);
    expect(many.stderr).toMatch(/^ledger-recon: --map .*: timeFormats: Too big/);
    writeFileSync(
      map,
      JSON.stringify({ timeFormats: Array.from({ length: 20 }, (_, i) => `yyyy-MM-dd HH:mm '${'x'.repeat(90)}${i}'`) }),
    );
    const long = await importBooks('--map', map, file);
    for (const line of long.stderr.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(400);
  });
});

describe('equal rows', () => {
  it('are imported in linear time: 20,000 equal rows, each a row of its own, and again as a new version', async () => {
    const file = join(dir, 'coupon-uses.csv');
    writeFileSync(file, ['couponCode,time', ...Array.from({ length: 20_000 }, () => 'SUMMER,2026-10-01')].join('\n'));
    const first = await importBooks(file);
    expect(first.stdout).toContain('20,000 rows read: 20,000 new');
    writeFileSync(file, ['couponCode,time', ...Array.from({ length: 20_001 }, () => 'SUMMER,2026-10-01')].join('\n'));
    const second = await importBooks(file);
    expect(second.stdout).toContain('20,001 rows read: 1 new, 0 withdrawn');
    expect(await count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL')).toBe(20_001);
  }, 60_000);
});

describe('versions of a source', () => {
  it('refuses next month’s file under the same name withdrawing last month’s books, unless --source or --replace says what it is', async () => {
    const june = join(dir, '2026-06');
    const november = join(dir, '2026-11');
    mkdirSync(june);
    mkdirSync(november);
    writeFileSync(join(june, 'tenders.csv'), [HEADER, ...Array.from({ length: 81 }, (_, i) => tender(i))].join('\n'));
    writeFileSync(
      join(november, 'tenders.csv'),
      [HEADER, ...Array.from({ length: 40 }, (_, i) => tender(i + 1000))].join('\n'),
    );
    expect((await importBooks(join(june, 'tenders.csv'))).status).toBe(0);
    const refused = await importBooks(join(november, 'tenders.csv'));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(
      'would withdraw 81 of the 81 rows its previous version holds: is it another period',
    );
    expect(await count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL')).toBe(81);
    const own = await importBooks('--source', '2026-11/tenders.csv', join(november, 'tenders.csv'));
    expect(own.status, own.stderr).toBe(0);
    expect(await count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL')).toBe(121);
    const replaced = await importBooks('--replace', join(november, 'tenders.csv'));
    expect(replaced.stdout).toContain('40 new, 81 withdrawn');
  });
});

describe('a rolling export (the last N days)', () => {
  /** A tender of day `day` of October. */
  const onDay = (n: number, day: number): string =>
    `ORD-${n},payment,${(n % 90) + 10}.25,USD,2026-10-${String(day).padStart(2, '0')}T12:00:00Z`;

  it('keeps the rows that age out of its window (the matching still reads them, so their breaks stay); a row dropped inside the window is withdrawn', async () => {
    const file = join(dir, 'tenders.csv');
    // Night 1: days 1 to 10, two rows a day. Night 2: days 2 to 11: day 1's two rows aged out,
    // and one row of day 5 dropped (a correction inside the window).
    const window = (from: number, to: number, drop?: number) =>
      Array.from({ length: (to - from + 1) * 2 }, (_, i) => ({ n: from * 2 + i, day: from + Math.floor(i / 2) }))
        .filter(({ n }) => n !== drop)
        .map(({ n, day }) => onDay(n, day));
    writeFileSync(file, [HEADER, ...window(1, 10)].join('\n'));
    expect((await importBooks(file)).status).toBe(0);
    writeFileSync(file, [HEADER, ...window(2, 11, 10)].join('\n'));
    const night2 = await importBooks(file);
    expect(night2.stderr).toBe('');
    expect(night2.status).toBe(0);
    expect(night2.stdout).toBe(
      `${file}: tenders, 19 rows read: 2 new, 1 withdrawn (2 older than this version's first row kept: aged out of the export's window), 0 rejected\n`,
    );
    expect(
      await query<{ reference: string }>(
        "SELECT reference FROM books_rows WHERE withdrawn_file_id IS NULL AND at_text LIKE '2026-10-01%' ORDER BY reference",
      ),
    ).toEqual([{ reference: 'ORD-2' }, { reference: 'ORD-3' }]);
    expect(
      await count("SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NOT NULL AND reference = 'ORD-10'"),
    ).toBe(1);
    // --replace says the version replaces every earlier row: the aged-out rows go too.
    writeFileSync(file, [HEADER, ...window(3, 12)].join('\n'));
    const replaced = await importBooks('--replace', file);
    expect(replaced.stdout).toMatch(/: 2 new, 4 withdrawn, 0 rejected\n$/);
  });

  it('holds, night after night, every row of the current window and every row that aged out (property)', async () => {
    const { importBooksFile } = await import('../../src/books/import-books.js');
    const { openMirrorAt } = await import('../support/test-db.js');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 5 }),
        async (width, steps) => {
          const folder = mkdtempSync(join(dir, 'rolling-'));
          const mirror = await openMirrorAt(mirrorAt(folder));
          try {
            const file = join(folder, 'tenders.csv');
            let from = 1;
            const seen = new Set<string>();
            for (const [night, step] of [0, ...steps].entries()) {
              from += step * (night === 0 ? 0 : 1);
              const rows = Array.from({ length: width * 2 }, (_, i) => onDay(from * 2 + i, from + Math.floor(i / 2)));
              writeFileSync(file, [HEADER, ...rows].join('\n'));
              const result = await importBooksFile(mirror, file, { kind: 'tenders', nowMs: 1_800_000_000_000 + night });
              expect(result.problems).toEqual([]);
              expect(result.rowsWithdrawn).toBe(0);
              for (const row of rows) seen.add(row.split(',')[0]!);
              const held = await rowsOfMirror<{ reference: string }>(
                mirrorAt(folder),
                'SELECT reference FROM books_rows WHERE withdrawn_file_id IS NULL',
              );
              expect(held.map((r) => r.reference).sort()).toEqual([...seen].sort());
            }
          } finally {
            await mirror.close();
          }
        },
      ),
      runs(8),
    );
  }, 120_000);
});

describe('a version is known by its newest bytes, and by the bytes it was parsed from', () => {
  it('imports a file whose bytes return to an earlier version as a new version: the withdrawn row comes back', async () => {
    const file = join(dir, 'tenders.csv');
    const rows = Array.from({ length: 10 }, (_, i) => tender(i));
    const night1 = [HEADER, ...rows, 'ORD-BOOKS-ONLY,payment,25.00,USD,2026-10-02T12:00:00Z'].join('\n');
    writeFileSync(file, night1);
    expect((await importBooks(file)).status).toBe(0);
    writeFileSync(file, [HEADER, ...rows].join('\n'));
    expect((await importBooks(file)).stdout).toContain('1 withdrawn');
    writeFileSync(file, night1);
    const night3 = await importBooks(file);
    expect(night3.status, night3.stderr).toBe(0);
    expect(night3.stdout).not.toMatch(/unchanged/);
    expect(
      await count("SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL AND reference = 'ORD-BOOKS-ONLY'"),
    ).toBe(1);
    expect(await count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL')).toBe(11);
    // The same bytes again are the newest version's: unchanged.
    expect((await importBooks(file)).stdout).toMatch(/unchanged/);
  });

  // The rewrite lands a number of the event loop's turns into the import, not after a guessed time: before the file
  // is read, while it is read (hashed, then parsed in pieces of 64 KB), or after it was parsed, as the machine goes.
  // Every outcome is one of three: refused whole, the first version whole or the second whole; never a mix.
  it.each([0, 30, 300, 3_000, 30_000])(
    'never records a file rewritten while it is imported under bytes it did not parse: refused whole, or one version whole (rewritten %i turns in)',
    async (turns) => {
      const file = join(dir, 'tenders.csv');
      const first = [HEADER, ...Array.from({ length: 50_000 }, (_, i) => tender(i))].join('\n');
      const second = [HEADER, ...Array.from({ length: 1_000 }, (_, i) => tender(i + 500_000))].join('\n');
      writeFileSync(file, first);
      const importing = importBooks(file);
      for (let turn = 0; turn < turns; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      writeFileSync(file, second);
      const result = await importing;
      const held = await count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL');
      const digests = await query<{ sha256: string }>('SELECT sha256 FROM books_files');
      const sha = (text: string) => createHash('sha256').update(text).digest('hex');
      if (result.status === 2) {
        expect(result.stderr).toMatch(
          /the file changed while it was read .* nothing of it was imported; import it again once its writer has finished\n$/,
        );
        expect(held).toBe(0);
        expect(digests).toEqual([]);
      } else {
        // The rewrite came before the file was first read (the second version, whole) or after the import had
        // parsed every byte it hashed (the first version, whole): the rows held are the recorded version's, all of them.
        expect(result.status, result.stderr).toBe(0);
        const recorded = digests.map((d) => d.sha256);
        expect([[sha(first)], [sha(second)]]).toContainEqual(recorded);
        expect(held).toBe(recorded[0] === sha(first) ? 50_000 : 1_000);
      }
      // Imported again, the file as it now is goes in whole (replacing a first version it withdraws nearly all of).
      const again = await importBooks(file, '--replace');
      expect(again.status, again.stderr).toBe(0);
      expect(await count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL')).toBe(1_000);
    },
    60_000,
  );
});

describe('names that would forge lines', () => {
  it("shows a line break in a books file's name escaped: one line per problem, none forged", async () => {
    const file = join(dir, 'tenders\nledger-recon: RECONCILED.csv');
    writeFileSync(file, [HEADER, tender(1), 'ORD-BAD,payment,not-money,USD,2026-10-01T12:00:00Z'].join('\n'));
    const result = await importBooks(file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^.*tenders\\nledger-recon: RECONCILED\.csv:3: /);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  it.each([
    ['blank', ''],
    ['a line break', 'tenders\nledger-recon: RECONCILED'],
    ['100 KB', 'x'.repeat(100_000)],
  ])('refuses a --source that is %s, in one line', async (_what, source) => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(file, [HEADER, tender(1)].join('\n'));
    const result = await importBooks('--source', source, file);
    expect(result.status).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr.length).toBeLessThan(400);
    expect(result.stderr).toMatch(
      /^ledger-recon: --source names what a file is a version of in at most 200 characters, on one line and not blank/,
    );
  });
});

describe('a books file of a size no export has', () => {
  it('is refused before a byte is read, in one line naming the limit (LEDGER_RECON_MAX_BOOKS_MB)', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(file, [HEADER, ...Array.from({ length: 40_000 }, (_, i) => tender(i))].join('\n'));
    const result = await runCli(['books', 'import', '--db', db, file], cleanEnv({ LEDGER_RECON_MAX_BOOKS_MB: '1' }));
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `ledger-recon: ${file}: 2 MB, more than the 1 MB a books file may be (LEDGER_RECON_MAX_BOOKS_MB): is it the right file? Split the export by period, or raise the limit\n`,
    );
    const bad = await runCli(['books', 'import', '--db', db, file], cleanEnv({ LEDGER_RECON_MAX_BOOKS_MB: 'lots' }));
    expect(bad.stderr).toBe(
      'ledger-recon: LEDGER_RECON_MAX_BOOKS_MB is "lots": it must be whole megabytes, at least 1\n',
    );
    const allowed = await importBooks(file);
    expect(allowed.status, allowed.stderr).toBe(0);
  });
});

describe('a renamed export', () => {
  it('is known by its bytes: the same file under another name is not imported twice, and says which source it is', async () => {
    const first = join(dir, 'tenders.csv');
    const renamed = join(dir, 'tenders-2026-11.csv');
    const text = [HEADER, ...Array.from({ length: 50 }, (_, i) => tender(i))].join('\n');
    writeFileSync(first, text);
    writeFileSync(renamed, text);
    expect((await importBooks(first)).status).toBe(0);
    const again = await importBooks(renamed);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe(
      `${renamed}: tenders, the same bytes as tenders.csv, imported already: not imported twice (--source NAME imports it as a version of NAME)\n`,
    );
    expect(await count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL')).toBe(50);
    // Told what it is, it is that source's version: unchanged.
    const told = await importBooks('--source', 'tenders.csv', renamed);
    expect(told.stdout).toMatch(/unchanged since imported/);
  });
});
