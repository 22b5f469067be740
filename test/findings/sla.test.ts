/**
 * Exception SLAs: the first rule whose amount or age threshold is met sets a finding's due time;
 * a night four days after the first marks the errors first seen then overdue, on every surface
 * of the run (its summary and record, the findings files, the workbook, `findings list --overdue`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportedFinding, Finding } from '../../src/findings/finding.js';
import { DEFAULT_SLA_RULES, dueOf, isOverdue, parseSlaRules } from '../../src/findings/sla.js';
import { type Simulator, startSimulator } from '../../src/sim/simulator.js';
import { clockAt, nightOf } from '../support/app.js';
import { expectPageOfRecord } from '../support/pages.js';
import type { RunSummary } from '../../src/app/night.js';
import { listFindings } from '../../src/app/findings.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { testNow } from '../support/test-clock.js';
import { mirrorAt } from '../support/test-db.js';

const HOUR = 3_600_000;
const finding = (over: Partial<Finding>): Finding =>
  ({
    severity: 'error',
    currency: 'USD',
    stakeCents: 0,
    ageDays: 0,
    state: 'new',
    firstSeenAtMs: 0,
    ...over,
  }) as Finding;

describe('exception SLA rules', () => {
  it('take the first rule of the severity whose amount or age threshold is met, from first seen', () => {
    expect(dueOf(finding({ stakeCents: 100_000 }), DEFAULT_SLA_RULES)).toBe(24 * HOUR);
    expect(dueOf(finding({ stakeCents: 99_999 }), DEFAULT_SLA_RULES)).toBe(72 * HOUR);
    expect(dueOf(finding({ ageDays: 7 }), DEFAULT_SLA_RULES)).toBe(24 * HOUR);
    // An amount threshold is per currency: a currency not named never meets it.
    expect(dueOf(finding({ stakeCents: 10_000_000, currency: 'JPY' }), DEFAULT_SLA_RULES)).toBe(72 * HOUR);
    expect(dueOf(finding({ severity: 'warning', firstSeenAtMs: 5 }), DEFAULT_SLA_RULES)).toBe(5 + 168 * HOUR);
    expect(dueOf(finding({ state: 'accepted' }), DEFAULT_SLA_RULES)).toBeNull();
    expect(isOverdue(24 * HOUR, 24 * HOUR)).toBe(true);
    expect(isOverdue(null, Number.MAX_SAFE_INTEGER)).toBe(false);
    const rules = parseSlaRules(
      JSON.stringify([
        { severity: 'error', amountAtLeast: { INR: '50000.00' }, dueWithinHours: 4 },
        { severity: 'error', dueWithinHours: 48 },
      ]),
    );
    expect(dueOf(finding({ currency: 'INR', stakeCents: 5_000_000 }), rules)).toBe(4 * HOUR);
    // No rule of its severity: no due time.
    expect(dueOf(finding({ severity: 'info' }), rules)).toBeNull();
    expect(() => parseSlaRules('[{"severity": "error", "dueWithinHours": 0}]')).toThrow(
      'rule 0.dueWithinHours: Too small: expected number to be >=1',
    );
    expect(() =>
      parseSlaRules('[{"severity": "error", "amountAtLeast": {"USD": "10.001"}, "dueWithinHours": 2}]'),
    ).toThrow('rule 0.amountAtLeast.USD: an amount in the currency, to the cent ("1000.00")');
  });
});

describe('a night four days after the first', () => {
  let dir: string;
  let sim: Simulator;
  let db: string;
  let findings: ExportedFinding[];
  let workbook: string;
  let overdue: number | undefined;
  let laterRecord: RunSummary;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-sla-'));
    sim = await startSimulator({ seed: 64, size: 'tiny', plant: true, nowMs: testNow() });
    db = mirrorAt(dir);
    const first = await nightOf(sim, db, join(dir, 'out'), { clock: clockAt(testNow()) });
    if (!first.result.ok) throw new Error(`the first night failed: ${first.result.record.error.message}`);
    expect(first.result.record.overdue).toBe(0);
    const later = await nightOf(sim, db, join(dir, 'out'), { clock: clockAt(testNow() + 4 * 24 * HOUR) });
    if (!later.result.ok) throw new Error('the second night failed');
    overdue = later.result.record.overdue;
    laterRecord = later.result.record;
    findings = JSON.parse(readFileSync(later.result.record.report.json, 'utf8')) as ExportedFinding[];
    workbook = later.result.record.report.workbook;
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('marks the errors first seen the night before overdue, in the record, the files and the workbook', async () => {
    const late = findings.filter((f) => f.overdue);
    expect(late.length).toBeGreaterThan(0);
    expect(overdue).toBe(late.length);
    for (const f of findings) {
      if (f.state === 'accepted') expect(f.dueAt).toBeNull();
      if (f.overdue) expect(Date.parse(f.dueAt ?? '')).toBeLessThanOrEqual(testNow() + 4 * 24 * HOUR);
      // Errors of the first night: three days to clear them, four gone by.
      if (f.severity === 'error' && Date.parse(f.firstSeenAt) === testNow() && f.state !== 'accepted')
        expect(f.overdue, f.code).toBe(true);
    }
    const csv = readFileSync(workbook.replace(/\.xlsx$/, '-findings.csv'), 'utf8');
    expect(csv.split('\r\n')[0]).toMatch(/"dueAt","overdue"$/);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(workbook);
    const summary = book.getWorksheet('Summary')!;
    const line = summary.getRows(1, summary.rowCount)!.find((r) => r.getCell(1).value === 'Overdue');
    expect(line?.getCell(2).value).toBe(late.length.toLocaleString('en-US'));
    const sheet = book.getWorksheet('Findings')!;
    const marked = sheet
      .getRows(2, sheet.rowCount - 1)!
      .filter((r) => r.getCell(sheet.columnCount).value === 'OVERDUE');
    expect(marked).toHaveLength(late.length);
  });

  it("leads the night's page with the longest overdue findings, the earliest due first", () => {
    const page = expectPageOfRecord(laterRecord.report.page, laterRecord, 2);
    const late = findings.filter((f) => f.overdue);
    expect(page.view.overdueFindings.length).toBe(Math.min(late.length, 20));
    const earliest = Math.min(...late.map((f) => Date.parse(f.dueAt ?? '')));
    expect(Date.parse(page.view.overdueFindings[0]!.dueAt)).toBe(earliest);
  });

  it('lists the overdue findings alone with --overdue, and refuses an SLA file it cannot read in one line', async () => {
    const rows = (await listFindings({ overdue: true, db })).listed;
    expect(rows.map((f) => f.fingerprint).sort()).toEqual(
      findings
        .filter((f) => f.overdue)
        .map((f) => f.fingerprint)
        .sort(),
    );
    const rules = join(dir, 'sla.json');
    writeFileSync(rules, '[{"severity": "critical", "dueWithinHours": 4}]');
    const refused = await runCli(['check', '--dry-run', '--db', db, '--sla', rules], cleanEnv());
    expect([refused.status, refused.stderr]).toEqual([
      2,
      `ledger-recon: --sla ${rules}: rule 0.severity: Invalid option: expected one of "error"|"warning"|"info": see docs/checking.md#exception-slas for its form\n`,
    ]);
  });
});
