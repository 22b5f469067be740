import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/db/mirror.js';
import { reconcile } from '../../src/findings/reconcile.js';
import { findingsStore } from '../../src/findings/store.js';
import { cardsWithKeptRefunds, cardsWithKeptSums } from '../../src/ledger/card-sums.js';
import type { RefundGroup } from '../../src/ledger/references.js';
import type { CardSums } from '../../src/ledger/state.js';
import type { CardSnapshot } from '../../src/ledger/types.js';
import { writeReport } from '../../src/report/write-report.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices, type TestServices } from '../support/simulator.js';
import { changeMirror, mirrorAt, numberOfMirror, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { runs } from '../support/property.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
let db: string;
let services: TestServices;
let mirror: Mirror;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-card-sums-'));
  db = mirrorAt(dir);
  services = await startServices({ size: 'small', seed: 23, plant: true });
  mirror = await openMirrorAt(db);
  await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
  await reconcile({ nowMs: testNow(), mirror });
});
afterEach(async () => {
  await mirror.close();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A sheet's rows of cell values by key (a card, or a card and a reference), and the workbook's bytes. */
interface Sheet {
  rows: Map<string, unknown[]>;
  bytes: Buffer;
}

/** A sheet of a report written into `folder`, a row of cell values per card (or per card and the column `andColumn`). */
async function sheetOf(folder: string, name: string, checkRunId?: number, andColumn?: number): Promise<Sheet> {
  const paths = await writeReport({ mirror, outDir: join(dir, folder), ...(checkRunId ? { checkRunId } : {}) });
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(paths.workbook);
  const ws = workbook.getWorksheet(name)!;
  const rows = new Map<string, unknown[]>();
  for (const row of ws.getRows(2, ws.rowCount - 1) ?? []) {
    const values = (row.values as unknown[])
      .slice(1)
      .map((v) => (v && typeof v === 'object' && 'result' in v ? v.result : v));
    rows.set(andColumn === undefined ? String(values[0]) : `${values[0]} ${values[andColumn]}`, values);
  }
  return { rows, bytes: readFileSync(paths.workbook) };
}

/** The Card reconciliation sheet of a report written into `folder`, a row per card. */
const cardSheet = (folder: string, checkRunId?: number): Promise<Sheet> =>
  sheetOf(folder, 'Card reconciliation', checkRunId);
/** The Refunds by reference sheet of a report written into `folder`, a row per card and reference. */
const refundsSheet = (folder: string, checkRunId?: number): Promise<Sheet> =>
  sheetOf(folder, 'Refunds by reference', checkRunId, 2);

/** A card with an entry of `type` in its ledger, and that entry and its reference. */
async function anEntry(type = 'DEBIT'): Promise<{ card: string; transaction: string; reference: string }> {
  const [row] = await rowsOfMirror<{ card: string; transaction: string; reference: string }>(
    db,
    'SELECT gift_card_id AS card, transaction_id AS "transaction", reference_id AS reference FROM gift_card_transactions WHERE type = ? AND vanished_sync_run_id IS NULL ORDER BY transaction_id LIMIT 1',
    type,
  );
  return row!;
}
const aDebit = anEntry;

describe("the Card reconciliation and Refunds by reference sheets of the run's report", () => {
  it('writes the sums the run kept, the very cells a walk of the ledger gives, to the byte', async () => {
    expect(
      await numberOfMirror(db, 'SELECT COUNT(*) FROM check_run_card_sums WHERE check_run_id = 1 AND chunk = 0'),
    ).toBe(1);
    const kept = await cardSheet('kept');
    expect(kept.rows.size).toBe(await numberOfMirror(db, 'SELECT COUNT(*) FROM gift_cards'));
    await changeMirror(db, 'DELETE FROM check_run_card_sums');
    const walked = await cardSheet('walked');
    expect(walked.bytes.equals(kept.bytes)).toBe(true);
  });

  it("writes the Refunds by reference sheet from the references the run kept, with the findings about each reference's refunds", async () => {
    const kept = await refundsSheet('kept');
    const flagged = [...kept.rows.values()].filter((row) => String(row[8] ?? '') !== '');
    expect(kept.rows.size).toBeGreaterThan(flagged.length);
    expect(flagged.map((row) => String(row[8]))).toContain('GC_REFUND_OVER_DEBIT');
    // An entry taken out after the run: the sheet stays as the run kept it, no walk of the ledger.
    const { card, transaction, reference } = await anEntry('REFUND');
    await changeMirror(db, 'DELETE FROM gift_card_transactions WHERE transaction_id = ?', transaction);
    const after = await refundsSheet('after');
    expect(after.rows).toEqual(kept.rows);
    await changeMirror(db, 'DELETE FROM check_run_card_sums');
    const walked = await refundsSheet('walked');
    expect(walked.rows.get(`${card} ${reference}`)).not.toEqual(kept.rows.get(`${card} ${reference}`));
  });

  it('does not walk the ledger again: an entry taken out after the run leaves the sheet as the run summed it', async () => {
    const before = await cardSheet('before');
    const { card, transaction } = await aDebit();
    await changeMirror(db, 'DELETE FROM gift_card_transactions WHERE transaction_id = ?', transaction);
    const after = await cardSheet('after');
    expect(after.rows.get(card)).toEqual(before.rows.get(card));
    // Walked now, the card's debits and entries are the mirror's.
    await changeMirror(db, 'DELETE FROM check_run_card_sums');
    const walked = await cardSheet('walked');
    expect(walked.rows.get(card)).not.toEqual(before.rows.get(card));
  });

  it("is written as the run's sync left the cards when a later sync changed them, and each run keeps its own sums alone", async () => {
    const first = await cardSheet('first');
    const firstRefunds = await refundsSheet('first-refunds');
    // Legal activity after the night (debits, refunds, new cards), mirrored by a later sync.
    services.sim.applyActivity(60);
    await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
    // The night's report written again: its cards as its sync left them, walked from the mirror's history.
    const again = await cardSheet('again', 1);
    expect(again.rows).toEqual(first.rows);
    expect((await refundsSheet('again-refunds', 1)).rows).toEqual(firstRefunds.rows);
    // The next night's cards are the mirror's now, which the activity moved.
    await reconcile({ nowMs: testNow(), mirror });
    expect((await cardSheet('second')).rows).not.toEqual(first.rows);
    expect(await rowsOfMirror(db, 'SELECT check_run_id, chunk FROM check_run_card_sums')).toEqual([
      { check_run_id: 2, chunk: 0 },
    ]);
  });

  it("hands out any few cards asked for with the figures the full pass gives them, in the walk's order (property)", async () => {
    const kept = (await findingsStore(mirror).history.cardSumsOf(1))!;
    const all: Array<{ card: CardSnapshot; sums: CardSums }> = [];
    for await (const batch of cardsWithKeptSums(mirror, kept)) all.push(...batch);
    const refunds: Array<{ giftCardId: string; groups: RefundGroup[] }> = [];
    for await (const batch of cardsWithKeptRefunds(mirror, kept)) refunds.push(...batch);
    expect(all.length).toBe(kept.cards);
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(all.map(({ card }) => card.giftCardId)),
        fc.array(fc.uuid(), { maxLength: 3 }),
        async (cards, others) => {
          const only = JSON.stringify([...others, ...cards].sort());
          const wanted = new Set(cards);
          const few: typeof all = [];
          for await (const batch of cardsWithKeptSums(mirror, kept, only)) few.push(...batch);
          expect(few).toEqual(all.filter(({ card }) => wanted.has(card.giftCardId)));
          const fewRefunds: typeof refunds = [];
          for await (const batch of cardsWithKeptRefunds(mirror, kept, only)) fewRefunds.push(...batch);
          expect(fewRefunds).toEqual(refunds.filter(({ giftCardId }) => wanted.has(giftCardId)));
        },
      ),
      runs(15),
    );
  });

  it('is refused in one sentence when the cards are not those the run summed', async () => {
    await changeMirror(
      db,
      `INSERT INTO gift_cards (gift_card_id, merchant_id, program_id, template_id, status, currency, initial_balance_cents, remaining_balance_cents, version, issued_at, issued_at_ms, expires_at, expires_at_ms, created_at, updated_at, updated_at_ms, read_at_ms, read_sync_run_id, first_sync_run_id, raw_json)
       SELECT '00000000-planted', merchant_id, program_id, template_id, status, currency, initial_balance_cents, remaining_balance_cents, version, issued_at, issued_at_ms, expires_at, expires_at_ms, created_at, updated_at, updated_at_ms, read_at_ms, read_sync_run_id, first_sync_run_id, raw_json
       FROM gift_cards ORDER BY gift_card_id LIMIT 1`,
    );
    await expect(cardSheet('planted')).rejects.toThrow(
      /^the mirror holds \d+ cards where the check run summed \d+: the mirror's cards changed after check run 1; write the report again after the next run$/,
    );
  });

  it('is refused in one sentence when a card is not the one the run summed in its place', async () => {
    const [first] = await rowsOfMirror<{ id: string }>(
      db,
      'SELECT gift_card_id AS id FROM gift_cards ORDER BY gift_card_id LIMIT 1',
    );
    await changeMirror(db, "UPDATE gift_cards SET gift_card_id = '00000000-planted' WHERE gift_card_id = ?", first!.id);
    await expect(cardSheet('replaced')).rejects.toThrow(
      /^card 00000000-planted is not the card the check run summed at position 1 of \d+: the mirror's cards changed after check run 1; write the report again after the next run$/,
    );
  });
});
