/**
 * The merchant's books end to end: the simulator writes its world's exports with planted book
 * breaks and legal look-alikes; the real CLI imports them over a real mirror and matches them
 * against what it synced over HTTP.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOKS_CODES } from '../../src/checks/index.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { mirrorAt, numberOfMirror, rowsOfMirror } from '../support/test-db.js';
import { checkOf, importAt, nightOf } from '../support/app.js';
import { booksFilesIn } from '../../src/books/import-books.js';
import { describeImport } from '../../src/app/books.js';
import { exportFinding } from '../../src/findings/finding.js';
import { slaOfRun } from '../../src/findings/sla.js';
import { runCli, simulatorEnv } from '../support/cli.js';

/** The checks that read the books' matching, from the registry. */
const BOOKS = new Set<string>(BOOKS_CODES);

interface ExportedFinding {
  code: string;
  entityType: string;
  entityId: string;
  referenceId: string | null;
  message: string;
  records: Array<{ type: string; id: string }>;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-books-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The findings of the newest report in `out`. */
function findingsIn(out: string): ExportedFinding[] {
  const file = readdirSync(out)
    .filter((f) => f.endsWith('-findings.json'))
    .sort((a, b) => Number(/run-(\d+)/.exec(a)?.[1]) - Number(/run-(\d+)/.exec(b)?.[1]))
    .at(-1);
  return JSON.parse(readFileSync(join(out, file ?? ''), 'utf8')) as ExportedFinding[];
}

const booksFindings = (findings: ExportedFinding[]) => findings.filter((f) => BOOKS.has(f.code));

describe("the merchant's books against the simulator", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 21, size: 'tiny', plant: true });
  });
  afterAll(() => sim.close());

  it('finds every planted book break on its records on both sides, flags no look-alike, and re-imports nothing twice', async () => {
    const books = join(dir, 'books');
    sim.writeBooks(books);
    const db = mirrorAt(dir);
    const out = join(dir, 'out');
    const { result, notes } = await nightOf(sim, db, out, { books: booksFilesIn(books) });
    expect(notes).toEqual([]);
    expect(result.record.exitCode).toBe(1);
    const night = result.record as { books?: { files: number; rowsAdded: number; rowsRejected: number } };
    expect(night.books).toMatchObject({ files: 3, rowsRejected: 0 });
    expect(night.books?.rowsAdded).toBeGreaterThan(50);

    const found = booksFindings(findingsIn(out));
    for (const planted of sim.manifest.books.breaks) {
      const finding = found.find(
        (f) => f.code === planted.code && (planted.referenceId === '' || f.referenceId === planted.referenceId),
      );
      expect(finding, `${planted.code} (${planted.scenario})`).toBeDefined();
      for (const record of planted.records)
        expect(finding?.records, `${planted.code}: ${record.type} ${record.id}`).toContainEqual(record);
      // The books side is named too, by its row, wherever the break has a books row.
      if (!['BK_LEDGER_NOT_IN_BOOKS', 'DP_ORDER_NOT_IN_BOOKS', 'BK_IN_TRANSIT'].includes(planted.code))
        expect(
          finding?.records.some((r) => r.type === 'booksRow'),
          planted.code,
        ).toBe(true);
    }
    // Nothing beyond what was planted: every look-alike matched.
    expect(found.map((f) => `${f.code} ${f.referenceId ?? ''}`).sort()).toEqual(
      sim.manifest.books.breaks
        .map((b) => `${b.code} ${b.referenceId}`)
        .sort()
        .map((s) => (s.startsWith('CV_USES_MISMATCH') ? 'CV_USES_MISMATCH ' : s)),
    );
    expect(sim.manifest.books.lookAlikes.map((l) => l.name)).toEqual(
      expect.arrayContaining([
        'a tender split across two cards',
        'a refund in three parts',
        'a refund a day later than its order',
        'a tender of 1,234.50 written with a thousands separator',
        "a books time in the merchant's zone, on the next day there",
        "a tender naming its card's code under the till's own reference",
      ]),
    );

    // The workbook: a Matching sheet (every record, those left over first, each pair with its rule) and the match rates on the Summary.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(out, readdirSync(out).find((f) => f.endsWith('.xlsx')) ?? ''));
    const matching = workbook.getWorksheet('Matching');
    const rows = Array.from(matching?.getSheetValues() ?? [])
      .slice(2)
      .map((r) => (r as unknown[]).slice(1));
    const header = ((matching?.getRow(1).values as unknown[] | undefined) ?? []).slice(1);
    expect(header.slice(0, 5)).toEqual(['status', 'rule', 'books', 'side', 'record']);
    const firstMatched = rows.findIndex((r) => r[0] === 'matched');
    expect(firstMatched).toBeGreaterThan(0);
    expect(rows.slice(firstMatched).every((r) => r[0] === 'matched')).toBe(true);
    expect(new Set(rows.filter((r) => r[0] === 'matched').map((r) => r[1]))).toEqual(
      new Set(['exact', 'one-to-many', 'code-hash']),
    );
    expect(rows.filter((r) => r[0] !== 'matched').map((r) => r[5])).toEqual(
      expect.arrayContaining(['ORD-NOT-IN-BOOKS-0001', 'ORD-BOOKS-ONLY-0001', 'PO-BOOKS-ONLY-0001']),
    );
    const summary = Array.from(workbook.getWorksheet('Summary')?.getSheetValues() ?? []).map((r) =>
      Array.isArray(r) ? r.slice(1) : [],
    );
    const heading = summary.findIndex((r) => JSON.stringify(r).includes("The merchant's books"));
    expect(heading).toBeGreaterThan(0);
    const tenderRates = summary.slice(heading).find((r) => String(r[0]).startsWith('tenders') && r[1] === 'USD');
    expect(String(tenderRates?.[0])).toMatch(/^tenders \(exact \d+, one-to-many 2, code-hash 1\)$/);
    // The rate in per cent, a number right-aligned under its label.
    expect(tenderRates?.[4]).toBeGreaterThan(90);
    expect(tenderRates?.[4]).toBeLessThan(100);

    // The plaintext codes of cards and coupons never reach the mirror.
    const dump = { stdout: JSON.stringify(await rowsOfMirror(db, 'SELECT raw_json FROM books_rows')) };
    const tenders = readFileSync(join(books, 'tenders.csv'), 'utf8');
    const code = /POS-4711,[^,]*,[^,]*,[^,]*,[^,]*,(\w+)/.exec(tenders)?.[1];
    expect(code).toBeTruthy();
    expect(dump.stdout).not.toContain(code);

    // The same files again add nothing.
    const again = await importAt(db, [
      join(books, 'tenders.csv'),
      join(books, 'coupon-uses.csv'),
      join(books, 'dp-purchases.csv'),
    ]);
    expect(again.notes).toEqual([]);
    expect(again.results.map(describeImport)).toEqual([
      expect.stringContaining('unchanged'),
      expect.stringContaining('unchanged'),
      expect.stringContaining('unchanged'),
    ]);

    // A changed file is a new version: the row it dropped is withdrawn, and its entry is a break.
    writeFileSync(
      join(books, 'tenders.csv'),
      tenders
        .split('\n')
        .filter((line) => !line.startsWith('ORD-THOUSANDS-0001'))
        .join('\n'),
    );
    const changed = await importAt(db, [join(books, 'tenders.csv')]);
    expect(changed.results.map(describeImport).join('\n')).toMatch(/0 new, 1 withdrawn, 0 rejected/);
    const check = await checkOf(db);
    expect(check.summary.exitCode).toBe(1);
    const after = booksFindings(check.findings.map((f) => exportFinding(f, slaOfRun(check.summary))));
    expect(after.filter((f) => f.referenceId === 'ORD-THOUSANDS-0001').map((f) => f.code)).toEqual([
      'BK_LEDGER_NOT_IN_BOOKS',
    ]);
    expect(await numberOfMirror(db, 'SELECT COUNT(*) FROM books_rows WHERE withdrawn_file_id IS NOT NULL')).toBe(1);
  });
});

describe("the merchant's books under live activity", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 22, size: 'tiny', plant: true });
  });
  afterAll(() => sim.close());

  it('puts what happened after the books were written in transit, and raises nothing false', async () => {
    const books = join(dir, 'live-books');
    sim.writeBooks(books);
    // The services move on after the export: debits, refunds, orders, coupon uses.
    expect(sim.applyActivity(40).length).toBeGreaterThan(20);
    const out = join(dir, 'live-out');
    const { result } = await nightOf(sim, mirrorAt(dir, 'live'), out, { books: booksFilesIn(books) });
    expect(result.record.exitCode).toBe(1);
    const found = booksFindings(findingsIn(out));
    const breaks = found.filter((f) => f.code !== 'BK_IN_TRANSIT');
    expect(breaks.map((f) => `${f.code} ${f.referenceId ?? ''}`).sort()).toEqual(
      sim.manifest.books.breaks
        .filter((b) => b.code !== 'BK_IN_TRANSIT')
        .map((b) => `${b.code} ${b.referenceId}`)
        .sort()
        .map((s) => (s.startsWith('CV_USES_MISMATCH') ? 'CV_USES_MISMATCH ' : s)),
    );
    expect(found.filter((f) => f.code === 'BK_IN_TRANSIT').length).toBeGreaterThan(1);
  });
});

describe('a night whose books are odd', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, size: 'tiny' });
  });
  afterAll(() => sim.close());

  it('goes on when a file cannot be imported: the services are checked and reported, the night INCOMPLETE naming the file', async () => {
    const books = join(dir, 'odd-map');
    sim.writeBooks(books);
    // A misspelt column in one map: that file cannot be read, the others can.
    const map = join(books, 'tenders.map.json');
    writeFileSync(map, readFileSync(map, 'utf8').replace('"reference"', '"referenze"'));
    const out = join(dir, 'odd-map-out');
    const { result } = await nightOf(sim, mirrorAt(dir, 'odd-map-mirror'), out, { books: booksFilesIn(books) });
    expect(result.record.exitCode).toBe(2);
    const json = result.record as unknown as {
      verdict: string;
      sync: { completed: boolean };
      books: { files: number; failed: { file: string; reason: string }[] };
      error: { code: string; message: string };
      report: { workbook: string };
    };
    expect(json).toMatchObject({
      verdict: 'INCOMPLETE',
      sync: { completed: true },
      books: { files: 2 },
      error: { code: 'INCOMPLETE' },
    });
    expect(json.books.failed).toEqual([
      { file: join(books, 'tenders.csv'), reason: expect.stringMatching(/referenze/) },
    ]);
    expect(json.error.message).toContain(join(books, 'tenders.csv'));
    // Every other figure is in the workbook, and its Summary names the file.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(json.report.workbook);
    const summary = workbook.getWorksheet('Summary')!;
    const row = summary.getRows(1, summary.rowCount)!.find((r) => r.getCell(1).value === 'Books file not imported');
    expect(row?.getCell(2).value).toBe(join(books, 'tenders.csv'));
    // Without --json: the one line names it.
    const line = await runCli(
      ['run', '--db', mirrorAt(dir, 'odd-map-mirror'), '--out', out, '--books', books],
      simulatorEnv(sim),
    );
    expect(line.status).toBe(2);
    expect(line.stderr).toMatch(
      /^ledger-recon: INCOMPLETE: .*the books could not all be imported, so the matching is not complete: .*tenders\.csv .*referenze/m,
    );
  });

  it('goes on when the books folder holds no books file (empty, or sub-folders only): the services are synced and checked, the night INCOMPLETE naming the folder', async () => {
    for (const name of ['empty-books', 'sub-folders-only']) {
      const books = join(dir, name);
      mkdirSync(join(books, ...(name === 'empty-books' ? [] : ['2026-11'])), { recursive: true });
      const { result } = await nightOf(sim, mirrorAt(dir, `${name}-mirror`), join(dir, `${name}-out`), {
        books: booksFilesIn(books),
      });
      expect(result.record.exitCode).toBe(2);
      const json = result.record as unknown as {
        verdict: string;
        sync: { completed: boolean };
        error: { message: string };
      };
      expect(json).toMatchObject({ verdict: 'INCOMPLETE', sync: { completed: true } });
      expect(json.error.message).toContain(`${books} (no books file in it`);
    }
  });

  it('imports a quiet day’s exports, a header alone, as zero rows and says so', async () => {
    const books = join(dir, 'quiet');
    sim.writeBooks(books);
    for (const name of readdirSync(books).filter((f) => f.endsWith('.csv'))) {
      const path = join(books, name);
      writeFileSync(path, `${readFileSync(path, 'utf8').split('\n')[0]}\n`);
    }
    const { result } = await nightOf(sim, mirrorAt(dir, 'quiet-mirror'), join(dir, 'quiet-out'), {
      books: booksFilesIn(books),
    });
    const json = result.record as unknown as {
      verdict: string;
      books: { files: number; empty: number; failed: unknown[] };
    };
    expect(json.verdict).not.toBe('FAILED');
    expect(json.verdict).not.toBe('INCOMPLETE');
    expect(json.books).toMatchObject({ files: 3, empty: 3, failed: [] });
    const single = await importAt(mirrorAt(dir, 'quiet-single'), [join(books, 'tenders.csv')]);
    expect(single.results.map(describeImport)).toEqual([
      `${join(books, 'tenders.csv')}: tenders, no rows (a header alone: a quiet day): imported as a version of 0 rows, 0 withdrawn`,
    ]);
  });
});
