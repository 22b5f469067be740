/**
 * The close's liability workpaper on the simulator's aged world (six years of cards in
 * an expiring and a non-expiring program), on both backends: every figure the close states is
 * what the documented formulas (docs/liability.md) give from the world's own cards and entries,
 * computed here from the simulator's ground truth; vintages and bands add up to the roll-forward's
 * closing; the workbook's sheets carry the same; `verify --close` re-performs it identically.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reperformPeriod } from '../../src/app/verify.js';
import { openExistingForWriting } from '../../src/db/mirror.js';
import { addMonthsUtc, DORMANCY_BANDS, monthIndexOf, wholeMonthsBetween } from '../../src/ledger/liability.js';
import { parseLiabilitySettings } from '../../src/ledger/liability-settings.js';
import { toCents } from '../../src/money.js';
import { LIABILITY_SHEETS } from '../../src/report/liability-sheets.js';
import { SIZE_PRESETS } from '../../src/sim/generator.js';
import { type Simulator, startSimulator } from '../../src/sim/simulator.js';
import { clockAt, closeOf, nightOf } from '../support/app.js';
import { testNow } from '../support/test-clock.js';
import { BACKEND_NAME, mirrorAt } from '../support/test-db.js';

const SETTINGS = {
  stateOfIncorporation: 'TX',
  haircut: '10%',
  maturityMonths: 24,
  programs: { 'PRG-EVERGREEN': { jurisdiction: 'NY' }, 'PRG-CLASSIC': { breakageRate: '0.05' } },
  jurisdictions: { NY: { dormancyMonths: 60 }, TX: { dormancyMonths: 36 } },
};

const cents = (value: number): number => {
  const c = toCents(value);
  if (!c.ok) throw new Error(`${value} is off the cent`);
  return c.cents;
};
const decimal = (text: string | null): number => (text === null ? Number.NaN : cents(Number(text)));

interface Close {
  closingCutOff: string;
  rollForwards: Array<{ currency: string; programId: string | null; closingFromCards: string }>;
  liability: {
    split: Array<{
      currency: string;
      balances: string;
      breakageRecognised: string;
      escheatPayable: string;
      contractLiability: string;
    }>;
    vintages: Array<{
      currency: string;
      programId: string;
      month: string;
      cards: number;
      issued: string;
      redeemed: string;
      voided: string;
      expired: string;
      remaining: string;
      escheat: string;
    }>;
    dormancy: Array<{ currency: string; programId: string; band: string; cards: number; value: string }>;
    expiry: Array<{ currency: string; programId: string; value: string }>;
    breakage: Array<{
      currency: string;
      programId: string;
      month: string;
      base: string;
      expected: string;
      recognised: string;
    }>;
    escheat: Array<{ giftCardId: string; jurisdiction: string; balance: string }>;
  };
}

/** A card at the cut-off, from the simulator's own records: the documented definitions, computed independently. */
interface Truth {
  id: string;
  currency: string;
  program: string;
  month: string;
  issuedAtMs: number;
  issued: number;
  redeemed: number;
  voided: number;
  expired: number;
  remaining: number;
  lastMs: number;
}

function truthAt(sim: Simulator, cutOffMs: number): Truth[] {
  const { giftCards, transactions } = sim.truth();
  const byCard = new Map<string, typeof transactions>();
  for (const t of transactions) byCard.set(t.giftCardId, [...(byCard.get(t.giftCardId) ?? []), t]);
  return giftCards
    .filter((c) => Date.parse(c.issuedAt) < cutOffMs)
    .map((c) => {
      const entries = (byCard.get(c.giftCardId) ?? [])
        .filter((t) => Date.parse(t.createdAt) < cutOffMs)
        .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
      let redeemed = 0;
      let voided = 0;
      let expired = 0;
      let balance = cents(c.initialBalance);
      let closed = false;
      for (const t of entries) {
        if (t.type === 'DEBIT') redeemed += cents(t.amount);
        if (t.type === 'REFUND') redeemed -= cents(t.amount);
        if (t.type === 'VOID') voided += cents(t.balanceBefore);
        if (t.type === 'EXPIRE') expired += cents(t.balanceBefore);
        if (t.type === 'VOID' || t.type === 'EXPIRE') closed = true;
        balance = cents(t.balanceAfter);
      }
      return {
        id: c.giftCardId,
        currency: c.currency,
        program: c.programId,
        month: c.issuedAt.slice(0, 7),
        issuedAtMs: Date.parse(c.issuedAt),
        issued: cents(c.initialBalance),
        redeemed,
        voided,
        expired,
        remaining: closed ? 0 : balance,
        lastMs:
          entries.length > 0 ? Date.parse((entries.at(-1) as { createdAt: string }).createdAt) : Date.parse(c.issuedAt),
      };
    });
}

const sum = <T>(rows: readonly T[], pick: (row: T) => number): number => rows.reduce((n, r) => n + pick(r), 0);

describe(`the liability workpaper on the aged world (${BACKEND_NAME})`, () => {
  let dir: string;
  let sim: Simulator;
  let close: Close;
  let workbookPath: string;
  let db: string;
  let label: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-liability-'));
    // One instant for the world, its night and its close: a month's end passing while they run moves none of them.
    const at = testNow();
    sim = await startSimulator({ seed: 63, size: { ...SIZE_PRESETS.tiny, agedCards: 120 }, nowMs: at });
    db = mirrorAt(dir);
    const night = await nightOf(sim, db, join(dir, 'out'), { clock: clockAt(at) });
    // A healthy aged world reconciles.
    expect(night.result.ok && night.result.record.exitCode).toBe(0);
    label = new Date(at).toISOString().slice(0, 7);
    const closed = await closeOf(db, join(dir, 'out'), label, at, {
      liability: parseLiabilitySettings(JSON.stringify(SETTINGS)),
    });
    expect(closed.result.closes).toBe(true);
    close = JSON.parse(readFileSync(closed.paths.json, 'utf8')) as Close;
    workbookPath = closed.paths.workbook;
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('states each vintage as the cards and entries give it, and the vintages and bands add up to the closing', () => {
    const cutOffMs = Date.parse(close.closingCutOff);
    const truth = truthAt(sim, cutOffMs);
    expect(new Set(truth.map((t) => t.program))).toEqual(expect.objectContaining({}));
    expect(truth.some((t) => t.program === 'PRG-EVERGREEN') && truth.some((t) => t.program === 'PRG-LEGACY')).toBe(
      true,
    );
    const key = (currency: string, program: string | null, month = ''): string => `${currency} ${program} ${month}`;
    const expected = new Map<string, Truth[]>();
    for (const t of truth)
      expected.set(key(t.currency, t.program, t.month), [
        ...(expected.get(key(t.currency, t.program, t.month)) ?? []),
        t,
      ]);
    expect(close.liability.vintages).toHaveLength(expected.size);
    for (const v of close.liability.vintages) {
      const cards = expected.get(key(v.currency, v.programId, v.month)) ?? [];
      expect(
        [v.cards, decimal(v.issued), decimal(v.redeemed), decimal(v.voided), decimal(v.expired), decimal(v.remaining)],
        `${v.programId} ${v.month}`,
      ).toEqual([
        cards.length,
        sum(cards, (c) => c.issued),
        sum(cards, (c) => c.redeemed),
        sum(cards, (c) => c.voided),
        sum(cards, (c) => c.expired),
        sum(cards, (c) => c.remaining),
      ]);
    }
    // Vintages, dormancy bands and expiry bands each sum to the roll-forward's closing at cut-off, per currency and program.
    for (const r of close.rollForwards) {
      const closing = decimal(r.closingFromCards);
      const own = <T extends { currency: string; programId: string | null }>(rows: T[]) =>
        rows.filter((x) => x.currency === r.currency && x.programId === r.programId);
      expect(sum(own(close.liability.vintages), (v) => decimal(v.remaining))).toBe(closing);
      expect(sum(own(close.liability.dormancy), (b) => decimal(b.value))).toBe(closing);
      expect(sum(own(close.liability.expiry), (b) => decimal(b.value))).toBe(closing);
    }
    // The dormancy bands: by whole months since the card's last entry (or issue).
    for (const b of close.liability.dormancy) {
      const band = DORMANCY_BANDS.find((d) => d.label === b.band)!;
      const inBand = truth.filter((t) => {
        const idle = wholeMonthsBetween(t.lastMs, cutOffMs);
        return (
          t.currency === b.currency &&
          t.program === b.programId &&
          t.remaining !== 0 &&
          idle >= band.fromMonths &&
          (band.toMonths === null || idle < band.toMonths)
        );
      });
      expect([b.cards, decimal(b.value)], `${b.programId} ${b.band}`).toEqual([
        inBand.length,
        sum(inBand, (t) => t.remaining),
      ]);
    }
  });

  it('lists the escheat candidates of two jurisdictions and recognises breakage by the proportional method', () => {
    const cutOffMs = Date.parse(close.closingCutOff);
    const truth = truthAt(sim, cutOffMs);
    const months = (program: string) => (program === 'PRG-EVERGREEN' ? 60 : 36);
    const candidates = truth.filter((t) => t.remaining > 0 && addMonthsUtc(t.lastMs, months(t.program)) <= cutOffMs);
    expect(close.liability.escheat.map((c) => [c.giftCardId, c.jurisdiction, decimal(c.balance)]).sort()).toEqual(
      candidates.map((t) => [t.id, t.program === 'PRG-EVERGREEN' ? 'NY' : 'TX', t.remaining]).sort(),
    );
    expect(new Set(close.liability.escheat.map((c) => c.jurisdiction))).toEqual(new Set(['NY', 'TX']));

    // Per program: the rate set, or the mature vintages' share never redeemed (24 months or more), less the 10 % haircut.
    const cutMonth = monthIndexOf(cutOffMs);
    const escheatOf = (rows: Truth[]) =>
      sum(
        rows.filter((t) => candidates.includes(t)),
        (t) => t.remaining,
      );
    const vintages = new Map<string, Truth[]>();
    for (const t of truth)
      vintages.set(`${t.currency} ${t.program} ${t.month}`, [
        ...(vintages.get(`${t.currency} ${t.program} ${t.month}`) ?? []),
        t,
      ]);
    const baseOf = (rows: Truth[]) => sum(rows, (t) => t.issued - t.voided) - escheatOf(rows);
    for (const b of close.liability.breakage) {
      const rows = vintages.get(`${b.currency} ${b.programId} ${b.month}`)!;
      const base = baseOf(rows);
      expect(decimal(b.base)).toBe(base);
      let n = 0n;
      let d = 1n;
      if (b.programId === 'PRG-CLASSIC') [n, d] = [5n, 100n];
      else {
        const mature = truth.filter(
          (t) =>
            t.currency === b.currency &&
            t.program === b.programId &&
            cutMonth - monthIndexOf(Date.parse(`${t.month}-01T00:00:00Z`)) >= 24,
        );
        const groups = [...new Set(mature.map((t) => t.month))].map((m) => mature.filter((t) => t.month === m));
        const matureBase = sum(groups, baseOf);
        if (matureBase > 0) [n, d] = [BigInt(matureBase - sum(mature, (t) => t.redeemed)), BigInt(matureBase)];
      }
      // The haircut: 90 % of the rate; expected = floor(base × rate), rounded down to the cent.
      const expectedBreakage = base > 0 ? Number((BigInt(base) * n * 9n) / (d * 10n)) : 0;
      expect(decimal(b.expected), `${b.programId} ${b.month}`).toBe(expectedBreakage);
      const redemptions = Math.max(0, base) - expectedBreakage;
      const redeemed = Math.max(
        0,
        sum(rows, (t) => t.redeemed),
      );
      const proportional =
        redemptions <= 0 || redeemed >= redemptions
          ? expectedBreakage
          : Number((BigInt(expectedBreakage) * BigInt(redeemed)) / BigInt(redemptions));
      const available = Math.max(0, sum(rows, (t) => t.remaining) - escheatOf(rows));
      expect(decimal(b.recognised), `${b.programId} ${b.month}`).toBe(
        expectedBreakage > 0 ? Math.min(proportional, available) : 0,
      );
    }
    expect(sum(close.liability.breakage, (b) => decimal(b.recognised))).toBeGreaterThan(0);
    for (const s of close.liability.split) {
      expect(decimal(s.contractLiability)).toBe(
        decimal(s.balances) - decimal(s.breakageRecognised) - decimal(s.escheatPayable),
      );
      expect(decimal(s.escheatPayable)).toBe(
        sum(
          candidates.filter((t) => t.currency === s.currency),
          (t) => t.remaining,
        ),
      );
    }
  });

  it('writes the same figures to the workbook and re-performs them from the mirror', async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(workbookPath);
    for (const name of LIABILITY_SHEETS) expect(book.getWorksheet(name), name).toBeDefined();
    const vintages = book.getWorksheet('Liability by vintage')!;
    const totals = vintages
      .getRows(2, vintages.rowCount - 1)!
      .filter((row) => row.getCell(3).value === 'total')
      .map((row) => [
        String(row.getCell(1).value),
        String(row.getCell(2).value),
        cents((row.getCell(10).value as { result?: number }).result ?? 0),
      ]);
    // Every program's vintages add up to its roll-forward's closing. A program whose cards were all closed before the
    // period opened has vintages at 0.00 and no roll-forward: no opening, no movement, no closing (the aged world's one
    // INR card, issued in October, has expired before a December closed on its last day).
    const rolled = close.rollForwards.map((r) => [
      r.currency,
      r.programId ?? '(no program)',
      decimal(r.closingFromCards),
    ]);
    expect(totals.filter((t) => t[2] !== 0).sort()).toEqual(rolled.filter((r) => r[2] !== 0).sort());
    for (const r of rolled)
      expect(
        totals.some((t) => t[0] === r[0] && t[1] === r[1]),
        `${r[0]} ${r[1]}`,
      ).toBe(true);
    const summary = book.getWorksheet('Summary')!;
    const split = summary
      .getRows(1, summary.rowCount)!
      .filter((row) => close.liability.split.some((s) => s.currency === row.getCell(1).value));
    for (const s of close.liability.split) {
      const row = split.find((r) => r.getCell(1).value === s.currency)!;
      expect(cents((row.getCell(5).value as { result?: number }).result ?? 0)).toBe(decimal(s.contractLiability));
    }
    const { mirror, release } = await openExistingForWriting(db, 'verify', 'sync');
    try {
      expect((await reperformPeriod(mirror, label)).identical).toBe(true);
      // The views state the same vintages and bands.
      const vintages = await mirror.connection
        .read<{
          program_id: string | null;
          issue_month: string;
          remaining_cents: number;
          recognised_breakage_cents: number;
        }>(
          'SELECT program_id, issue_month, remaining_cents, recognised_breakage_cents FROM liability_by_vintage WHERE period = ? ORDER BY currency, program_id, issue_month',
        )
        .all(label);
      expect(
        vintages.map((v) => [
          v.program_id,
          v.issue_month,
          Number(v.remaining_cents),
          Number(v.recognised_breakage_cents),
        ]),
      ).toEqual(
        close.liability.vintages.map((v, i) => [
          v.programId,
          v.month,
          decimal(v.remaining),
          decimal(close.liability.breakage[i]!.recognised),
        ]),
      );
      const bands = await mirror.connection
        .read<{ measure: string; value_cents: number }>(
          'SELECT measure, value_cents FROM liability_dormancy WHERE period = ?',
        )
        .all(label);
      expect(
        sum(
          bands.filter((b) => b.measure === 'since last activity'),
          (b) => Number(b.value_cents),
        ),
      ).toBe(sum(close.liability.dormancy, (b) => decimal(b.value)));
    } finally {
      await release();
    }
  });
});
