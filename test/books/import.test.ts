/**
 * Importing the merchant's books through the real CLI, with the mistakes real exports make:
 * one line per problem (file and line), exit 2 only when nothing could be imported, and never
 * half a file.
 */
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importTold } from '../support/app.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { mirrorAt, numberOfMirror } from '../support/test-db.js';

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-books-import-'));
  db = mirrorAt(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = 'reference,type,amount,currency,time';
const good = (n: number): string => `ORD-${n},payment,${(n % 90) + 10}.25,USD,2026-10-0${(n % 9) + 1}T12:00:00Z`;
const importBooks = (...args: string[]) => importTold(db, ...args);

const count = (sql: string): Promise<number> => numberOfMirror(db, sql);

describe('books import', () => {
  it('imports the good rows and names each bad one by file and line: a bad date, an amount off the cent, a row with a field missing', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(
      file,
      [
        HEADER,
        good(1),
        'ORD-2,payment,10.00,USD,31.09.2026',
        good(3),
        'ORD-4,payment,10.005,USD,2026-10-01T12:00:00Z',
        'ORD-5,payment,10.00,USD',
        good(6),
      ].join('\n'),
    );
    const result = await importBooks(file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `${file}: tenders, 6 rows read: 3 new, 0 withdrawn, 3 rejected; not complete: 3 of its 6 rows rejected (more than 1 %)\n`,
    );
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^${file}:3: time "31.09.2026" is not a time in RFC 3339`));
    expect(lines[1]).toMatch(new RegExp(`^${file}:5: amount .*10\\.005.*cent`));
    expect(lines[2]).toMatch(new RegExp(`^${file}:6: 4 fields where the header has 5`));
    expect(await count('SELECT COUNT(*) FROM books_rows')).toBe(3);
    expect(await count('SELECT COUNT(*) FROM books_rejections')).toBe(3);
  });

  it('exits 2 with one line when a column the map needs is missing, and records nothing', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(file, ['reference,type,amount,time', 'ORD-1,payment,10.00,2026-10-01T12:00:00Z'].join('\n'));
    const result = await importBooks(file);
    expect(result.status).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `${file}:1: the file has no column "currency" (currency): is it tenders as CSV, and does the map name its columns?`,
    );
    expect(lines.at(-1)).toMatch(/^ledger-recon: nothing could be imported from /);
    expect(await count('SELECT COUNT(*) FROM books_files')).toBe(0);
  });

  it('says a folder is a folder, with or without --kind, and names run --books', async () => {
    for (const args of [[dir], ['--kind', 'tenders', dir]]) {
      const result = await importBooks(...args);
      expect(result.status).toBe(2);
      expect(result.stderr).toBe(
        `ledger-recon: ${dir}: a folder, where books import takes files: name its files (ledger-recon books import ${dir}/*.csv), or let the nightly run import the folder (ledger-recon run --books ${dir})\n`,
      );
    }
  });

  it('exits 2 on a file that is not CSV at all', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(
      file,
      Buffer.from([
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0x22, 0xff, 0xfe, 0x0a,
        0x01, 0x02,
      ]),
    );
    const result = await importBooks(file);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^${file}:1: `));
    expect(await count('SELECT COUNT(*) FROM books_rows')).toBe(0);
  });

  it('skips a 200 MB line without reading it whole, and imports the rest', async () => {
    const file = join(dir, 'tenders.csv');
    const out = createWriteStream(file);
    out.write(`${HEADER}\n${good(1)}\nORD-HUGE,payment,10.00,USD,"`);
    const chunk = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 200; i += 1) if (!out.write(chunk)) await once(out, 'drain');
    out.end(`"\n${good(2)}\n`);
    await once(out, 'finish');
    const result = await importBooks(file);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^${file}:3: a record longer than 1,048,576 bytes`));
    expect(await count('SELECT COUNT(*) FROM books_rows')).toBe(2);
  }, 120_000);

  it('imports a file whole or not at all: a process killed mid-file leaves none of its rows', async () => {
    const file = join(dir, 'tenders.csv');
    writeFileSync(file, [HEADER, ...Array.from({ length: 200_000 }, (_, i) => good(i))].join('\n'));
    await importBooks(join(dir, 'tenders.csv'), '--kind', 'tenders').then(() => undefined);
    const whole = await count('SELECT COUNT(*) FROM books_rows');
    expect(whole).toBe(200_000);
    // A second, changed version, killed part-way: the mirror keeps the first version exactly.
    writeFileSync(file, [HEADER, ...Array.from({ length: 200_000 }, (_, i) => good(i + 7))].join('\n'));
    const killed = await runCli(['books', 'import', '--db', db, file], cleanEnv(), { killAfterMs: 1_500 });
    const after = await count('SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NULL');
    if (killed.signal === 'SIGKILL') {
      expect(after).toBe(200_000);
      expect(await count('SELECT COUNT(*) FROM books_files')).toBe(1);
    } else expect(await count('SELECT COUNT(*) FROM books_files')).toBe(2);
  }, 120_000);
});
