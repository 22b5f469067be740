import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addMonthsUtc,
  DEFAULT_LIABILITY_SETTINGS,
  DORMANCY_BANDS,
  EXPIRY_BANDS,
  LiabilityBook,
  type LiabilitySettings,
  monthIndexOf,
  wholeMonthsBetween,
} from '../../src/ledger/liability.js';
import { formatRate, parseRate, rateOf, rateText, shareOf } from '../../src/ledger/rate.js';
import { liabilitySettingsFile, parseLiabilitySettings } from '../../src/ledger/liability-settings.js';
import { nightAgainstMonth, periodRollForwards } from '../../src/ledger/rollforward.js';
import { LiabilityTally } from '../../src/ledger/state.js';
import type { WalkedCard } from '../../src/ledger/walk.js';
import { cents } from '../../src/money.js';
import { runs } from '../support/property.js';
import { legalCard as legalCardOf, legalOp } from '../support/legal-card.js';

const OURS = 'merchant-ours';
const T0 = Date.UTC(2021, 0, 1);
const DAY = 86_400_000;

describe('calendar months in UTC', () => {
  it('moves by whole months with the day clamped to the month', () => {
    expect(new Date(addMonthsUtc(Date.UTC(2024, 0, 31, 10), 1)).toISOString()).toBe('2024-02-29T10:00:00.000Z');
    expect(new Date(addMonthsUtc(Date.UTC(2023, 0, 31), 1)).toISOString()).toBe('2023-02-28T00:00:00.000Z');
    expect(new Date(addMonthsUtc(Date.UTC(2023, 10, 15), 14)).toISOString()).toBe('2025-01-15T00:00:00.000Z');
    expect(wholeMonthsBetween(Date.UTC(2023, 0, 31), Date.UTC(2023, 1, 28))).toBe(1);
    expect(wholeMonthsBetween(Date.UTC(2023, 0, 15), Date.UTC(2023, 1, 14, 23))).toBe(0);
    expect(wholeMonthsBetween(Date.UTC(2020, 5, 1), Date.UTC(2026, 5, 1))).toBe(72);
  });
});

describe('rates', () => {
  it('reads decimals and percentages exactly and rounds money down to the cent', () => {
    expect(parseRate('0.15')).toEqual(rateOf(3, 20));
    expect(parseRate('12.5%')).toEqual(rateOf(1, 8));
    expect(parseRate('-0.1')).toBeNull();
    expect(parseRate('1e-2')).toBeNull();
    expect(rateText(rateOf(1, 8))).toBe('0.125');
    expect(rateText(rateOf(1, 3))).toBe('1/3');
    expect(formatRate(rateOf(1, 3))).toBe('33.33 %');
    expect(shareOf(cents(1_001), rateOf(1, 3))).toBe(333);
    expect(shareOf(cents(-1_001), rateOf(1, 3))).toBe(-334);
  });
});

type Op = { kind: 'DEBIT' | 'REFUND'; cents: number; gapDays: number } | { kind: 'VOID' | 'EXPIRE'; gapDays: number };

/** A legal card issued `issuedDays` after T0 (and `index` seconds), its moves `gapDays` apart. */
function legalCard(
  index: number,
  spec: {
    initial: number;
    issuedDays: number;
    currency: string;
    program: number;
    foreign: boolean;
    expiresDays: number;
    ops: Op[];
  },
): WalkedCard {
  const issuedAtMs = T0 + spec.issuedDays * DAY + index * 1_000;
  return legalCardOf(index, {
    initial: spec.initial,
    issuedAtMs,
    currency: spec.currency,
    merchantId: spec.foreign ? 'merchant-other' : OURS,
    programId: ['P-NY', 'P-HOME', null][spec.program] ?? null,
    expiresAtMs: issuedAtMs + spec.expiresDays * DAY,
    readAtMs: T0 + 4_000 * DAY,
    ops: spec.ops.map((op) => ({ ...op, gapMs: Math.max(1, op.gapDays) * DAY })),
  });
}

const op: fc.Arbitrary<Op> = legalOp(8, 400, 900).map(({ gap, ...move }) => ({ ...move, gapDays: gap }));
const world = fc.array(
  fc.record({
    initial: fc.integer({ min: 0, max: 20_000 }),
    issuedDays: fc.integer({ min: 0, max: 1_800 }),
    currency: fc.constantFrom('USD', 'EUR'),
    program: fc.integer({ min: 0, max: 2 }),
    foreign: fc.integer({ min: 0, max: 8 }).map((n) => n === 0),
    expiresDays: fc.integer({ min: 30, max: 4_000 }),
    ops: fc.array(op, { maxLength: 6 }),
  }),
  { minLength: 1, maxLength: 40 },
);
const settings: fc.Arbitrary<LiabilitySettings> = fc
  .record({
    standard: fc.constantFrom('asc-606' as const, 'ifrs-15' as const, 'ifrs-9' as const),
    maturityMonths: fc.integer({ min: 6, max: 36 }),
    haircut: fc.integer({ min: 0, max: 50 }),
    setRate: fc.option(fc.integer({ min: 0, max: 100 })),
    nyMonths: fc.integer({ min: 12, max: 72 }),
    exemptHome: fc.boolean(),
  })
  .map((s) => ({
    ...DEFAULT_LIABILITY_SETTINGS,
    standard: s.standard,
    maturityMonths: s.maturityMonths,
    haircut: rateOf(s.haircut, 100),
    programRates: s.setRate === null ? new Map() : new Map([['P-HOME', rateOf(s.setRate, 100)]]),
    programJurisdictions: new Map([['P-NY', 'NY']]),
    stateOfIncorporation: 'TX',
    jurisdictions: new Map([
      ['NY', { dormancyMonths: s.nyMonths, exempt: false }],
      ['TX', { dormancyMonths: 36, exempt: s.exemptHome }],
    ]),
  }));

const key = (currency: string, program: string | null): string => `${currency} ${program ?? '-'}`;

describe('the liability at a cut-off', () => {
  it('holds every identity: vintages and bands sum to the closing, breakage within its bounds, escheat never breakage', () => {
    fc.assert(
      fc.property(world, settings, fc.integer({ min: 200, max: 2_400 }), (specs, liabilitySettings, cutDays) => {
        const cards = specs.map((spec, i) => legalCard(i, spec));
        const cutOffMs = T0 + cutDays * DAY;
        const tally = new LiabilityTally({ fromMs: cutOffMs - 40 * DAY, toMs: cutOffMs }, OURS, true);
        const book = new LiabilityBook(cutOffMs, OURS, liabilitySettings);
        for (const walked of cards) {
          const figures = tally.add(walked, false);
          book.add(walked.card, walked.entries, figures?.unknown);
        }
        const at = book.result();
        const closing = new Map(
          periodRollForwards(tally, false).map((r) => [key(r.currency, r.programId), r.closingFromCardsCents]),
        );
        const sum = (rows: Array<{ currency: string; programId: string | null }>, cents: (row: never) => number) => {
          const sums = new Map<string, number>();
          for (const row of rows)
            sums.set(
              key(row.currency, row.programId),
              (sums.get(key(row.currency, row.programId)) ?? 0) + cents(row as never),
            );
          return sums;
        };
        const nonZero = (m: Map<string, number>) => new Map([...m].filter(([, v]) => v !== 0));
        const vintageSums = sum(at.vintages, (v: { remainingCents: number }) => v.remainingCents);
        expect(nonZero(vintageSums)).toEqual(nonZero(closing));
        expect(nonZero(sum(at.dormancy, (b: { cents: number }) => b.cents))).toEqual(nonZero(closing));
        expect(nonZero(sum(at.expiry, (b: { cents: number }) => b.cents))).toEqual(nonZero(closing));

        // Each card in its bands, by whole months (wholeMonthsBetween) since its last entry and to its expiry.
        const bandSums = new Map<string, number>();
        for (const { card, entries } of cards) {
          if (card.merchantId !== OURS || card.issuedAtMs >= cutOffMs) continue;
          const before = entries.filter((e) => e.createdAtMs < cutOffMs);
          const closed = before.some((e) => e.type === 'VOID' || e.type === 'EXPIRE');
          const owed = closed ? 0 : (before.at(-1)?.afterCents ?? card.initialCents ?? 0);
          if (owed === 0) continue;
          const idle = wholeMonthsBetween(before.at(-1)?.createdAtMs ?? card.issuedAtMs, cutOffMs);
          const toExpiry = card.expiresAtMs <= cutOffMs ? -1 : wholeMonthsBetween(cutOffMs, card.expiresAtMs);
          const dormancy = DORMANCY_BANDS.find(
            (b) => idle >= b.fromMonths && (b.toMonths === null || idle < b.toMonths),
          )!;
          const expiry = EXPIRY_BANDS.find(
            (b) => toExpiry >= b.fromMonths && (b.toMonths === null || toExpiry < b.toMonths),
          )!;
          for (const band of [`d ${dormancy.label}`, `e ${expiry.label}`]) {
            const k = `${key(card.currency, card.programId)} ${band}`;
            bandSums.set(k, (bandSums.get(k) ?? 0) + owed);
          }
        }
        const stated = new Map<string, number>();
        for (const [prefix, rows] of [
          ['d', at.dormancy],
          ['e', at.expiry],
        ] as const)
          for (const b of rows)
            if (b.cents !== 0) stated.set(`${key(b.currency, b.programId)} ${prefix} ${b.band}`, b.cents);
        expect(stated).toEqual(new Map([...bandSums].filter(([, v]) => v !== 0)));

        for (const v of at.vintages) {
          expect(v.issuedCents - v.redeemedCents - v.voidedCents - v.expiredCents).toBe(v.remainingCents);
          expect(v.unexplainedCents).toBe(0);
          expect(v.escheatCents).toBeLessThanOrEqual(v.remainingCents);
          // The curve, from the cards themselves: redeemed in the first k whole months since the issue month.
          const own = cards.filter(
            (c) =>
              c.card.merchantId === OURS &&
              c.card.currency === v.currency &&
              c.card.programId === v.programId &&
              c.card.issuedAtMs < cutOffMs &&
              new Date(c.card.issuedAtMs).toISOString().slice(0, 7) === v.month,
          );
          v.redeemedAfterMonths.forEach((point, index) => {
            let expected = 0;
            for (const c of own)
              for (const e of c.entries)
                if (e.createdAtMs < cutOffMs && monthIndexOf(e.createdAtMs) - monthIndexOf(c.card.issuedAtMs) <= index)
                  expected +=
                    e.type === 'DEBIT' ? (e.amountCents ?? 0) : e.type === 'REFUND' ? -(e.amountCents ?? 0) : 0;
            expect(point).toBe(expected);
          });
        }
        const escheatByVintage = new Map<string, number>();
        for (const c of at.escheat) {
          expect(c.balanceCents).toBeGreaterThan(0);
          expect(addMonthsUtc(c.lastActivityMs, c.dormancyMonths)).toBeLessThanOrEqual(cutOffMs);
          const k = `${key(c.currency, c.programId)} ${new Date(c.issuedAtMs).toISOString().slice(0, 7)}`;
          escheatByVintage.set(k, (escheatByVintage.get(k) ?? 0) + c.balanceCents);
        }
        at.breakage.forEach((b, i) => {
          const v = at.vintages[i]!;
          expect(escheatByVintage.get(`${key(v.currency, v.programId)} ${v.month}`) ?? 0).toBe(v.escheatCents);
          expect(b.recognisedCents).toBeGreaterThanOrEqual(0);
          expect(b.recognisedCents).toBeLessThanOrEqual(Math.max(0, b.expectedCents));
          // Escheat candidates are never counted as breakage: what is recognised fits in what remains beside them.
          expect(b.recognisedCents).toBeLessThanOrEqual(Math.max(0, v.remainingCents - v.escheatCents));
          expect(b.baseCents).toBe(v.issuedCents - v.voidedCents - v.escheatCents);
          if (liabilitySettings.standard === 'ifrs-9') expect(b.recognisedCents).toBe(0);
        });
        for (const s of at.split)
          expect(s.contractLiabilityCents).toBe(s.balancesCents - s.breakageRecognisedCents - s.escheatPayableCents);
      }),
      runs(150),
    );
  });

  it('estimates from mature vintages, constrains by the haircut and recognises in proportion to redemptions', () => {
    // Two mature vintages of 100.00 each, 70.00 and 90.00 redeemed: 40.00 of 200.00 never redeemed (20 %).
    const issue = (i: number, day: number, debit: number): WalkedCard =>
      legalCard(i, {
        initial: 10_000,
        issuedDays: day,
        currency: 'USD',
        program: 1,
        foreign: false,
        expiresDays: 4_000,
        ops: debit === 0 ? [] : [{ kind: 'DEBIT', cents: debit, gapDays: 10 }],
      });
    const cards = [issue(0, 0, 7_000), issue(1, 40, 9_000), issue(2, 900, 4_000)];
    const cutOffMs = T0 + 1_000 * DAY;
    const book = new LiabilityBook(cutOffMs, OURS, { ...DEFAULT_LIABILITY_SETTINGS, stateOfIncorporation: 'NY' });
    for (const c of cards) book.add(c.card, c.entries);
    const at = book.result();
    const program = at.programs[0]!;
    expect(program.source).toBe('mature vintages');
    expect(program.rate).toEqual(rateOf(1, 5));
    // 20 % less a 10 % haircut: 18 %.
    expect(program.constrainedRate).toEqual(rateOf(9, 50));
    const young = at.breakage.find((b) => b.month === new Date(T0 + 900 * DAY).toISOString().slice(0, 7))!;
    expect(young.expectedCents).toBe(1_800);
    expect(young.expectedRedemptionsCents).toBe(8_200);
    // 1,800 × 4,000 ÷ 8,200 = 878.04…: 878.
    expect(young.recognisedCents).toBe(878);
    expect(at.split[0]).toMatchObject({ balancesCents: 3_000 + 1_000 + 6_000 });
  });
});

describe('the liability settings file', () => {
  it('reads every key over the defaults, gives back the same settings from what it seals, and refuses what it cannot read exactly', () => {
    const settings = parseLiabilitySettings(
      JSON.stringify({
        standard: 'ifrs-9',
        haircut: '12.5%',
        stateOfIncorporation: 'TX',
        jurisdictions: { TX: { dormancyMonths: 36 }, CA: { exempt: true } },
        programs: { 'PRG-A': { breakageRate: '0.15', jurisdiction: 'NY' } },
      }),
    );
    expect(settings).toMatchObject({ standard: 'ifrs-9', haircut: rateOf(1, 8), stateOfIncorporation: 'TX' });
    expect(settings.programRates.get('PRG-A')).toEqual(rateOf(3, 20));
    expect(settings.jurisdictions.get('NY')).toEqual({ dormancyMonths: 60, exempt: false });
    expect(parseLiabilitySettings(JSON.stringify(liabilitySettingsFile(settings)))).toEqual(settings);
    for (const [text, message] of [
      ['{"haircut": 0.1}', 'haircut: Invalid input: expected string, received number'],
      [
        '{"haircut": "110%"}',
        'haircut: a rate is a decimal between 0 and 1 ("0.12") or a percentage ("12%"), written as a string',
      ],
      [
        '{"programs": {"P": {"breakageRate": "1e-2"}}}',
        'programs.P.breakageRate: a rate is a decimal between 0 and 1 ("0.12") or a percentage ("12%"), written as a string',
      ],
      ['{"maturityMonths": 2.5}', 'maturityMonths: Invalid input: expected int, received number'],
      [
        '{"jurisdictions": {"New York": {}}}',
        'jurisdictions.New York: a two-letter code ("NY"), or a country and subdivision ("US-NY")',
      ],
      ['{"standard": "gaap"}', 'standard: Invalid option: expected one of "asc-606"|"ifrs-15"|"ifrs-9"'],
      ['not json', 'not JSON'],
    ] as const)
      expect(() => parseLiabilitySettings(text), text).toThrow(message);
  });
});

describe("the night's roll-forward difference against the month so far's", () => {
  it('is the month’s cards − flows plus its service − cards plus what lies between the openings, per currency that differs', () => {
    const related = nightAgainstMonth(
      [
        { currency: 'USD', differenceCents: cents(-1_200) },
        { currency: 'EUR', differenceCents: cents(0) },
      ],
      [
        { currency: 'USD', differenceCents: cents(0), serviceDifferenceCents: cents(500) },
        { currency: 'USD', differenceCents: cents(-300), serviceDifferenceCents: null },
        { currency: 'EUR', differenceCents: cents(0), serviceDifferenceCents: cents(0) },
        { currency: 'GBP', differenceCents: cents(-700), serviceDifferenceCents: cents(0) },
      ],
    );
    expect(related).toEqual([
      {
        currency: 'GBP',
        nightCents: 0,
        monthCardsCents: -700,
        monthServiceCents: 0,
        monthCents: -700,
        openingsCents: 700,
      },
      {
        currency: 'USD',
        nightCents: -1_200,
        monthCardsCents: -300,
        monthServiceCents: 500,
        monthCents: 200,
        openingsCents: -1_400,
      },
    ]);
  });
});
