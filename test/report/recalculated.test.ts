/**
 * The demo's workbook recalculated as an auditor's spreadsheet would: every cached formula
 * value dropped, LibreOffice opens and recalculates it, and every formula must give exactly the
 * value the tool wrote, to the cent, with no float noise.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoOf } from '../support/app.js';
import { mirrorAt } from '../support/test-db.js';
import { hasProgram } from '../support/programs.js';

const canRecalculate = hasProgram('soffice', 'libreoffice-calc-nogui');

/** Every formula cell's cached value, by sheet and address. */
async function formulaValues(path: string): Promise<Map<string, unknown>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const values = new Map<string, unknown>();
  for (const sheet of workbook.worksheets) {
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        const value = cell.value as { formula?: string; result?: unknown } | null;
        if (value && typeof value === 'object' && 'formula' in value && !value.formula?.startsWith('HYPERLINK'))
          values.set(`${sheet.name}!${cell.address}`, value.result ?? null);
      }),
    );
  }
  return values;
}

describe.runIf(canRecalculate)('the demo workbook, recalculated by LibreOffice', () => {
  let dir: string;
  let original: string;
  let recalculated: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-recalc-'));
    await demoOf(mirrorAt(dir, 'demo'), join(dir, 'reports'));
    original = join(dir, 'reports', readdirSync(join(dir, 'reports')).find((name) => name.endsWith('.xlsx'))!);
    // Drop every cached formula value, so that LibreOffice must compute each one itself.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(original);
    for (const sheet of workbook.worksheets) {
      sheet.eachRow((row) =>
        row.eachCell((cell) => {
          const value = cell.value as { formula?: string } | null;
          if (value && typeof value === 'object' && typeof value.formula === 'string')
            cell.value = { formula: value.formula } as ExcelJS.CellFormulaValue;
        }),
      );
    }
    const stripped = join(dir, 'stripped.xlsx');
    await workbook.xlsx.writeFile(stripped);
    const converted = spawnSync(
      'soffice',
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=file://${join(dir, 'lo')}`,
        '--convert-to',
        'xlsx',
        '--outdir',
        join(dir, 'recalculated'),
        stripped,
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
    expect(converted.status, converted.stderr).toBe(0);
    recalculated = join(dir, 'recalculated', 'stripped.xlsx');
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives exactly the tool’s value for every formula, money to the cent', async () => {
    const expected = await formulaValues(original);
    const actual = await formulaValues(recalculated);
    expect(expected.size).toBeGreaterThan(100);
    const differing = [...expected]
      .filter(([address, value]) => actual.get(address) !== value)
      .map(([address, value]) => `${address}: wrote ${String(value)}, recalculated ${String(actual.get(address))}`);
    expect(differing).toEqual([]);
  });
});
