/**
 * The period close: hand-computed figures over two months, a planted break, the workpapers
 * through the real CLI, and a property over random legal ledgers.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { LIABILITY_SHEETS } from '../../src/report/liability-sheets.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { GiftCard, Transaction } from '../../src/api/wire-types.js';
import type { Mirror } from '../../src/db/mirror.js';
import { closePeriod, type PeriodClose, type PeriodRollForward } from '../../src/report/close.js';
import { midnight, periodOf } from '../../src/report/period.js';
import { giftCardRow, transactionRow } from '../../src/sync/rows.js';
import { SyncStore } from '../../src/sync/store.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { closeOf, failureOfJob } from '../support/app.js';
import { closeTold } from '../../src/app/close-lines.js';
import { liabilityAsOf, unclaimedReport } from '../../src/app/liability.js';
import { parseLiabilitySettings } from '../../src/report/liability-sheets.js';
import { mirrorAt, openMirrorAt } from '../support/test-db.js';
import { runs } from '../support/property.js';

const MERCHANT = randomUUID();
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

interface CardSpec {
  currency: string;
  program: string;
  issued: string;
  initial: number;
  remaining?: number;
  entries: Array<{ at: string; type: Transaction['type']; amount: number; before: number; after: number }>;
}

/** A real mirror holding `cards`, written by the sync's own writer, with one completed sync as of `asOf`. */
async function mirrorOf(
  cards: CardSpec[],
  asOf: string,
): Promise<{ mirror: Mirror; path: string; folder: string; ids: string[] }> {
  const folder = mkdtempSync(join(tmpdir(), 'ledger-recon-close-'));
  folders.push(folder);
  const path = mirrorAt(folder);
  const mirror = await openMirrorAt(path);
  const asOfMs = Date.parse(asOf);
  await mirror.connection
    .write(
      "INSERT INTO sync_runs (sync_run_id, mode, status, started_at, started_at_ms, pid, giftcard_base_url, dp_base_url, summary_json) VALUES (1, 'full', 'completed', ?, ?, 1, 'http://x', 'http://y', ?)",
    )
    .run(asOf, asOfMs, JSON.stringify({ ledgerReadUntilMs: asOfMs }));
  const writer = new SyncStore(mirror);
  const ids = cards.map(() => randomUUID());
  let listOrder = 0;
  await writer.batch(async () => {
    for (const [i, spec] of cards.entries()) {
      const giftCardId = ids[i]!;
      const last = spec.entries.at(-1);
      const card: GiftCard = {
        giftCardId,
        merchantId: MERCHANT,
        programId: spec.program,
        status: 'ACTIVE',
        currency: spec.currency,
        initialBalance: spec.initial,
        remainingBalance: spec.remaining ?? last?.after ?? spec.initial,
        issuedAt: spec.issued,
        expiresAt: '2030-01-01T00:00:00Z',
        version: spec.entries.length,
        createdAt: spec.issued,
        updatedAt: spec.issued,
      };
      await writer.cards.card(giftCardRow(card), 1, asOfMs);
      for (const e of spec.entries) {
        const entry: Transaction = {
          transactionId: randomUUID(),
          giftCardId,
          type: e.type,
          amount: e.amount,
          balanceBefore: e.before,
          balanceAfter: e.after,
          referenceId: `REF-${listOrder}`,
          idempotencyKey: randomUUID(),
          createdAt: e.at,
        };
        await writer.ledger.entry(transactionRow(entry), 1, (listOrder += 1));
      }
    }
  });
  return { mirror, path, folder, ids };
}

/** The fixture whose figures are worked out by hand in the comments. */
const FIXTURE: CardSpec[] = [
  // A: issued in October; spent across both months; a November refund of the October debit.
  {
    currency: 'USD',
    program: 'P1',
    issued: '2026-10-05T09:00:00Z',
    initial: 100,
    entries: [
      { at: '2026-10-10T12:00:00Z', type: 'DEBIT', amount: 30, before: 100, after: 70 },
      { at: '2026-11-03T12:00:00Z', type: 'DEBIT', amount: 20, before: 70, after: 50 },
      { at: '2026-11-20T12:00:00Z', type: 'REFUND', amount: 10, before: 50, after: 60 },
    ],
  },
  // B: issued before October, spent, then voided in October.
  {
    currency: 'USD',
    program: 'P1',
    issued: '2026-09-15T09:00:00Z',
    initial: 50,
    entries: [
      { at: '2026-10-12T12:00:00Z', type: 'DEBIT', amount: 5, before: 50, after: 45 },
      { at: '2026-10-20T12:00:00Z', type: 'VOID', amount: 45, before: 45, after: 45 },
    ],
  },
  // C: spent in September, expired at the end of November (breakage).
  {
    currency: 'USD',
    program: 'P1',
    issued: '2026-08-01T09:00:00Z',
    initial: 80,
    entries: [
      { at: '2026-09-10T12:00:00Z', type: 'DEBIT', amount: 10, before: 80, after: 70 },
      { at: '2026-11-30T23:00:00Z', type: 'EXPIRE', amount: 0, before: 70, after: 70 },
    ],
  },
  // D: issued on the cut-off instant between the months: November's.
  { currency: 'USD', program: 'P1', issued: '2026-11-01T00:00:00Z', initial: 25, entries: [] },
  // E: another currency and program, issued on October's first instant, never used.
  { currency: 'EUR', program: 'P2', issued: '2026-10-01T00:00:00Z', initial: 40, entries: [] },
];

const figures = (r: PeriodRollForward | undefined) =>
  r && [
    r.openingCents,
    r.issuedCents,
    r.debitedCents,
    r.refundedCents,
    r.voidedCents,
    r.expiredCents,
    r.closingFromFlowsCents,
    r.closingFromCardsCents,
    r.closes,
  ];

describe('closing a period', () => {
  it('gives the hand-computed figures for two months, per currency and program', async () => {
    const { mirror } = await mirrorOf(FIXTURE, '2026-12-15T00:00:00Z');
    try {
      const october = await closePeriod(mirror, periodOf({ period: '2026-10' }));
      // USD P1: opening B 50 + C 70 = 120; issued A 100; debited 30 + 5; voided B 45; closing 140 = A 70 + C 70 (B voided, D not yet issued).
      expect(figures(october.rollForwards.find((r) => r.currency === 'USD'))).toEqual([
        12000,
        10000,
        3500,
        0,
        4500,
        0,
        14000,
        14000,
        true,
      ]);
      // EUR P2: E issued on the first instant: issued, not opening.
      expect(figures(october.rollForwards.find((r) => r.currency === 'EUR'))).toEqual([
        0,
        4000,
        0,
        0,
        0,
        0,
        4000,
        4000,
        true,
      ]);
      const november = await closePeriod(mirror, periodOf({ period: '2026-11' }));
      // USD P1: opening 140; issued D 25; debited A 20; refunded A 10; expired C 70; closing 85 = A 60 + D 25.
      expect(figures(november.rollForwards.find((r) => r.currency === 'USD'))).toEqual([
        14000,
        2500,
        2000,
        1000,
        0,
        7000,
        8500,
        8500,
        true,
      ]);
      expect(figures(november.rollForwards.find((r) => r.currency === 'EUR'))).toEqual([
        4000,
        0,
        0,
        0,
        0,
        0,
        4000,
        4000,
        true,
      ]);
      expect([october.endsNow, november.endsNow, october.closes, november.closes]).toEqual([false, false, true, true]);
      // A period that reaches the data's edge is tied out against the service's remainingBalance too.
      const december = await closePeriod(mirror, periodOf({ from: '2026-12-01', to: '2026-12-31' }));
      expect(december.endsNow).toBe(true);
      expect(
        december.rollForwards.map((r) => [r.currency, r.closingFromCardsCents, r.serviceRemainingCents, r.closes]),
      ).toEqual([
        ['EUR', 4000, 4000, true],
        ['USD', 8500, 8500, true],
      ]);
    } finally {
      await mirror.close();
    }
  });

  it("cuts off at midnight in the merchant's zone when --tz names one", async () => {
    const { mirror } = await mirrorOf(FIXTURE, '2026-12-15T00:00:00Z');
    try {
      // In Tokyo, November begins at 2026-10-31T15:00Z: D (issued at 00:00Z on 1 November) is November's either way,
      // and nothing else moves; the cut-off itself is what differs.
      const period = periodOf({ period: '2026-11', tz: 'Asia/Tokyo' });
      expect(new Date(period.startMs).toISOString()).toBe('2026-10-31T15:00:00.000Z');
      expect(midnight(2026, 3, 29, 'Europe/Berlin')).toBe(Date.parse('2026-03-28T23:00:00Z'));
      expect(midnight(2026, 3, 30, 'Europe/Berlin')).toBe(Date.parse('2026-03-29T22:00:00Z'));
      expect((await closePeriod(mirror, period)).closes).toBe(true);
    } finally {
      await mirror.close();
    }
  });

  it('fails the tie-out of the currency and program a planted break sits in, and only that one', async () => {
    const broken = structuredClone(FIXTURE);
    // A's November refund says 65 where 50 + 10 is 60.
    broken[0]!.entries[2]!.after = 65;
    broken.push({ currency: 'USD', program: 'P3', issued: '2026-10-02T00:00:00Z', initial: 10, entries: [] });
    const { mirror } = await mirrorOf(broken, '2026-12-15T00:00:00Z');
    try {
      const november = await closePeriod(mirror, periodOf({ period: '2026-11' }));
      expect(november.rollForwards.map((r) => [r.currency, r.programId, r.differenceCents, r.closes])).toEqual([
        ['EUR', 'P2', 0, true],
        ['USD', 'P1', 500, false],
        ['USD', 'P3', 0, true],
      ]);
      expect((await closePeriod(mirror, periodOf({ period: '2026-10' }))).closes).toBe(true);
    } finally {
      await mirror.close();
    }
  });

  it('warns that a period before the data holds nothing, and says what the data covers', async () => {
    const { mirror, path, folder } = await mirrorOf(structuredClone(FIXTURE), '2026-12-15T00:00:00Z');
    await mirror.close();
    const closed = await closeOf(path, join(folder, 'empty'), '2020-01', Date.parse('2026-12-16T00:00:00Z'));
    expect(closed.result.closes).toBe(true);
    expect(closeTold('2020-01', closed).warnings).toEqual([
      expect.stringMatching(
        /^ledger-recon: the period 2020-01 holds no data \(no card owed anything or moved in it\): the mirror's data runs from \d{4}-\d{2}-\d{2} to 2026-12-15$/,
      ),
    ]);
  });

  it('writes the workpapers: formulas with their values, the sign-off, a line saying where a tie-out fails', async () => {
    const broken = structuredClone(FIXTURE);
    broken[0]!.entries[2]!.after = 65;
    const { mirror, path, folder } = await mirrorOf(broken, '2026-12-15T00:00:00Z');
    await mirror.close();
    const out = join(folder, 'close');
    const closed = await closeOf(path, out, '2026-11', Date.parse('2026-12-16T00:00:00Z'), { preparer: 'A. Preparer' });
    // Exit 1 on the command line: a tie-out fails.
    expect(closed.result.closes).toBe(false);
    const told = closeTold('2026-11', closed);
    expect(told.warnings).toEqual([
      `ledger-recon: the period 2026-11 does not tie out on USD P1: see ${join(out, 'ledger-recon-close-2026-11.xlsx')}`,
    ]);
    // The line of the roll-forward that fails says by how much, and where.
    expect(told.lines.find((line) => line.startsWith('USD P1:'))).toMatch(
      /: DOES NOT TIE OUT \((at cut-off − closing -?[\d,.]+|service − at cut-off -?[\d,.]+)(; [^)]+)?\)$/,
    );
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(out, 'ledger-recon-close-2026-11.xlsx'));
    expect(workbook.worksheets.map((w) => w.name)).toEqual([
      'Summary',
      'Period roll-forward',
      'Cards at cut-off',
      'Activity in period',
      ...LIABILITY_SHEETS,
    ]);
    const summary = workbook.getWorksheet('Summary')!;
    const labelled = (label: string) => summary.getRows(1, summary.rowCount)!.find((r) => r.getCell(1).value === label);
    expect(labelled('Result')?.getCell(2).value).toBe('DOES NOT TIE OUT');
    // The headline under it: each roll-forward's closing from flows, at cut-off, the service, and whether it ties out.
    const headline = labelled('USD P1');
    expect(headline?.number).toBeLessThan(labelled('Period')!.number);
    expect([headline?.getCell(2).value, headline?.getCell(3).value, headline?.getCell(6).value]).toEqual([
      85,
      expect.any(Number),
      'NO',
    ]);
    expect(headline?.getCell(5).value).not.toBe(0);
    expect(labelled('Prepared by')?.getCell(2).value).toBe('A. Preparer');
    expect(String(labelled('Prepared by')?.getCell(4).value)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(labelled('Reviewed by')?.getCell(3).value).toBe('Date');
    const roll = workbook.getWorksheet('Period roll-forward')!;
    const usd = roll.getRows(2, roll.rowCount - 1)!.find((r) => r.getCell(1).value === 'USD')!;
    expect(usd.getCell(10).value).toEqual({
      formula: `ROUND(D${usd.number}+E${usd.number}-F${usd.number}+G${usd.number}-H${usd.number}-I${usd.number},2)`,
      result: 85,
    });
    expect(usd.getCell(12).value).toEqual({ formula: `ROUND(K${usd.number}-J${usd.number},2)`, result: 5 });
    const json = JSON.parse(readFileSync(join(out, 'ledger-recon-close-2026-11.json'), 'utf8')) as {
      closes: boolean;
      rollForwards: Array<{ currency: string; difference: string }>;
    };
    expect(json.closes).toBe(false);
    expect(json.rollForwards.find((r) => r.currency === 'USD')?.difference).toBe('5.00');
    expect(
      readFileSync(join(out, 'ledger-recon-close-2026-11-cards.csv'), 'utf8').split('\r\n').filter(Boolean),
    ).toHaveLength(1 + 4);
  });

  it('takes the liability settings from --liability, refuses a misspelt key in one line, and exports the holder report', async () => {
    const { mirror, path, folder } = await mirrorOf(FIXTURE, '2026-12-15T00:00:00Z');
    await mirror.close();
    const settings = join(folder, 'liability.json');
    writeFileSync(settings, JSON.stringify({ stateOfIncorporation: 'NY', dormancyMonth: 12 }));
    const refused = await runCli(['close', '--period', '2026-11', '--db', path, '--liability', settings], cleanEnv());
    expect([refused.status, refused.stderr]).toEqual([
      2,
      `ledger-recon: --liability ${settings}: the file: Unrecognized key: "dormancyMonth": see docs/liability.md for its form\n`,
    ]);
    // Every card dormant after a month: each one owing something is a property of NY's.
    writeFileSync(
      settings,
      JSON.stringify({ stateOfIncorporation: 'NY', jurisdictions: { NY: { dormancyMonths: 1 } } }),
    );
    const liabilitySettings = parseLiabilitySettings(readFileSync(settings, 'utf8'));
    const report = await unclaimedReport(path, periodOf({ period: '2026-11' }), liabilitySettings);
    const [header, ...rows] = report.csv.split('\r\n').filter(Boolean);
    expect(header).toBe(
      '"property_id","property_type","owner_name","owner_state","date_of_last_activity","amount_reported","currency","issued","program"',
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows)
      expect(row).toMatch(/^"[^"]+","MS12","UNKNOWN","NY","\d{8}","\d+\.\d{2}","[A-Z]{3}","\d{8}",/);
    const liability = await liabilityAsOf(path, '2026-11-30');
    expect(liability.json).toMatchObject({
      cutOff: '2026-12-01T00:00:00.000Z',
      settings: { standard: 'asc-606' },
    });
  });

  it('names a malformed period in one line', async () => {
    const failure = await failureOfJob(async () => periodOf({ period: '2026-13' }));
    expect([failure.exitCode, failure.line]).toEqual([
      2,
      'ledger-recon: --period 2026-13 is not a month: write it as YYYY-MM, e.g. 2026-10',
    ]);
  });

  it('names a day of --as-of that does not exist by --as-of, the flag the user gave', async () => {
    for (const [day, line] of [
      ['2026-12-40', 'ledger-recon: --as-of 2026-12-40 is not a date: write it as YYYY-MM-DD, e.g. 2026-10-31'],
      ['2026-13-01', 'ledger-recon: --as-of 2026-13-01 is not a date: write it as YYYY-MM-DD, e.g. 2026-10-31'],
      [
        '1969-12-31',
        'ledger-recon: --as-of 1969-12-31 is before 1970: no gift card ledger is that old; check the year',
      ],
    ]) {
      const failure = await failureOfJob(() =>
        liabilityAsOf(join(tmpdir(), 'ledger-recon-never-opened.db'), day as string),
      );
      expect([failure.exitCode, failure.line]).toEqual([2, line]);
    }
  });
});

/** A random legal ledger: cards issued over four months, each spent, refunded and perhaps closed, in time order. */
const legalCards = fc.array(
  fc.record({
    currency: fc.constantFrom('USD', 'EUR'),
    program: fc.constantFrom('P1', 'P2'),
    issuedDay: fc.integer({ min: 0, max: 100 }),
    initial: fc.integer({ min: 1, max: 50_000 }),
    ops: fc.array(
      fc.record({
        gapHours: fc.integer({ min: 0, max: 24 * 20 }),
        kind: fc.constantFrom('DEBIT', 'DEBIT', 'REFUND', 'VOID', 'EXPIRE'),
        share: fc.integer({ min: 1, max: 100 }),
      }),
      { maxLength: 8 },
    ),
  }),
  { minLength: 1, maxLength: 8 },
);

function specsOf(
  cards: Array<{
    currency: string;
    program: string;
    issuedDay: number;
    initial: number;
    ops: Array<{ gapHours: number; kind: string; share: number }>;
  }>,
): CardSpec[] {
  const start = Date.parse('2026-08-01T00:00:00Z');
  return cards.map((c) => {
    let at = start + c.issuedDay * 86_400_000;
    let balance = c.initial;
    let debited = 0;
    const entries: CardSpec['entries'] = [];
    for (const op of c.ops) {
      at += op.gapHours * 3_600_000 + 1_000;
      const iso = new Date(at).toISOString();
      if (op.kind === 'DEBIT' && balance > 0) {
        const amount = Math.max(1, Math.floor((balance * op.share) / 100));
        entries.push({
          at: iso,
          type: 'DEBIT',
          amount: amount / 100,
          before: balance / 100,
          after: (balance - amount) / 100,
        });
        balance -= amount;
        debited += amount;
      } else if (op.kind === 'REFUND' && debited > 0) {
        const amount = Math.max(1, Math.floor((debited * op.share) / 100));
        entries.push({
          at: iso,
          type: 'REFUND',
          amount: amount / 100,
          before: balance / 100,
          after: (balance + amount) / 100,
        });
        balance += amount;
        debited -= amount;
      } else if (op.kind === 'VOID' || op.kind === 'EXPIRE') {
        entries.push({ at: iso, type: op.kind, amount: 0, before: balance / 100, after: balance / 100 });
        break;
      }
    }
    return {
      currency: c.currency,
      program: c.program,
      issued: new Date(start + c.issuedDay * 86_400_000).toISOString(),
      initial: c.initial / 100,
      entries,
    };
  });
}

describe('closing consecutive periods (property)', () => {
  it('chains month to month, adds up to the whole history, and ties out on every legal ledger', async () => {
    await fc.assert(
      fc.asyncProperty(legalCards, async (cards) => {
        const { mirror } = await mirrorOf(specsOf(cards), '2027-06-01T00:00:00Z');
        try {
          const months: PeriodClose[] = [];
          for (const period of ['2026-08', '2026-09', '2026-10', '2026-11', '2026-12', '2027-01'])
            months.push(await closePeriod(mirror, periodOf({ period })));
          const whole = await closePeriod(mirror, periodOf({ from: '2026-08-01', to: '2027-01-31' }));
          const key = (r: PeriodRollForward) => `${r.currency} ${r.programId}`;
          for (const close of [...months, whole]) expect(close.rollForwards.filter((r) => !r.closes)).toEqual([]);
          for (let m = 0; m + 1 < months.length; m += 1) {
            const next = new Map(months[m + 1]!.rollForwards.map((r) => [key(r), r.openingCents]));
            for (const r of months[m]!.rollForwards)
              if (r.closingFromCardsCents !== 0) expect(next.get(key(r)), key(r)).toBe(r.closingFromCardsCents);
          }
          for (const r of whole.rollForwards) {
            const parts = months.flatMap((close) => close.rollForwards.filter((p) => key(p) === key(r)));
            const sum = (field: 'issuedCents' | 'debitedCents' | 'refundedCents' | 'voidedCents' | 'expiredCents') =>
              parts.reduce((total, p) => total + p[field], 0);
            expect([
              sum('issuedCents'),
              sum('debitedCents'),
              sum('refundedCents'),
              sum('voidedCents'),
              sum('expiredCents'),
            ]).toEqual([r.issuedCents, r.debitedCents, r.refundedCents, r.voidedCents, r.expiredCents]);
            expect(r.openingCents).toBe(0);
          }
        } finally {
          await mirror.close();
        }
      }),
      runs(25),
    );
  });
});
