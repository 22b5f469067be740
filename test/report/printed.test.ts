/**
 * The demo's workbook as an auditor prints it: LibreOffice converts it to PDF, poppler turns the
 * Summary's and the Findings' pages into PNG and reads the text back. Nothing may be cut: every
 * finding's message is on paper in full.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { LIABILITY_SHEETS } from '../../src/report/liability-sheets.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/cli.js';
import { demoOf } from '../support/app.js';
import { mirrorAt } from '../support/test-db.js';
import { hasProgram } from '../support/programs.js';
import { plantedMonth, quietMonthOfPlanted } from '../support/simulator.js';

const canPrint = hasProgram('soffice', 'libreoffice-calc-nogui') && hasProgram('pdftoppm', 'poppler-utils');

describe.runIf(canPrint)('the demo workbook, printed', () => {
  let dir: string;
  let pdf: string;
  let text: string;
  let reading: string;
  let findingsJson: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-printed-'));
    await demoOf(mirrorAt(dir, 'demo'), join(dir, 'reports'));
    const files = readdirSync(join(dir, 'reports'));
    const workbook = join(dir, 'reports', files.find((name) => name.endsWith('.xlsx'))!);
    findingsJson = join(dir, 'reports', files.find((name) => name.endsWith('-findings.json'))!);
    const converted = spawnSync(
      'soffice',
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=file://${join(dir, 'lo')}`,
        '--convert-to',
        'pdf',
        '--outdir',
        dir,
        workbook,
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
    expect(converted.status, converted.stderr).toBe(0);
    pdf = join(dir, readdirSync(dir).find((name) => name.endsWith('.pdf'))!);
    // Laid out as printed (footers: sheet and page), and in content order (-raw: each cell's lines together, hyphens kept).
    text = spawnSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout;
    reading = spawnSync('pdftotext', ['-raw', pdf, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout;
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Pages per sheet, from each page's footer (report · sheet · page). */
  const pagesPerSheet = (): Map<string, number> => {
    const pages = new Map<string, number>();
    for (const match of text.matchAll(/— [A-Z]+, run \d+ +(.+?) +Page \d+ of \d+/g))
      pages.set(match[1]!, (pages.get(match[1]!) ?? 0) + 1);
    return pages;
  };

  it('renders the Summary and the Findings as pages a person reads: the Summary on at most four, the Findings one page wide', () => {
    const pages = pagesPerSheet();
    // A row per code found (43 findings of 40 codes, ten of them the books'), the money at stake by code, the books' match rates.
    expect(pages.get('Summary')).toBeLessThanOrEqual(4);
    // 43 findings, severity to age, their messages wrapped: a few pages, not one per column group.
    expect(pages.get('Findings')).toBeLessThanOrEqual(4);
    const first = [...pages.keys()].indexOf('Findings');
    const before = [...pages.values()].slice(0, first).reduce((a, b) => a + b, 0);
    const png = join(dir, 'page');
    const rendered = spawnSync('pdftoppm', ['-png', '-r', '50', '-f', '1', '-l', String(before + 2), pdf, png], {
      encoding: 'utf8',
    });
    expect(rendered.status, rendered.stderr).toBe(0);
    const images = readdirSync(dir).filter((name) => name.startsWith('page') && name.endsWith('.png'));
    expect(images.length).toBe(before + 2);
    for (const image of images) expect(statSync(join(dir, image)).size).toBeGreaterThan(5_000);
    // The whole printed workbook: the detail sheets print their exceptions (the rows a finding is
    // about), one page wide; the Summary, the Findings, the month to date and the catalogue of
    // checks take the rest. 52 pages before the detail sheets printed their exceptions only; 17
    // before the demo matched the merchant's books (ten more findings, ten more checks explained);
    // 20 before the roll-forwards showed their re-base and what is in flight.
    const total = [...pages.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(21);
    expect(pages.get('Checks')).toBeLessThanOrEqual(3);
    // docs/workbook.md states these pages: they stay what the demo prints.
    const stated = /prints on (\d+)\s+pages: Summary (\d+), Findings (\d+), Checks (\d+), Month to date (\d+)/.exec(
      readFileSync(new URL('../../docs/workbook.md', import.meta.url), 'utf8').replace(/\n\s*/g, ' '),
    );
    expect(stated?.slice(1).map(Number)).toEqual([
      total,
      pages.get('Summary'),
      pages.get('Findings'),
      pages.get('Checks'),
      pages.get('Month to date'),
    ]);
    for (const sheet of [
      'Card reconciliation',
      'Matching',
      'Refunds by reference',
      'Coupons',
      'DP orders',
      'DP wallets',
      'Quarantine',
    ])
      expect(pages.get(sheet), sheet).toBe(1);
  });

  it("prints no page's type below about 70 % of its size at 100 %", () => {
    // The height of most words on a page: the body type as printed. The month to date is wider
    // than a page at 70 % and prints at 100 %: its height is the reference.
    const heights = new Map<number, number>();
    const bbox = spawnSync('pdftotext', ['-bbox', pdf, '-'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).stdout;
    let page = 0;
    const counts = new Map<number, Map<string, number>>();
    for (const line of bbox.split('\n')) {
      if (line.includes('<page ')) page += 1;
      const word = line.match(/<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"/);
      if (!word) continue;
      const height = (Number(word[2]) - Number(word[1])).toFixed(1);
      const perPage = counts.get(page) ?? new Map<string, number>();
      perPage.set(height, (perPage.get(height) ?? 0) + 1);
      counts.set(page, perPage);
    }
    for (const [n, perPage] of counts) heights.set(n, Number([...perPage].sort((a, b) => b[1] - a[1])[0]![0]));
    const sheets = [...text.matchAll(/— [A-Z]+, run \d+ +(.+?) +Page (\d+) of \d+/g)].map(
      (m) => [Number(m[2]), m[1]!] as const,
    );
    const full = sheets.filter(([, sheet]) => sheet === 'Month to date').map(([n]) => heights.get(n)!);
    expect(full.length).toBeGreaterThan(0);
    const reference = Math.max(...full);
    for (const [n, sheet] of sheets)
      expect(heights.get(n)! / reference, `page ${n} (${sheet})`).toBeGreaterThanOrEqual(0.68);
  });

  it('breaks no header inside a word ("currenc/y"): each word of a printed header is on its sheet\'s pages whole', async () => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(
      join(dir, 'reports', readdirSync(join(dir, 'reports')).find((name) => name.endsWith('.xlsx'))!),
    );
    const pages = text.split('\f');
    for (const sheet of workbook.worksheets) {
      if (sheet.name === 'Summary') continue;
      const own = pages.filter((page) =>
        new RegExp(`check run \\d+ +${sheet.name.replace(/[()]/g, '\\$&')} +Page \\d+ of`).test(page),
      );
      if (own.length === 0) continue;
      const printed = new Set(own.join(' ').split(/\s+/));
      const header = (sheet.getRow(1).values as unknown[]).filter((v): v is string => typeof v === 'string');
      const area = sheet.pageSetup.printArea
        ? header.slice(0, columnIndex(sheet.pageSetup.printArea.split(':')[1]!))
        : header;
      for (const word of area.flatMap((h) => h.split(/\s+/)).filter((w) => w.length >= 4 && !w.includes('-')))
        expect(printed.has(word), `${sheet.name}: "${word}"`).toBe(true);
    }
  });

  it("states on page 1, printed, what a reader asks first: the merchant, date and cut-off in the title and the footer, the liability and money at stake per currency, the largest findings in words, how the night's and the month's differences relate", () => {
    const first = text.split('\f')[0]!;
    const flat = first.replace(/\s+/g, ' ');
    // Title and footer: merchant, the night's date, its cut-off, the verdict and the run.
    expect(first).toMatch(
      /^\s*merchant [0-9a-f]{8}: reconciliation of \d{4}-\d\d-\d\d, data as of \d\d:\d\d UTC \(check run 1\)/,
    );
    expect(first).toMatch(
      /merchant [0-9a-f]{8} — \d{4}-\d\d-\d\d \d\d:\d\d UTC — BREAKS, run 1 +Summary +Page 1 of \d+/,
    );
    // The liability per currency, and money at stake with "none" for the clean currencies.
    expect(flat).toMatch(
      /Gift card liability EUR [\d,.]+ · GBP [\d,.]+ · INR [\d,.]+ · USD [\d,.]+: what the cards hold at the cut-off/,
    );
    expect(flat).toMatch(/Money at stake USD [\d,.]+ EUR, GBP, INR: none/);
    // The largest findings in words: the catalogue's titles, with the card or record.
    expect(flat).toMatch(/Largest findings USD [\d,.]+ [A-Z][a-z].*?: (card|booksRow|dpOrder) /);
    // The night's roll-forward difference against the month so far's, in its parts.
    expect(flat).toMatch(
      /Roll-forward that does not close USD -12\.00 cards hold − closing = .* cards − flows this month .* service − cards/,
    );
    // Legible at 60 dpi: the page renders as a picture of its own.
    const png = join(dir, 'first-60dpi');
    expect(spawnSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', '-singlefile', pdf, png]).status).toBe(0);
    expect(statSync(`${png}.png`).size).toBeGreaterThan(20_000);
  });

  it('keeps the roll-forward with its result on one page of the Summary, and no result cut', () => {
    const summaryPages = text.split('\f').filter((page) => / Summary +Page \d+ of/.test(page));
    const page = summaryPages.find((p) => p.includes('Gift card liability roll-forward'));
    expect(page).toMatch(/Closes/);
    expect(page!.replace(/\s+/g, ' ')).toMatch(/DOES NOT TIE .{0,80}OUT|ties out/);
  });

  it("cuts no finding's message: each is on paper in full, wrapped in its cell", () => {
    const squeeze = (value: string): string => value.replace(/\s+/g, '');
    const paper = squeeze(reading);
    const findings = JSON.parse(readFileSync(findingsJson, 'utf8')) as Array<{ message: string }>;
    expect(findings.length).toBeGreaterThan(20);
    // Each message's characters in order, from where it starts, within twice its length: other
    // cells of its row (a currency, a figure) may sit between its lines in reading order, but a
    // cut-off tail would be missing.
    const onPaper = (message: string): boolean => {
      const wanted = squeeze(message);
      for (
        let start = paper.indexOf(wanted.slice(0, 24));
        start >= 0;
        start = paper.indexOf(wanted.slice(0, 24), start + 1)
      ) {
        let at = start;
        let found = 0;
        while (found < wanted.length && at < start + 2 * wanted.length && at < paper.length) {
          if (paper[at] === wanted[found]) found += 1;
          at += 1;
        }
        if (found === wanted.length) return true;
      }
      return false;
    };
    for (const { message } of findings) expect(onPaper(message), message).toBe(true);
  });
});

/** The 1-based index of a print area's last column (`$M$1000` → 13). */
function columnIndex(reference: string): number {
  const letters = reference.replace(/[$\d]/g, '');
  return [...letters].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0);
}

describe.runIf(canPrint)('the close workbook, printed', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-printed-close-'));
    await demoOf(mirrorAt(dir, 'demo'), join(dir, 'reports'));
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Each printed page's text, with its sheet (from its footer). */
  function printedClose(period: string): Array<{ sheet: string; text: string }> {
    const out = join(dir, `close-${period}`);
    const closed = spawnSync(
      process.execPath,
      [CLI, 'close', '--db', mirrorAt(dir, 'demo'), '--out', out, '--period', period],
      { encoding: 'utf8' },
    );
    expect([0, 1]).toContain(closed.status);
    const workbook = join(out, readdirSync(out).find((name) => name.endsWith('.xlsx'))!);
    const converted = spawnSync(
      'soffice',
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=file://${join(dir, 'lo')}`,
        '--convert-to',
        'pdf',
        '--outdir',
        out,
        workbook,
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
    expect(converted.status, converted.stderr).toBe(0);
    const pdf = join(out, readdirSync(out).find((name) => name.endsWith('.pdf'))!);
    const text = spawnSync('pdftotext', ['-layout', pdf, '-'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    }).stdout;
    return text
      .split('\f')
      .filter((page) => page.trim() !== '')
      .map((page) => ({
        sheet: /Period close \S+ — .+? {2,}(.+?) {2,}Page \d+ of \d+/.exec(page)?.[1] ?? '?',
        text: page,
      }));
  }

  for (const [name, period] of [
    ['a month that ties out', 'quiet'],
    ['a month with cards that do not', 'planted'],
  ] as const) {
    it(`prints ${name} on a few pages, every page that carries figures also carrying their key`, () => {
      // The month before the planted breaks begin ties out on any day; the month they begin in does not.
      const month = period === 'quiet' ? quietMonthOfPlanted() : plantedMonth();
      const pages = printedClose(month);
      // Before: 49 pages in column bands, the card ID on some and the figures without it on others.
      // The liability workpaper adds its five sheets: the aged world's 150 vintages take three pages a sheet.
      expect(pages.length).toBeLessThanOrEqual(22);
      for (const page of pages.filter((p) => /[A-Z]{3} -?[\d,]+\.\d{2}/.test(p.text) && p.sheet !== 'Summary')) {
        const key =
          page.sheet === 'Period roll-forward'
            ? /\b[A-Z]{3}\s+(PRG-|\(no program\))/
            : page.sheet === 'Unclaimed property'
              ? // Per jurisdiction and currency, then card by card.
                /^\s*[A-Z]{2}\s+[A-Z]{3}\s|[0-9a-f]{8}-[0-9a-f]{4}-/m
              : (LIABILITY_SHEETS as readonly string[]).includes(page.sheet)
                ? // Per currency and program, or per currency alone (the Breakage sheet's journal entries).
                  /^\s*[A-Z]{3}\s+(PRG-|\(no program\)|[A-Z]{3} -?[\d,]+\.\d{2})/m
                : /[0-9a-f]{8}-[0-9a-f]{4}-/;
        expect(page.text, `${page.sheet}: a page of figures without their key`).toMatch(key);
      }
      // Page 1 shows the liability's split: balances, less breakage recognised, less escheat payable, the contract liability.
      expect(pages[0]?.text).toMatch(
        /liability split per currency[\s\S]*contract liability[\s\S]*\bUSD\s+USD [\d,]+\.\d{2}\s+USD [\d,]+\.\d{2}\s+USD [\d,]+\.\d{2}\s+USD [\d,]+\.\d{2}/,
      );
      for (const sheet of ['Cards at cut-off', 'Activity in period'])
        expect(
          pages.filter((p) => p.sheet === sheet),
          sheet,
        ).toHaveLength(1);
    }, 240_000);
  }
});
