/**
 * The report writes what the run computed: the night's walk computes the month to date (the
 * ledger stage's RunTallies), which is the close of the month so far by the close's own
 * definition, and the workbook's Month to date sheet writes it without walking the ledger again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/findings/reconcile.js';
import { findingsStore } from '../../src/findings/store.js';
import { toCents } from '../../src/money.js';
import { closePeriod } from '../../src/report/close.js';
import { periodOf } from '../../src/report/period.js';
import { writeReport } from '../../src/report/write-report.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices } from '../support/simulator.js';
import { BACKEND_NAME, changeMirror, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-month-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The Month to date sheet's debited per currency and program, in cents. */
async function debitedOnSheet(workbook: string): Promise<Map<string, number>> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(workbook);
  const ws = book.getWorksheet('Month to date')!;
  const header = ws.getRow(1).values as unknown[];
  const column = (name: string): number => header.indexOf(name);
  const debited = new Map<string, number>();
  for (const row of ws.getRows(2, ws.rowCount - 1) ?? []) {
    const value = row.getCell(column('debited')).value;
    const cents = toCents(Number(value));
    if (!cents.ok) throw new Error(`${String(value)} is off the cent`);
    debited.set(
      `${String(row.getCell(column('currency')).value)} ${String(row.getCell(column('program')).value ?? '')}`,
      cents.cents,
    );
  }
  return debited;
}

describe(`the month to date as the night computed it (${BACKEND_NAME})`, () => {
  it('is the close of the month so far, and the workbook writes it without walking the ledger again', async () => {
    const services = await startServices({ size: 'tiny', seed: 31, plant: true });
    // Debits in this month, whatever the day: a run at 23:59 on a month's last day crosses into the next.
    services.sim.applyActivity(20);
    const db = mirrorAt(dir);
    const mirror = await openMirrorAt(db);
    try {
      await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
      const run = await reconcile({ nowMs: testNow(), mirror });
      const month = run.summary.monthToDate!;
      expect(month.rollForwards.length).toBeGreaterThan(0);
      // One truth: the night's month to date is the close of the month so far, by the close's definition.
      const day = run.summary.asOf.slice(0, 10);
      const findings = findingsStore(mirror);
      const close = await closePeriod(mirror, periodOf({ from: `${day.slice(0, 8)}01`, to: day }), undefined, {
        merchantId: await findings.pinnedMerchant(),
        inFlight: await findings.inFlightOf(),
      });
      expect(month.rollForwards).toEqual(close.rollForwards);
      expect([month.unattributedEntries, month.dataFromMs, month.closes]).toEqual([
        close.unattributedEntries,
        close.dataFromMs,
        close.closes,
      ]);
      const stated = new Map(month.rollForwards.map((r) => [`${r.currency} ${r.programId ?? ''}`, r.debitedCents]));
      expect([...stated.values()].some((debited) => debited > 0)).toBe(true);
      const before = await writeReport({ mirror, outDir: join(dir, 'before'), checkRunId: run.summary.checkRunId });
      expect(await debitedOnSheet(before.workbook)).toEqual(stated);

      // The mirror's ledger changes after the night (this month's debits vanish): a report of
      // that night still states what the night computed, where a walk would now find less.
      await changeMirror(
        db,
        `UPDATE gift_card_transactions SET vanished_sync_run_id = 1 WHERE type = 'DEBIT' AND created_at_ms >= ${month.fromMs}`,
      );
      const now = await closePeriod(mirror, periodOf({ from: `${day.slice(0, 8)}01`, to: day }), undefined, {
        merchantId: await findings.pinnedMerchant(),
        inFlight: await findings.inFlightOf(),
      });
      expect(now.rollForwards.reduce((sum, r) => sum + r.debitedCents, 0)).toBe(0);
      const after = await writeReport({ mirror, outDir: join(dir, 'after'), checkRunId: run.summary.checkRunId });
      expect(await debitedOnSheet(after.workbook)).toEqual(stated);

      // A run recorded before nights kept their month to date: the sheet says so, and computes none of its own.
      const [{ summary_json: recorded } = { summary_json: '' }] = await rowsOfMirror<{ summary_json: string }>(
        db,
        'SELECT summary_json FROM check_runs WHERE check_run_id = ?',
        run.summary.checkRunId,
      );
      const { monthToDate: _kept, ...older } = JSON.parse(recorded) as Record<string, unknown>;
      await changeMirror(
        db,
        'UPDATE check_runs SET summary_json = ? WHERE check_run_id = ?',
        JSON.stringify(older),
        run.summary.checkRunId,
      );
      const old = await writeReport({ mirror, outDir: join(dir, 'old'), checkRunId: run.summary.checkRunId });
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(old.workbook);
      expect(String(book.getWorksheet('Month to date')!.getCell('A1').value)).toMatch(
        /^No month-to-date roll-forward: check run \d+ was recorded before nights kept theirs/,
      );
    } finally {
      await mirror.close();
      await services.close();
    }
  });
});
