import { type CheckCode, CHECKS } from '../../src/checks/index.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reconcile } from '../../src/findings/reconcile.js';
import type { Mirror } from '../../src/db/mirror.js';
import { neutralise, visibleText } from '../../src/report/neutralise.js';
import { fittedScale, MIN_PRINT_SCALE } from '../../src/report/xlsx-writer.js';
import { SHEET_NAMES } from '../../src/report/scope.js';
import { writeReport, type ReportPaths } from '../../src/report/write-report.js';
import { writeXlsx } from '../../src/report/xlsx-writer.js';
import { nightViewOf } from '../../src/report/night-view.js';
import { findingsStore } from '../../src/findings/store.js';
import { readPage } from '../support/pages.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices, validCouponAndOrder, type TestServices } from '../support/simulator.js';
import { mirrorAt, numberOfMirror, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { testDate, testNow } from '../support/test-clock.js';

let dir: string;
let services: TestServices;
let mirror: Mirror;
let paths: ReportPaths;
/** When the report was prepared (the sign-off's date), once: a report written again states the same. */
let prepared: number;
let workbook: ExcelJS.Workbook;
/** A coupon and an order the service stopped listing before the second sync. */
let unlisted: { coupon: string; order: string; syncRunId: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-report-'));
  services = await startServices({ size: 'small', seed: 71, plant: true });
  mirror = await openMirrorAt(mirrorAt(dir));
  await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
  const { coupon, order } = validCouponAndOrder(services.sim);
  services.sim.mutate.setCouponListed(coupon, false);
  services.sim.mutate.removeOrder(order);
  const { syncRunId } = await runSync({
    clock: { now: testNow },
    mirror,
    giftcard: services.giftcard,
    dp: services.dp,
  });
  unlisted = { coupon, order, syncRunId };
  await reconcile({ nowMs: testNow(), mirror });
  prepared = testNow();
  paths = await writeReport({
    mirror,
    outDir: join(dir, 'reports'),
    scope: { preparer: 'P. Reparer', preparedAtMs: prepared, materiality: new Map([['USD', 1_000]]) },
  });
  workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(paths.workbook);
});
afterAll(async () => {
  await mirror.close();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

const sheet = (name: string): ExcelJS.Worksheet => {
  const found = workbook.getWorksheet(name);
  if (!found) throw new Error(`no sheet ${name}`);
  return found;
};
const column = (ws: ExcelJS.Worksheet, header: string): number => (ws.getRow(1).values as unknown[]).indexOf(header);

describe('one view of the night, four writers', () => {
  it("writes the night's view: the page holds it, and the Summary, Findings, CSV and JSON state its figures", async () => {
    const store = findingsStore(mirror);
    const run = (await store.history.completedRun(1))!;
    const view = await nightViewOf(mirror, store, run, { materiality: new Map([['USD', 1_000]]) });
    // The page: the view itself, as computed (its JSON), nothing of its own.
    expect(readPage(paths.page).view).toEqual(JSON.parse(JSON.stringify(view)));
    // The Summary: findings by code and money at stake, the view's.
    const ws = sheet('Summary');
    const rows = ws.getRows(1, ws.rowCount)!;
    const result = (cell: ExcelJS.CellValue): unknown =>
      // A formula's cached result (the reader leaves out a zero's).
      typeof cell === 'object' && cell !== null && 'formula' in cell
        ? ((cell as { result?: unknown }).result ?? 0)
        : cell;
    // A code's first row is its Findings by code row (Money at stake lists it again below).
    const byCode = new Map([...rows].reverse().map((r) => [r.getCell(1).value, r] as const));
    expect(view.byCode.length).toBeGreaterThan(3);
    for (const code of view.byCode) {
      const row = byCode.get(code.code)!;
      expect(
        [3, 4, 5, 6, 7].map((c) => result(row.getCell(c).value)),
        code.code,
      ).toEqual([code.findings, code.states.new, code.states.open, code.states.accepted, code.material]);
    }
    const allCodes = rows.filter((r) => r.getCell(1).value === 'All codes');
    expect(
      Object.fromEntries(allCodes.map((r) => [r.getCell(2).value, Math.round(Number(r.getCell(3).value) * 100)])),
    ).toEqual(view.atStakeCents);
    // The Findings sheet, the CSV and the JSON: each finding's standing judged once, the same in all three.
    const findings = sheet('Findings');
    const marked = (header: string, mark: string): number =>
      findings.getRows(2, findings.rowCount - 1)!.filter((r) => r.getCell(column(findings, header)).value === mark)
        .length;
    const exported = JSON.parse(readFileSync(paths.json, 'utf8')) as { overdue: boolean; dueAt: string | null }[];
    const csv = readFileSync(paths.csv, 'utf8').trim().split('\r\n');
    const overdueColumn = csv[0]!.split(',').indexOf('overdue');
    expect(marked('material', 'material')).toBe(view.material);
    expect(marked('overdue', 'OVERDUE')).toBe(exported.filter((f) => f.overdue).length);
    expect(
      csv.slice(1).filter((line) => line.split(',').at(overdueColumn - csv[0]!.split(',').length) === 'true').length,
    ).toBe(exported.filter((f) => f.overdue).length);
    expect(exported.filter((f) => f.overdue).length).toBe(view.recorded.overdue);
  });
});

describe('the workbook', () => {
  it('is named with the run’s UTC date and id, beside its CSV, JSON and page, and nothing half-written', () => {
    const date = testDate().toISOString().slice(0, 10);
    expect(readdirSync(join(dir, 'reports')).sort()).toEqual([
      `ledger-recon-${date}-run-1-findings.csv`,
      `ledger-recon-${date}-run-1-findings.json`,
      `ledger-recon-${date}-run-1.html`,
      `ledger-recon-${date}-run-1.xlsx`,
    ]);
  });

  it('has the sheets in auditors’ order, each table with a frozen header row and an autofilter', () => {
    expect(workbook.worksheets.map((ws) => ws.name)).toEqual([...SHEET_NAMES]);
    for (const ws of workbook.worksheets) {
      expect(ws.views[0], ws.name).toMatchObject({ state: 'frozen', ySplit: 1 });
      if (ws.name !== 'Summary') expect(ws.autoFilter, ws.name).toBeTruthy();
    }
    // The merchant (its ID's first eight characters, no name set), the night's date and cut-off, the verdict, the run.
    expect(workbook.title).toMatch(/^merchant [0-9a-f]{8} — \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC — BREAKS, run 1$/);
    expect(workbook.creator).toBe('ledger-recon');
  });

  it('prints landscape, one page wide only where the type stays readable, each table’s header row on every page, and a footer naming the report, sheet and page', () => {
    for (const ws of workbook.worksheets) {
      // The columns that print: all, or those of the print area (Findings: severity to age).
      const area = ws.pageSetup.printArea?.match(/^A1:([A-Z]+)\d+$/)?.[1];
      const printed = area ? ws.columns.slice(0, area.charCodeAt(0) - 64) : ws.columns;
      // One page wide shrinks the type to fittedScale (calibrated on LibreOffice's pages: see printed.test.ts): no smaller than 70 %.
      const fitted = fittedScale(printed.map((c) => c.width ?? 9));
      if (fitted >= MIN_PRINT_SCALE && ws.pageSetup.fitToPage)
        expect(ws.pageSetup, ws.name).toMatchObject({ orientation: 'landscape', fitToWidth: 1, fitToHeight: 0 });
      else if (fitted >= MIN_PRINT_SCALE) {
        // A sheet read as a whole prints smaller than fitted, more to a page, never below the floor and still one page wide.
        expect(ws.pageSetup.scale! / 100, ws.name).toBeGreaterThanOrEqual(MIN_PRINT_SCALE);
        expect(ws.pageSetup.scale! / 100, ws.name).toBeLessThanOrEqual(fitted);
      } else expect(ws.pageSetup, ws.name).toMatchObject({ orientation: 'landscape', fitToPage: false, scale: 100 });
      expect(ws.pageSetup.printTitlesRow, ws.name).toBe(ws.name === 'Summary' ? undefined : '1:1');
      expect(ws.headerFooter.oddFooter, ws.name).toBe(`&L${workbook.title}&C&A&RPage &P of &N`);
    }
  });

  it('shows a planted break on the Findings sheet with its expected, actual and difference as money in its currency', () => {
    const ws = sheet('Findings');
    const gap = services.sim.manifest.breaks.find((b) => b.code === 'GC_CHAIN_GAP')!;
    const row = ws
      .getRows(2, ws.rowCount - 1)!
      .find(
        (r) =>
          r.getCell(column(ws, 'code')).value === 'GC_CHAIN_GAP' &&
          r.getCell(column(ws, 'entity')).value === gap.entityId,
      )!;
    expect(row).toBeDefined();
    const expected = row.getCell(column(ws, 'expected'));
    expect(expected.value).toBe(90);
    expect(expected.numFmt).toContain('"USD "');
    expect(row.getCell(column(ws, 'actual')).value).toBe(70);
    expect(row.getCell(column(ws, 'difference')).value).toBe(-20);
    expect(row.getCell(column(ws, 'state')).value).toBe('new');
    expect(row.getCell(column(ws, 'severity')).fill).toMatchObject({ fgColor: { argb: 'FFF4C7C3' } });
  });

  it('keeps money numeric with a currency format on the card sheet', async () => {
    const ws = sheet('Card reconciliation');
    const cell = ws.getRow(2).getCell(column(ws, 'initial balance'));
    const currency = ws.getRow(2).getCell(column(ws, 'currency')).value as string;
    expect(typeof cell.value).toBe('number');
    expect(cell.numFmt).toContain(`"${currency} "#,##0.00`);
    expect(ws.rowCount - 1).toBe(await numberOfMirror(mirrorAt(dir), 'SELECT COUNT(*) FROM gift_cards'));
  });

  it('writes dates as real UTC dates, links and headings in their fonts, and plain cells unformatted', () => {
    const ws = sheet('Findings');
    const firstSeen = ws.getRow(2).getCell(column(ws, 'first seen (UTC)'));
    expect(firstSeen.value).toBeInstanceOf(Date);
    expect(firstSeen.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(ws.getRow(2).getCell(column(ws, 'code')).numFmt).toBeUndefined();
    expect(ws.getRow(2).getCell(column(ws, 'age (days)')).numFmt).toBeUndefined();
    const summary = sheet('Summary');
    expect(summary.getCell('A1').font).toMatchObject({ bold: true });
    const link = summary
      .getRows(1, summary.rowCount)!
      .map((r) => r.getCell(1))
      .find((c) => c.formula)!;
    expect(link.font).toMatchObject({ underline: true, color: { argb: 'FF0563C1' } });
  });

  it('stores a formula-like reference as inert text, exactly as the service sent it', () => {
    const ws = sheet('Refunds by reference');
    const cells = ws
      .getColumn(column(ws, 'reference'))
      .values.filter((v) => typeof v === 'string' && v.includes('HYPERLINK'));
    // A text cell of .xlsx is never a formula: no apostrophe, so it matches the mirror.
    expect(cells).toEqual([`=HYPERLINK("http://x","y")`]);
    for (const ws of workbook.worksheets) {
      ws.eachRow((row) =>
        row.eachCell((cell) => {
          // Our links, and figures re-performed from cell references alone: never text from the services.
          if (cell.formula)
            expect(cell.formula, `${ws.name} ${cell.address}`).toMatch(
              /^(HYPERLINK\("#'[A-Za-z ]+'!A1","[A-Za-z ]+"\)|((COUNTIFS|SUM)\([$A-Z0-9:!',A-Za-z ]+\)|\$?[A-Z]+\$?\d+)([+-]\$?[A-Z]+\$?\d+)*|ROUND\(\$?[A-Z]+\$?\d+([+-]\$?[A-Z]+\$?\d+)*,2\))$/,
            );
        }),
      );
    }
  });

  it('states on the Summary the counts the mirror holds', async () => {
    const ws = sheet('Summary');
    const value = (label: string, column = 2): unknown =>
      ws
        .getRows(1, ws.rowCount)!
        .find((r) => r.getCell(1).value === label)
        ?.getCell(column).value;
    expect(value('Verdict')).toBe('BREAKS');
    expect(value('Gift card ledger entries')).toBe(
      await numberOfMirror(mirrorAt(dir), 'SELECT COUNT(*) FROM gift_card_transactions'),
    );
    expect(value('Coupons')).toBe(await numberOfMirror(mirrorAt(dir), 'SELECT COUNT(*) FROM coupons'));
    expect(value('DP orders')).toBe(await numberOfMirror(mirrorAt(dir), 'SELECT COUNT(*) FROM dp_orders'));
    const noLongerListed = ['Coupons', 'DP orders', 'Gift card ledger entries', 'Gift cards'].map((label) =>
      value(label, 3),
    );
    expect(noLongerListed).toEqual([1, 1, 0, null]);
    // The entries the check counts (the terminal's and the JSON's figure) are the entries the workbook counts, orphans included.
    const [{ summary_json: run } = { summary_json: '' }] = await rowsOfMirror<{ summary_json: string }>(
      mirrorAt(dir),
      'SELECT summary_json FROM check_runs WHERE check_run_id = 1',
    );
    expect((JSON.parse(run) as { entries: number; cards: number }).entries).toBe(
      (value('Gift card ledger entries') as number) - (value('Gift card ledger entries', 3) as number),
    );
    expect((JSON.parse(run) as { entries: number; cards: number }).cards).toBe(value('Gift cards'));
    const all = ws.getRows(1, ws.rowCount)!.find((r) => r.getCell(1).value === 'All findings');
    const allFindings = all?.getCell(3).value as { formula: string; result: number };
    expect(allFindings.result).toBe(
      await numberOfMirror(mirrorAt(dir), 'SELECT COUNT(*) FROM findings WHERE check_run_id = 1'),
    );
    expect(value('New')).toBe(allFindings.result);
  });

  it('puts the headline on the first lines: the verdict, how many findings, and the money at stake', async () => {
    const ws = sheet('Summary');
    const [{ summary_json: stored } = { summary_json: '' }] = await rowsOfMirror<{ summary_json: string }>(
      mirrorAt(dir),
      'SELECT summary_json FROM check_runs WHERE check_run_id = 1',
    );
    const summary = JSON.parse(stored) as { findings: number; moneyAtStake: Record<string, string> };
    const labels = (ws.getRows(1, 6) ?? []).map((r) => r.getCell(1).value);
    expect(labels).toEqual(expect.arrayContaining(['Verdict', 'Findings', 'Money at stake']));
    const cell = (label: string) =>
      ws
        .getRows(1, 6)!
        .find((r) => r.getCell(1).value === label)!
        .getCell(2).value;
    expect(cell('Findings')).toBe(summary.findings.toLocaleString('en-US'));
    const stake = Object.entries(summary.moneyAtStake);
    expect(cell('Money at stake')).toBe(stake.length === 0 ? 'none' : stake.map(([c, a]) => `${c} ${a}`).join(', '));
    // Then the three findings that put the most money at stake, largest first, each naming its code and record.
    const largest = await rowsOfMirror<{
      code: CheckCode;
      entity_type: string;
      entity_id: string;
      gift_card_id: string | null;
    }>(
      mirrorAt(dir),
      "SELECT code, entity_type, entity_id, gift_card_id, stake_cents FROM findings WHERE check_run_id = 1 AND severity IN ('error', 'warning') AND state <> 'accepted' AND stake_cents > 0 ORDER BY stake_cents DESC, fingerprint LIMIT 3",
    );
    const rows = ws.getRows(1, 24)!;
    const first = rows.findIndex((r) => r.getCell(1).value === 'Largest findings');
    expect(first).toBeGreaterThan(0);
    // Each in words: the catalogue's title, the card (or the record), the code.
    expect(rows.slice(first, first + largest.length).map((r) => String(r.getCell(3).value))).toEqual(
      largest.map(
        (f) =>
          `${CHECKS[f.code].title}: ${f.gift_card_id !== null ? `card ${f.gift_card_id}` : `${f.entity_type} ${f.entity_id}`}`,
      ),
    );
    // The liability per currency, and every currency's money at stake (none for a clean one).
    const liability = rows.find((r) => r.getCell(1).value === 'Gift card liability');
    expect(String(liability?.getCell(2).value)).toMatch(
      /^[A-Z]{3} -?[\d,]+\.\d{2}( · [A-Z]{3} -?[\d,]+\.\d{2})*: what the cards hold/,
    );
  });

  it('shows a coupon and an order the service no longer lists, with the sync that found them missing', () => {
    for (const [name, id] of [
      ['Coupons', unlisted.coupon],
      ['DP orders', unlisted.order],
    ] as const) {
      const ws = sheet(name);
      const rows = ws
        .getRows(2, ws.rowCount - 1)!
        .filter((r) => r.getCell(column(ws, 'no longer listed since sync')).value !== null);
      expect(rows.map((r) => [r.getCell(1).value, r.getCell(column(ws, 'no longer listed since sync')).value])).toEqual(
        [[id, unlisted.syncRunId]],
      );
    }
  });
});

describe('workpapers an auditor signs', () => {
  const rowsOf = (ws: ExcelJS.Worksheet) => ws.getRows(1, ws.rowCount) ?? [];
  const labelled = (ws: ExcelJS.Worksheet, label: string) => rowsOf(ws).find((r) => r.getCell(1).value === label);
  // exceljs reads a cached <v>0</v> back as no result at all (the file carries it: see the XML).
  const result = (value: ExcelJS.CellValue): unknown =>
    value !== null && typeof value === 'object' && 'formula' in value
      ? ((value as { result?: unknown }).result ?? 0)
      : value;

  it('prints the Findings a reader reads, severity to age, one page wide', () => {
    const ws = sheet('Findings');
    expect(ws.pageSetup.printArea).toBe('A1:I1048576');
    expect(ws.getRow(1).getCell(9).value).toBe('age (days)');
    expect(ws.pageSetup).toMatchObject({ fitToPage: true, fitToWidth: 1 });
  });

  it("lists and prints the detail sheets' exceptions first: the rows a finding is about, then every other row on screen", async () => {
    for (const name of ['Card reconciliation', 'Refunds by reference', 'Coupons', 'DP orders']) {
      const ws = sheet(name);
      const findings = column(ws, 'findings');
      const rows = ws.getRows(2, ws.rowCount - 1) ?? [];
      const flagged = rows.filter((r) => String(r.getCell(findings).value ?? '') !== '').length;
      expect(flagged, name).toBeGreaterThan(0);
      // The flagged rows come first, and the print area ends with the last of them.
      expect(
        rows.slice(0, flagged).every((r) => String(r.getCell(findings).value ?? '') !== ''),
        name,
      ).toBe(true);
      expect(
        rows.slice(flagged).every((r) => String(r.getCell(findings).value ?? '') === ''),
        name,
      ).toBe(true);
      expect(ws.pageSetup.printArea, name).toMatch(new RegExp(`^A1:[A-Z]+${flagged + 1}$`));
      expect(ws.headerFooter.oddHeader, name).toMatch(
        /^&LPrinted: the [\d,]+ \w+s? with a finding in this run; every other \w+ follows on screen$/,
      );
    }
    // The full population stays in the workbook: every card is on the sheet.
    expect(sheet('Card reconciliation').rowCount - 1).toBe(
      await numberOfMirror(mirrorAt(dir), 'SELECT COUNT(*) FROM gift_cards'),
    );
  });

  it('wraps long text within its column instead of cutting it', () => {
    const ws = sheet('Findings');
    const message = ws.getRow(2).getCell(column(ws, 'message'));
    // The printed page's width goes to the message: wider than other text, so a finding reads in a few lines.
    expect(ws.getColumn(column(ws, 'message')).width).toBe(51);
    expect(message.alignment).toMatchObject({ wrapText: true, vertical: 'top' });
    const checks = sheet('Checks');
    expect(checks.getRow(2).getCell(5).alignment).toMatchObject({ wrapText: true });
  });

  it('counts findings by code and state with formulas over the Findings sheet, whose cached values re-perform', () => {
    const summary = sheet('Summary');
    const findings = sheet('Findings');
    const data = (findings.getRows(2, findings.rowCount - 1) ?? []).map((r) => ({
      code: r.getCell(2).value,
      state: r.getCell(3).value,
      material: r.getCell(column(findings, 'material')).value,
    }));
    const header = rowsOf(summary).find((r) => r.getCell(1).value === 'Findings by code')!;
    expect([2, 3, 4, 5, 6, 7].map((c) => header.getCell(c).value)).toEqual([
      'severity',
      'findings',
      'new',
      'open',
      'accepted',
      'material',
    ]);
    // Headers over their figures: right-aligned like the counts beneath them.
    expect(header.getCell(3).alignment).toMatchObject({ horizontal: 'right' });
    let checked = 0;
    const all = rowsOf(summary).find((r) => r.getCell(1).value === 'All findings')!;
    for (const row of rowsOf(summary).filter(
      (r) => /^[A-Z]{2}_[A-Z_]+$/.test(String(r.getCell(1).value)) && r.number > header.number && r.number < all.number,
    )) {
      const code = row.getCell(1).value;
      const cell = row.getCell(3).value as { formula: string };
      expect(cell.formula).toBe(`COUNTIFS('Findings'!$B:$B,$A${row.number})`);
      expect(result(cell)).toBe(data.filter((d) => d.code === code).length);
      expect(result(row.getCell(4).value)).toBe(data.filter((d) => d.code === code && d.state === 'new').length);
      expect(result(row.getCell(7).value)).toBe(
        data.filter((d) => d.code === code && d.material === 'material').length,
      );
      checked += 1;
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('marks material findings: money at stake at or above the threshold of their currency', () => {
    const findings = sheet('Findings');
    const rows = findings.getRows(2, findings.rowCount - 1) ?? [];
    const marked = rows.filter((r) => r.getCell(column(findings, 'material')).value === 'material');
    expect(marked.length).toBeGreaterThan(0);
    for (const r of rows) {
      const stake = r.getCell(column(findings, 'at stake')).value as number | null;
      const material = r.getCell(column(findings, 'currency')).value === 'USD' && stake !== null && stake >= 10;
      expect(
        r.getCell(column(findings, 'material')).value === 'material',
        String(r.getCell(column(findings, 'fingerprint')).value),
      ).toBe(material);
    }
    expect(labelled(sheet('Summary'), 'Materiality (money at stake per finding)')?.getCell(2).value).toBe('USD 10.00');
  });

  it("re-performs each card's recomputed balance and difference from its own row", () => {
    const ws = sheet('Card reconciliation');
    const row = ws.getRow(2);
    const recomputed = row.getCell(column(ws, 'recomputed balance')).value as { formula: string; result: number };
    expect(recomputed.formula).toBe('ROUND(D2-E2+F2,2)');
    const [initial = NaN, debits = NaN, refunds = NaN] = [4, 5, 6].map((c) => row.getCell(c).value as number);
    expect(recomputed.result).toBeCloseTo(initial - debits + refunds, 2);
    expect((row.getCell(column(ws, 'difference')).value as { formula: string }).formula).toBe('ROUND(H2-G2,2)');
  });

  it("has a sign-off block, the period covered and the data's as-of time, the verdict standing out, and pictures of ages and money at stake", () => {
    const summary = sheet('Summary');
    expect(labelled(summary, 'Prepared by')?.getCell(2).value).toBe('P. Reparer');
    expect(String(labelled(summary, 'Prepared by')?.getCell(4).value)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(labelled(summary, 'Reviewed by')?.getCell(2).value ?? '').toBe('');
    expect(String(labelled(summary, 'Period covered')?.getCell(2).value)).toMatch(
      /^everything up to \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/,
    );
    expect(labelled(summary, 'Data as of (UTC)')?.getCell(2).value).toBeInstanceOf(Date);
    const verdict = labelled(summary, 'Verdict')!.getCell(2);
    expect(verdict.font).toMatchObject({ bold: true, size: 14 });
    expect(verdict.fill).toMatchObject({ fgColor: { argb: 'FFFFC7CE' } });
    const bars = rowsOf(summary)
      .map((r) => r.getCell(4).value)
      .filter((v) => typeof v === 'string' && /^█+$/.test(v));
    expect(bars.length).toBeGreaterThan(2);
    // The roll-forward reads down, a column per currency: its closing a formula of the figures above it.
    const opening = labelled(summary, 'Opening outstanding')!.number;
    const closing = labelled(summary, '= closing outstanding')!;
    const usd = (summary.getRow(opening - 1).values as unknown[]).indexOf('USD');
    const letter = String.fromCharCode(64 + usd);
    const closingCell = closing.getCell(usd).value as { formula: string; result: number };
    expect(closingCell.formula).toBe(
      `ROUND(${letter}${opening}+${letter}${opening + 1}+${letter}${opening + 2}-${letter}${opening + 3}+${letter}${opening + 4}-${letter}${opening + 5}-${letter}${opening + 6},2)`,
    );
    const figures = [0, 1, 2, 3, 4, 5, 6].map((i) => summary.getRow(opening + i).getCell(usd).value as number);
    expect(Math.round(closingCell.result * 100)).toBe(
      Math.round(
        (figures[0]! + figures[1]! + figures[2]! - figures[3]! + figures[4]! - figures[5]! - figures[6]!) * 100,
      ),
    );
    const difference = labelled(summary, 'Difference')!.getCell(usd).value as { formula: string };
    expect(difference.formula).toBe(`ROUND(${letter}${opening + 8}-${letter}${opening + 7},2)`);
    expect(labelled(summary, 'Closes')!.getCell(usd).value).toBe('NO');
  });
});

describe('a run written again', () => {
  it("gives the same bytes in every file, the workbook included (its zip entries carry the run's instant)", async () => {
    // Written a day later by the process's clock (a zip entry's time counts two seconds): no wait, the clock is moved.
    vi.useFakeTimers({ toFake: ['Date'], now: testNow() + 86_400_000 });
    const again = await writeReport({
      mirror,
      outDir: join(dir, 'again'),
      scope: { preparer: 'P. Reparer', preparedAtMs: prepared, materiality: new Map([['USD', 1_000]]) },
    }).finally(() => vi.useRealTimers());
    for (const key of ['workbook', 'csv', 'json'] as const) {
      expect(readFileSync(again[key]).equals(readFileSync(paths[key])), key).toBe(true);
    }
  });
});

describe('the month to date', () => {
  it('rolls the month so far forward per currency and program, tied out, on its own sheet and on the Summary', () => {
    const ws = sheet('Month to date');
    expect(ws.getRow(1).getCell(1).value).toBe('currency');
    const rows = ws.getRows(2, ws.rowCount - 1) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const closing = row.getCell(10).value as { formula: string; result?: number };
      expect(closing.formula).toBe(
        `ROUND(D${row.number}+E${row.number}-F${row.number}+G${row.number}-H${row.number}-I${row.number},2)`,
      );
    }
    const summary = sheet('Summary');
    const line = (summary.getRows(1, summary.rowCount) ?? []).find(
      (r) => r.getCell(1).value === 'Month to date (roll-forward per currency and program)',
    );
    expect(['ties out', 'DOES NOT TIE OUT']).toContain(line?.getCell(2).value);
  });
});

describe('the findings CSV and JSON', () => {
  it('hold every finding, the CSV quoted and neutralised', () => {
    const json = JSON.parse(readFileSync(paths.json, 'utf8')) as { code: string; referenceId: string | null }[];
    const csv = readFileSync(paths.csv, 'utf8').trimEnd().split('\r\n');
    expect(csv).toHaveLength(json.length + 1);
    expect(csv[0]).toBe(
      '"runId","code","severity","entityType","entityId","giftCardId","referenceId","currency","unit","expected","actual","difference","atStake","message","state","firstSeenAt","ageDays","fingerprint","records","acceptedNote","acceptedBy","acceptedAt","acceptedUntil","acceptanceEnded","dueAt","overdue"',
    );
    expect(csv.find((line) => line.includes('GC_CHAIN_GAP'))).toMatch(/"USD","90\.00","70\.00","-20\.00","20\.00"/);
  });
});

describe('workbook text', () => {
  it('shows NUL and other control characters escaped, never dropped; keeps tabs and line breaks', () => {
    expect(visibleText('card\u0000id')).toBe('card\\u0000id');
    expect(visibleText('a\u001fb\u007f')).toBe('a\\u001fb\\u007f');
    expect(visibleText('=SUM(A1)\tline\nnext')).toBe('=SUM(A1)\tline\nnext');
  });

  it('gives text that starts like a formula the Text format (@), so an edit keeps it text; a CR is shown, never turned into a line feed', async () => {
    const file = join(dir, 'text.xlsx');
    const texts = ['=1+1', '+SUM(A1:A2)', '-2+3', '@cmd', ' =x', 'ORD-1 = fine', 'ORD-7\r', 'a\r\nb'];
    await writeXlsx(file, { title: 't', subject: 's', creator: 'ledger-recon', created: testDate() }, [
      { name: 'Text', header: ['text'], rows: texts.map((t) => [t]) },
    ]);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(file);
    const cells = texts.map((_, i) =>
      book
        .getWorksheet('Text')!
        .getRow(i + 2)
        .getCell(1),
    );
    expect(cells.map((c) => c.value)).toEqual([
      '=1+1',
      '+SUM(A1:A2)',
      '-2+3',
      '@cmd',
      ' =x',
      'ORD-1 = fine',
      'ORD-7\\u000d',
      'a\\u000d\nb',
    ]);
    expect(cells.map((c) => c.numFmt === '@')).toEqual([true, true, true, true, true, false, false, false]);
  });
});

describe('formula neutralising (CSV)', () => {
  it.each(['=1+1', '+SUM(1,2)', '-2+3', '@cmd', '\tTAB', '\rCR', '\nLF', '  =x', '\u0001=x'])('prefixes %j', (text) => {
    expect(neutralise(text)).toBe(`'${text}`);
  });
  it('leaves ordinary text alone', () => {
    expect(neutralise('ORD-1 = fine')).toBe('ORD-1 = fine');
  });
});

describe('a table longer than a sheet', () => {
  it('continues on a numbered next sheet with the header repeated', async () => {
    const file = join(dir, 'long.xlsx');
    const rows = Array.from({ length: 9 }, (_, i) => [`row ${i + 1}`, { cents: i * 100, currency: 'EUR' }]);
    await writeXlsx(
      file,
      { title: 't', subject: 's', creator: 'ledger-recon', created: testDate() },
      [{ name: 'Long', header: ['name', 'amount'], rows }],
      4,
    );
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(file);
    expect(book.worksheets.map((ws) => [ws.name, ws.rowCount])).toEqual([
      ['Long', 4],
      ['Long (2)', 4],
      ['Long (3)', 4],
    ]);
    expect(book.getWorksheet('Long (3)')?.getRow(1).values).toEqual([undefined, 'name', 'amount']);
    expect(book.getWorksheet('Long (3)')?.getRow(4).getCell(2).value).toBe(8);
  });
});

describe('the rows the tool writes itself (xlsx-rows.ts)', () => {
  it('gives every kind of cell back as a spreadsheet reads it: value, type, formula with its cached value, format and fill', async () => {
    const file = join(dir, 'kinds.xlsx');
    const created = new Date(Date.UTC(2026, 10, 28, 6, 0, 0));
    await writeXlsx(file, { title: 't', subject: 's', creator: 'ledger-recon', created }, [
      {
        name: 'Kinds',
        header: ['severity', 'text', 'number', 'empty', 'date', 'money', 'recomputed', 'count', 'link'],
        severityColumn: 0,
        rows: [
          [
            'error',
            `a <b> & "c" 'd'\u0001`,
            42.5,
            null,
            { date: created.getTime() },
            { cents: 123_456, currency: 'EUR' },
            { formula: 'F{row}-F{row}+F{row}', cents: 123_456, currency: 'EUR' },
            { formula: 'C{row}+C{row}', count: 85 },
            { sheet: 'Kinds', text: 'back "here"' },
          ],
          [{ heading: 'A heading' }, { label: 'a label' }, { emphasis: 'TIES OUT', good: true }, { note: 'a note' }],
        ],
      },
    ]);
    const sheet = (await new ExcelJS.Workbook().xlsx.readFile(file)).getWorksheet('Kinds')!;
    const row = sheet.getRow(2);
    const cell = (i: number) => row.getCell(i);
    expect(cell(1).value).toBe('error');
    expect((cell(1).fill as ExcelJS.FillPattern).fgColor?.argb).toBe('FFF4C7C3');
    // XML's specials kept, a control character shown escaped (never dropped silently).
    expect(cell(2).value).toBe(`a <b> & "c" 'd'\\u0001`);
    expect(cell(3).value).toBe(42.5);
    expect(cell(4).value).toBeNull();
    expect(cell(5).value).toEqual(created);
    expect(cell(5).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(cell(6).value).toBe(1234.56);
    expect(cell(6).numFmt).toBe('"EUR "#,##0.00;-"EUR "#,##0.00');
    expect(cell(7).value).toEqual({ formula: 'ROUND(F2-F2+F2,2)', result: 1234.56 });
    expect(cell(8).value).toEqual({ formula: 'C2+C2', result: 85 });
    expect(cell(9).value).toEqual({ formula: `HYPERLINK("#'Kinds'!A1","back ""here""")`, result: 'back "here"' });
    const free = sheet.getRow(3);
    expect([1, 2, 3, 4].map((i) => free.getCell(i).value)).toEqual(['A heading', 'a label', 'TIES OUT', 'a note']);
    expect(free.getCell(3).font?.bold).toBe(true);
    // The emphasis wraps within its cell: its row is told how tall it is.
    expect(free.height).toBeGreaterThan(14);
  });

  it('refuses a formula that is not cell references, whatever sheet it is in', async () => {
    const file = join(dir, 'refused.xlsx');
    await expect(
      writeXlsx(file, { title: 't', subject: 's', creator: 'ledger-recon', created: testDate() }, [
        { name: 'Bad', header: ['x'], rows: [[{ formula: 'WEBSERVICE("http://x")', count: 1 }]] },
      ]),
    ).rejects.toThrow(/refusing a formula/);
  });
});
