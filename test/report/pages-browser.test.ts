/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The pages as a finance lead opens them: Debian's Chromium, headless, driven by playwright-core,
 * opens the demo's night page, a page of a mirror's third night and the fleet page of both
 * mirrors from the folder they were written to. No console error, no request leaves the file,
 * every chart drawn (its canvas holds a picture, its screenshot more than a blank), the tables
 * the browser shows state the JSON's figures, and each page prints to PDF on A4.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetOf } from '../../src/app/fleet.js';
import { writeFleet } from '../../src/app/fleet-page.js';
import type { RunSummary } from '../../src/app/night.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { clockAt, demoOf, nightOf } from '../support/app.js';
import { expectPageOfRecord, HOSTILE_VIEW } from '../support/pages.js';
import { nightPage } from '../../src/report/night-page.js';
import { hasProgram, programPath } from '../support/programs.js';
import { testNow } from '../support/test-clock.js';
import { mirrorAt } from '../support/test-db.js';

const HOUR = 3_600_000;
const canBrowse = hasProgram('chromium', 'chromium') && hasProgram('pdftotext', 'poppler-utils');

/** What a page did when opened: what it logged as an error, what it asked for beyond itself. */
interface Opened {
  page: Page;
  errors: string[];
  requests: string[];
  /** Every alert, confirm or prompt it opened (a script it should never have run). */
  dialogs: string[];
}

describe.runIf(canBrowse)('the pages in a browser (Chromium, headless)', () => {
  let dir: string;
  let sim: Simulator;
  let browser: Browser;
  const pages: { demo: RunSummary; third: RunSummary; fleet: string; fleetJson: string } = {} as never;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-pages-'));
    const demoDb = mirrorAt(dir, 'demo');
    const demo = await demoOf(demoDb, join(dir, 'demo-reports'));
    if (!demo.result.ok) throw new Error('the demo failed');
    pages.demo = demo.result.record;
    // A mirror with three nights, an hour apart: its page has trends to draw.
    sim = await startSimulator({ seed: 84, size: 'tiny', plant: true, nowMs: testNow() });
    const db = mirrorAt(dir, 'nights');
    for (const hour of [0, 1, 2]) {
      const { result } = await nightOf(sim, db, join(dir, 'reports'), { clock: clockAt(testNow() + hour * HOUR) });
      if (!result.ok) throw new Error(`night ${hour + 1} failed: ${result.record.error.message}`);
      pages.third = result.record;
    }
    const fleet = await fleetOf(clockAt(testNow() + 3 * HOUR), { mirrors: [demoDb, db], lateAfterHours: 26 });
    const written = writeFleet(fleet, join(dir, 'fleet'));
    pages.fleet = written.page;
    pages.fleetJson = written.json;
    browser = await chromium.launch({ executablePath: programPath('chromium')!, args: ['--no-sandbox'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The page at `path` opened from its folder, every console error and request beyond it kept. */
  async function open(path: string, viewport = { width: 800, height: 1000 }): Promise<Opened> {
    const page = await browser.newPage({ viewport });
    const errors: string[] = [];
    const requests: string[] = [];
    const dialogs: string[] = [];
    const url = pathToFileURL(path).href;
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('request', (request) => {
      if (request.url() !== url) requests.push(request.url());
    });
    await page.goto(url, { waitUntil: 'load' });
    return { page, errors, requests, dialogs };
  }

  /** Prints the open page to PDF (A4 unless landscape) and reads it back with poppler. */
  async function printed(page: Page, name: string, landscape = false): Promise<{ size: string; text: string }> {
    const pdf = join(dir, `${name}.pdf`);
    await page.pdf({ path: pdf, preferCSSPageSize: true, printBackground: true, landscape });
    const info = spawnSync('pdfinfo', [pdf], { encoding: 'utf8' }).stdout;
    const text = spawnSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }).stdout;
    return { size: /Page size:\s+(.*)/.exec(info)?.[1] ?? '', text };
  }

  for (const which of ['demo', 'third'] as const)
    it(`draws every chart of the ${which === 'demo' ? "demo's" : 'third night’s'} page from the file alone, its tables state the night's JSON, and it prints on A4`, async () => {
      const record = pages[which];
      expectPageOfRecord(record.report.page, record, which === 'demo' ? 1 : 3);
      const { page, errors, requests } = await open(record.report.page);
      try {
        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
        // Every canvas drawn by Chart.js, and holding a picture: pixels painted, not a blank.
        const canvases = await page.locator('canvas').count();
        expect(canvases).toBeGreaterThanOrEqual(3);
        expect(await page.evaluate(() => document.body.dataset['charts'])).toBe(String(canvases));
        const painted = await page.evaluate(() =>
          [...document.querySelectorAll('canvas')].map((canvas) => {
            const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
            let n = 0;
            for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n += 1;
            return n;
          }),
        );
        for (const [i, n] of painted.entries()) expect(n, `canvas ${i}`).toBeGreaterThan(2_000);
        // A screenshot of each chart is more than a blank: a blank canvas's PNG is a few hundred bytes.
        for (let i = 0; i < canvases; i += 1) {
          const shot = join(dir, `${which}-chart-${i}.png`);
          await page.locator('canvas').nth(i).screenshot({ path: shot });
          expect(statSync(shot).size, shot).toBeGreaterThan(4_000);
        }
        // The tables as the browser shows them: the record's figures per currency.
        const perCurrency = await page.evaluate(() => {
          const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === 'Per currency');
          return [...(table?.querySelectorAll('tbody tr') ?? [])].map((tr) =>
            [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
          );
        });
        const currencies = [...new Set([...Object.keys(record.liability), ...Object.keys(record.moneyAtStake)])].sort();
        expect(
          perCurrency.map(([c, liability, stake]) => [c, liability?.replace(/,/g, ''), stake?.replace(/,/g, '')]),
        ).toEqual(
          currencies.map((c) => [c, record.liability[c]?.cardsRemaining ?? '—', record.moneyAtStake[c] ?? 'none']),
        );
        // On paper: A4, the verdict and every currency's liability as the record states it.
        const paper = await printed(page, which);
        expect(paper.size).toMatch(/^59\d\.\d* x 84\d\.\d* pts \(A4\)$/);
        expect(paper.text).toContain(record.verdict);
        for (const [currency, { cardsRemaining }] of Object.entries(record.liability))
          expect(paper.text, currency).toMatch(
            new RegExp(`${currency}\\s+${cardsRemaining.replace(/\B(?=(\d{3})+(?!\d))/g, ',').replace('.', '\\.')}`),
          );
      } finally {
        await page.close();
      }
    });

  it('runs no script and asks nothing of the network for text that reads as markup', async () => {
    const path = join(dir, 'hostile.html');
    writeFileSync(path, nightPage(HOSTILE_VIEW));
    const { page, errors, requests, dialogs } = await open(path);
    try {
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      expect(dialogs).toEqual([]);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.evaluate(() => document.body.dataset['charts'])).toBe('4');
      expect(await page.locator('h1').textContent()).toContain('</script><script>alert(1)</script>');
    } finally {
      await page.close();
    }
  });

  it('shows every merchant of the fleet as its JSON states them, and prints it on A4 landscape', async () => {
    const fleet = JSON.parse(readFileSync(pages.fleetJson, 'utf8')) as {
      merchants: { mirror: string; standing: string; overdue: number }[];
    };
    const { page, errors, requests } = await open(pages.fleet, { width: 1200, height: 800 });
    try {
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      const rows = await page.evaluate(() =>
        [...document.querySelectorAll('tbody tr')].map((tr) =>
          // biome-ignore lint/performance/useDomNodeTextContent: the text as the reader sees it, its line breaks included
          [...tr.querySelectorAll('td')].map((td) => td.innerText),
        ),
      );
      expect(rows.map((cells) => [cells[0]?.split('\n')[0], cells[1]?.split('\n')[0], cells[3]])).toEqual(
        fleet.merchants.map((m) => [m.mirror, m.standing.toUpperCase(), String(m.overdue)]),
      );
      const paper = await printed(page, 'fleet', true);
      expect(paper.size).toMatch(/^84\d\.\d* x 59\d\.\d* pts \(A4\)$/);
      for (const m of fleet.merchants) expect(paper.text).toContain(m.standing.toUpperCase());
    } finally {
      await page.close();
    }
  });
});
