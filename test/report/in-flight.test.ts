/**
 * One in-flight figure: a card whose break the confirmation pass finds moved on is in flight for
 * the night, and the roll-forward, the Month to date sheet, the close of the month and the run's
 * JSON state the same card and the same amount at the same cut-off.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/db/mirror.js';
import { reconcile, type ReconcileResult } from '../../src/findings/reconcile.js';
import { findingsStore } from '../../src/findings/store.js';
import { toCents } from '../../src/money.js';
import { periodOf } from '../../src/report/period.js';
import { writeClose } from '../../src/report/write-close.js';
import { writeReport, type ReportPaths } from '../../src/report/write-report.js';
import { rereadGiftCards } from '../../src/sync/confirm.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices, type TestServices } from '../support/simulator.js';
import { BACKEND_NAME, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
let services: TestServices;
let mirror: Mirror;
let run: ReconcileResult;
let paths: ReportPaths;
let card: { giftCardId: string; currency: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-in-flight-'));
  services = await startServices({ size: 'tiny', seed: 12, cardListShape: 'minimal' });
  mirror = await openMirrorAt(mirrorAt(dir));
  const truth = services.sim.truth();
  const found = truth.giftCards.find((c) => c.status === 'ACTIVE' && c.remainingBalance >= 10);
  if (!found) throw new Error('the world has no active card with 10.00');
  card = { giftCardId: found.giftCardId, currency: found.currency };
  // The card's balance is 5.00 off its ledger when the sync reads it, and repaired before the confirmation re-reads it.
  services.sim.mutate.breakBalance(card.giftCardId, { offByCents: 500 });
  await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
  services.sim.mutate.repairBalance(card.giftCardId);
  run = await reconcile({
    nowMs: testNow(),
    mirror,
    confirm: (request) => rereadGiftCards(mirror, services.giftcard, request, 4),
  });
  paths = await writeReport({ mirror, outDir: join(dir, 'reports'), checkRunId: run.summary.checkRunId });
}, 60_000);

afterAll(async () => {
  await mirror?.close();
  await services?.close();
  rmSync(dir, { recursive: true, force: true });
});

const cents = (value: unknown): number => {
  const converted = toCents(Number(value));
  if (!converted.ok) throw new Error(`${String(value)} is off the cent`);
  return converted.cents;
};

describe(`one in-flight figure on every surface (${BACKEND_NAME})`, () => {
  it('counts the card the confirmation found moved on in flight, in the roll-forward', () => {
    expect(run.findings.filter((f) => f.code === 'GC_IN_FLIGHT').map((f) => f.entityId)).toEqual([card.giftCardId]);
    expect(run.summary.inFlight).toBe(1);
    const roll = run.rollForward.find((r) => r.currency === card.currency)!;
    expect(roll).toMatchObject({ inFlightCents: 500, inFlightCards: 1, differenceCents: 0 });
  });

  it('shows the same card and amount in flight on the Month to date sheet, tied out', async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(paths.workbook);
    const ws = book.getWorksheet('Month to date')!;
    const header = ws.getRow(1).values as unknown[];
    const rows = (ws.getRows(2, ws.rowCount - 1) ?? []).filter(
      (r) => r.getCell(header.indexOf('currency')).value === card.currency,
    );
    const inFlight = rows.reduce(
      (sum, r) => sum + cents(r.getCell(header.indexOf('in flight (apart, not a break)')).value),
      0,
    );
    const inFlightCards = rows.reduce((sum, r) => sum + Number(r.getCell(header.indexOf('cards in flight')).value), 0);
    expect({ inFlight, inFlightCards }).toEqual({ inFlight: 500, inFlightCards: 1 });
    for (const r of rows) expect(r.getCell(header.indexOf('ties out')).value).toBe('yes');
  });

  it('shows the same in the close of the month that ends now, which ties out', async () => {
    const asOf = new Date(run.summary.asOf);
    const month = asOf.toISOString().slice(0, 7);
    const findings = findingsStore(mirror);
    const { close, paths: written } = await writeClose({
      mirror,
      period: periodOf({ period: month }),
      outDir: join(dir, 'close'),
      merchantId: await findings.pinnedMerchant(),
      inFlight: await findings.inFlightOf(),
    });
    expect(close.endsNow).toBe(true);
    const groups = close.rollForwards.filter((r) => r.currency === card.currency);
    expect(groups.reduce((sum, r) => sum + r.inFlightCents, 0)).toBe(500);
    expect(groups.reduce((sum, r) => sum + r.inFlightCards, 0)).toBe(1);
    expect(close.closes).toBe(true);
    const json = JSON.parse(readFileSync(written.json, 'utf8')) as {
      rollForwards: { currency: string; inFlight: string }[];
    };
    expect(
      json.rollForwards.filter((r) => r.currency === card.currency).reduce((sum, r) => sum + cents(r.inFlight), 0),
    ).toBe(500);
  });

  it('reads the card again by ID the next night, moved or not, and nothing is in flight any more', async () => {
    const next = await runSync({
      clock: { now: testNow },
      mirror,
      giftcard: services.giftcard,
      dp: services.dp,
      recheckCards: await findingsStore(mirror).cardsToReread(),
    });
    const night = await reconcile({
      nowMs: testNow(),
      mirror,
      confirm: (request) => rereadGiftCards(mirror, services.giftcard, request, 4),
    });
    expect(night.summary).toMatchObject({ inFlight: 0, held: 0, verdict: 'RECONCILED' });
    const reads = await rowsOfMirror<{ n: number }>(
      mirrorAt(dir),
      'SELECT COUNT(*) AS n FROM gift_card_history WHERE gift_card_id = ? AND sync_run_id = ?',
      card.giftCardId,
      next.syncRunId,
    );
    expect(Number(reads[0]?.n)).toBe(1);
  });
});
