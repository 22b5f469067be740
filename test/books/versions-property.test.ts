/**
 * A fast-check property over versions of one books file full of equal rows (a promo code used
 * many times a day), each version imported over the last into a real mirror: whatever the order
 * of the rows and however the batches of the import cut them, the rows held are exactly the
 * version's rows (each meaning as many times as the version has it, at its lines), the rows
 * withdrawn are what the version before held beyond it, the rows added what no version before
 * held (a row withdrawn and back is held again, not new), and no row is held twice. And each
 * version's rows as they stood once it was imported (which were held, which withdrawn) are
 * rebuilt from the mirror after every later version (books/store-past.ts: a past night's books).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importBooksFile } from '../../src/books/import-books.js';
import { ADD_AT_ONCE } from '../../src/books/store.js';
import { copyBooksAsOf } from '../../src/books/store-past.js';
import { openMirror } from '../../src/db/mirror.js';
import { mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { runs } from '../support/property.js';

const CODES = ['SUMMER', 'WINTER', 'SPRING'] as const;
const DAYS = ['2026-10-01', '2026-10-02'] as const;

/** A use: which code, on which day. */
const use = fc.tuple(fc.constantFrom(...CODES), fc.constantFrom(...DAYS));
/**
 * A version: mostly a few meanings repeated, long enough that the import's batches
 * (ADD_AT_ONCE rows) cut the equal rows of one meaning apart.
 */
const version = fc.oneof(
  fc.array(use, { maxLength: 20 }),
  fc.array(use, { minLength: ADD_AT_ONCE - 50, maxLength: ADD_AT_ONCE * 2 + 200, size: 'max' }),
);

const hashOf = (code: string): string => createHash('sha256').update(code).digest('hex');
/** A meaning as the mirror holds it: the code's hash and the day as written. */
const meaningOf = (code: string, day: string): string => `${hashOf(code)} ${day}`;

/** How many rows of each meaning a version holds. */
function counted(uses: ReadonlyArray<readonly [string, string]>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [code, day] of uses) counts.set(meaningOf(code, day), (counts.get(meaningOf(code, day)) ?? 0) + 1);
  return counts;
}

/** Rows a version has beyond `other`, meaning by meaning. */
function beyond(these: Map<string, number>, other: Map<string, number>): number {
  let n = 0;
  for (const [meaning, count] of these) n += Math.max(0, count - (other.get(meaning) ?? 0));
  return n;
}

describe('versions of a books file of equal rows', () => {
  it('hold exactly the last version’s rows at its lines, each added or withdrawn once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(version, { minLength: 1, maxLength: 3 }), async (versions) => {
        const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-books-versions-'));
        const mirror = await openMirrorAt(mirrorAt(dir));
        try {
          const file = join(dir, 'coupon-uses.csv');
          let before = new Map<string, number>();
          // A row a version withdrew and a later one holds again is the same row, held again: not new.
          const ever = new Map<string, number>();
          // Every row as each version left them, by the version's file ID.
          const stood: Array<{ fileId: number; rows: string[] }> = [];
          const everyRow = 'SELECT row_id, withdrawn_file_id FROM books_rows ORDER BY row_id';
          const rowText = (r: { row_id: number; withdrawn_file_id: number | null }) =>
            `${r.row_id} withdrawn ${r.withdrawn_file_id ?? '-'}`;
          for (const [n, uses] of versions.entries()) {
            // A version of no row is a quiet day's header alone; a trailing number keeps equal versions apart.
            writeFileSync(
              file,
              ['couponCode,time', ...uses.map(([code, day]) => `${code},${day}`)].join('\n') + `\n`.repeat(n + 1),
            );
            const result = await importBooksFile(mirror, file, {
              kind: 'coupon-uses',
              replace: true,
              nowMs: 1_800_000_000_000 + n,
            });
            const now = counted(uses);
            expect(result.problems).toEqual([]);
            expect(result.rowsRead).toBe(uses.length);
            expect(result.rowsAdded).toBe(beyond(now, ever));
            expect(result.rowsWithdrawn).toBe(beyond(before, now));
            const held = await rowsOfMirror<{ code: string; day: string; line: number }>(
              mirrorAt(dir),
              'SELECT code_sha256 AS code, at_text AS day, line_no AS line FROM books_rows WHERE withdrawn_file_id IS NULL ORDER BY line_no',
            );
            expect(held.map(({ code, day, line }) => `${line} ${code} ${day}`)).toEqual(
              uses.map(([code, day], i) => `${i + 2} ${meaningOf(code, day)}`),
            );
            before = now;
            for (const [meaning, count] of now) ever.set(meaning, Math.max(count, ever.get(meaning) ?? 0));
            const [newest] = await rowsOfMirror<{ id: number }>(
              mirrorAt(dir),
              'SELECT MAX(file_id) AS id FROM books_files',
            );
            stood.push({
              fileId: Number(newest?.id),
              rows: (await rowsOfMirror<Parameters<typeof rowText>[0]>(mirrorAt(dir), everyRow)).map(rowText),
            });
          }
          for (const [n, { fileId, rows }] of stood.entries()) {
            // The scratch mirror re-performance rebuilds a night in: SQLite, whatever the mirror's database.
            const scratch = openMirror(join(dir, `as-of-${n}.db`));
            try {
              await copyBooksAsOf(mirror, fileId, scratch);
              const copied = await scratch.connection.read<Parameters<typeof rowText>[0]>(everyRow).all();
              expect(copied.map(rowText)).toEqual(rows);
            } finally {
              await scratch.close();
            }
          }
        } finally {
          await mirror.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      runs(15),
    );
  }, 120_000);
});
