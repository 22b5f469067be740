/**
 * `verify --run N` re-performs a night's books: the books as its matching read them (rows the
 * books import added later left out, a row a later version withdrew still in), matched again
 * against the ledger as of its sync, and the books' checks drafted again and compared with what
 * it stated. The real CLI over the simulator's planted world and its books exports.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { nightOf, reportOf, told } from '../support/app.js';
import { verifyNight, whatIfRun } from '../../src/app/verified.js';
import { booksFilesIn } from '../../src/books/import-books.js';
import { changeMirror, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { BooksNotMatchable, whatIf } from '../../src/evidence/reperform.js';

let dir: string;
let sim: Simulator;
let db: string;
const nights: number[] = [];

interface Verified {
  differences: string[];
  booksKept: boolean;
  booksFindings?: number;
  booksRows?: number;
}

/** Check run `run` re-performed in this process (src/app/verified.ts, what `verify --run N` calls), told as the CLI tells it. */
const verify = async (run: number) => {
  const result = await told(() => verifyNight(run, { db }));
  return { ...result, verified: (result.record ?? {}) as unknown as Verified };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-reperform-books-'));
  db = mirrorAt(dir);
  sim = await startSimulator({ seed: 21, size: 'tiny', plant: true });
  const books = join(dir, 'books');
  const night = async () => {
    const { result } = await nightOf(sim, db, join(dir, 'reports'), { books: booksFilesIn(books) });
    if (!result.ok) throw new Error(`the night failed: ${result.record.error.message}`);
    nights.push(result.record.runId);
  };
  sim.writeBooks(books);
  await night();
  // The next night: activity in the services, and the books' tenders file loses its last row
  // (a later version withdraws it) and gains a row of its own (a payment the ledger never saw).
  sim.applyActivity(30);
  const tenders = join(books, 'tenders.csv');
  const original = readFileSync(tenders, 'utf8');
  const lines = original.trimEnd().split('\n');
  const last = lines.at(-1)!.split(',');
  const added = [...last];
  added[0] = 'POS-REPERFORM-0001';
  writeFileSync(tenders, `${[...lines.slice(0, -1), added.join(',')].join('\n')}\n`);
  await night();
  // The third: the file as it was, so the withdrawn row comes back and the added one is withdrawn.
  sim.applyActivity(30);
  writeFileSync(tenders, original);
  await night();
}, 240_000);

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("verify --run, the books' checks", () => {
  it("re-performs each night's books as its matching read them, after later versions withdrew a row, added one and brought the first back", async () => {
    const [changed] = await rowsOfMirror<{ withdrawn: number; back: number }>(
      db,
      `SELECT SUM(CASE WHEN withdrawn_file_id IS NOT NULL THEN 1 ELSE 0 END) AS withdrawn,
              (SELECT COUNT(*) FROM books_row_changes WHERE withdrawn_file_id IS NOT NULL) AS back FROM books_rows`,
    );
    expect(Number(changed?.withdrawn)).toBe(1);
    expect(Number(changed?.back)).toBe(1);
    for (const run of nights) {
      const { status, stderr, verified } = await verify(run);
      expect(verified.differences, stderr).toEqual([]);
      expect(status).toBe(0);
      expect(verified.booksKept).toBe(true);
      expect(verified.booksFindings).toBeGreaterThan(0);
      expect(verified.booksRows).toBeGreaterThan(0);
    }
    const text = await told(() => verifyNight(nights[0]!, { db }));
    expect(text.stdout).toMatch(/findings of the books' checks over its [\d,]+ books rows matched again/);
    expect(text.stdout).not.toContain('not yet');
  }, 120_000);

  it("names a books row's amount changed in the mirror's past by SQL", async () => {
    const [row] = await rowsOfMirror<{ row_id: number; amount_cents: number }>(
      db,
      `SELECT b.row_id, b.amount_cents FROM books_rows b WHERE b.kind = 'tenders' AND b.withdrawn_file_id IS NULL
       AND b.reference IS NOT NULL ORDER BY b.row_id LIMIT 1`,
    );
    if (!row) throw new Error('the books hold no tender');
    await changeMirror(db, 'UPDATE books_rows SET amount_cents = amount_cents + 100 WHERE row_id = ?', row.row_id);
    try {
      const { status, verified } = await verify(nights[0]!);
      expect(status).toBe(1);
      expect(verified.differences.some((d) => /^finding BK_\w+ [0-9a-f]+/.test(d))).toBe(true);
    } finally {
      await changeMirror(db, 'UPDATE books_rows SET amount_cents = ? WHERE row_id = ?', row.amount_cents, row.row_id);
    }
    expect((await verify(nights[0]!)).status).toBe(0);
  }, 120_000);

  it("seals the books files each night read, not the newest, and names a file's digest changed since", async () => {
    const booksOf = async (run: number) => {
      const [stored] = await rowsOfMirror<{ manifest_json: string }>(
        db,
        'SELECT manifest_json FROM evidence_manifests WHERE subject = ? ORDER BY sequence DESC LIMIT 1',
        `check run ${run}`,
      );
      const books = (JSON.parse(stored!.manifest_json) as { books: { source: string; sha256: string }[] }).books;
      return books.find((f) => f.source === 'tenders.csv')?.sha256;
    };
    const [first, second] = [await booksOf(nights[0]!), await booksOf(nights[1]!)];
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(second).not.toBe(first);
    // Written again after later imports, the first night's report still seals the books it read.
    await reportOf(db, { checkRunId: nights[0]!, outDir: join(dir, 'again') });
    expect(await booksOf(nights[0]!)).toBe(first);
    const [file] = await rowsOfMirror<{ file_id: number }>(
      db,
      "SELECT file_id FROM books_files WHERE source = 'tenders.csv' AND sha256 = ? ORDER BY file_id LIMIT 1",
      first,
    );
    await changeMirror(db, 'UPDATE books_files SET sha256 = ? WHERE file_id = ?', 'f'.repeat(64), file!.file_id);
    try {
      const { status, verified } = await verify(nights[0]!);
      expect(status).toBe(1);
      expect(verified.differences).toContain(
        `books file tenders tenders.csv (SHA-256 ${first}): sealed, not among those the night read`,
      );
    } finally {
      await changeMirror(db, 'UPDATE books_files SET sha256 = ? WHERE file_id = ?', first, file!.file_id);
    }
  }, 120_000);

  it('says what the books would show under another tolerance, the sealed night untouched', async () => {
    const result = await told(() => whatIfRun(nights[0]!, ['books-tolerance=USD=1000.00'], db));
    expect(result.status, result.stderr).toBe(0);
    const what = result.record as unknown as { disappear: { code: string }[]; booksKept: boolean };
    expect(what.booksKept).toBe(true);
    expect(what.disappear.map((f) => f.code)).toContain('BK_AMOUNT_MISMATCH');
  }, 120_000);

  it('says in one line that a night from before it kept its books cannot have them matched again', async () => {
    const run = nights[0]!;
    const [row] = await rowsOfMirror<{ summary_json: string }>(
      db,
      'SELECT summary_json FROM check_runs WHERE check_run_id = ?',
      run,
    );
    const kept = row!.summary_json;
    const { booksThroughFileId: _, ...older } = JSON.parse(kept) as Record<string, unknown>;
    await changeMirror(db, 'UPDATE check_runs SET summary_json = ? WHERE check_run_id = ?', JSON.stringify(older), run);
    try {
      const { status, verified } = await verify(run);
      expect(verified.differences).toEqual([]);
      expect(status).toBe(0);
      expect(verified.booksKept).toBe(false);
      const text = await told(() => verifyNight(run, { db }));
      expect(text.stdout).toMatch(/; not yet: the findings of the books' checks \(the night predates/);
      const refused = await told(() => whatIfRun(run, ['books-window-hours=1'], db));
      expect(refused.status).toBe(2);
      // Refused before the night is walked or anything rebuilt: nothing would be matched again.
      const mirror = await openMirrorAt(db);
      const rebuilt: number[] = [];
      try {
        await expect(
          whatIf(mirror, run, { options: { booksWindowHours: 1 } }, async (syncRunId) => {
            rebuilt.push(syncRunId);
            throw new Error('the lists were rebuilt');
          }),
        ).rejects.toBeInstanceOf(BooksNotMatchable);
      } finally {
        await mirror.close();
      }
      expect(rebuilt).toEqual([]);
      expect(refused.stderr).toBe(
        `ledger-recon: --set books-window-hours: check run ${run}'s books cannot be matched again (the night predates the mirror keeping which books its matching read, or its coupons and orders as of its sync, or its matching failed), so it shapes nothing verify re-performs\n`,
      );
    } finally {
      await changeMirror(db, 'UPDATE check_runs SET summary_json = ? WHERE check_run_id = ?', kept, run);
    }
  }, 120_000);
});
