import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WalkedCard } from '../../src/ledger/walk.js';
import {
  BEGINNING,
  cardAt,
  cardAtEach,
  closingOf,
  LiabilityTally,
  type CardFacts,
  type EntryFacts,
} from '../../src/ledger/state.js';
import {
  nightlyRollForward,
  nightlyTally,
  type PreviousClosing,
  type RollForward,
} from '../../src/ledger/rollforward.js';
import { cents } from '../../src/money.js';
import { runs } from '../support/property.js';
import { legalCard as legalCardOf, legalOp } from '../support/legal-card.js';

const OURS = 'merchant-ours';
const T0 = Date.UTC(2026, 9, 1);
const HOUR = 3_600_000;

type Op = { kind: 'DEBIT' | 'REFUND'; cents: number; gapHours: number } | { kind: 'VOID' | 'EXPIRE'; gapHours: number };

/** A legal card issued `issuedHours` after T0, its moves `gapHours` apart. */
function legalCard(
  index: number,
  spec: { initial: number; issuedHours: number; currency: string; foreign: boolean; ops: Op[] },
): WalkedCard {
  return legalCardOf(index, {
    initial: spec.initial,
    issuedAtMs: T0 + spec.issuedHours * HOUR,
    currency: spec.currency,
    merchantId: spec.foreign ? 'merchant-other' : OURS,
    programId: index % 2 === 0 ? 'p1' : null,
    expiresAtMs: T0 + 9_000 * HOUR,
    readAtMs: T0 + 9_000 * HOUR,
    ops: spec.ops.map((op) => ({ ...op, gapMs: Math.max(1, op.gapHours) * HOUR })),
  });
}

const op: fc.Arbitrary<Op> = legalOp(6, 200, 200).map(({ gap, ...move }) => ({ ...move, gapHours: gap }));
const world = fc.array(
  fc.record({
    initial: fc.integer({ min: 0, max: 20_000 }),
    issuedHours: fc.integer({ min: 0, max: 2_000 }),
    currency: fc.constantFrom('USD', 'EUR'),
    foreign: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
    ops: fc.array(op, { maxLength: 8 }),
  }),
  { minLength: 1, maxLength: 25 },
);
const cutOffs = fc
  .uniqueArray(fc.integer({ min: 1, max: 4_000 }), { minLength: 3, maxLength: 5 })
  .map((hours) => hours.sort((a, b) => a - b).map((h) => T0 + h * HOUR));

/** The nights of a world at the given cut-offs, each opening at the previous one's closing. */
function nights(
  cards: readonly WalkedCard[],
  cuts: readonly number[],
  inFlight: ReadonlySet<string> = new Set(),
): RollForward[][] {
  const result: RollForward[][] = [];
  let previous: PreviousClosing | null = null;
  for (const cut of cuts) {
    const tally = nightlyTally(previous, cut, OURS);
    for (const card of cards) tally.add(card, inFlight.has(card.card.giftCardId));
    const rolls = nightlyRollForward(tally, previous);
    result.push(rolls);
    previous = {
      cutOffMs: cut,
      asOfMs: cut,
      byCurrency: new Map(
        rolls.map((r) => [r.currency, { closingCents: r.closingCents, ledgerClosingCents: r.ledgerClosingCents }]),
      ),
    };
  }
  return result;
}

/** Σ what our cards owe at a cut-off, per currency: the cards at cut-off. */
function owedAt(cards: readonly WalkedCard[], cut: number): Map<string, number> {
  const sums = new Map<string, number>();
  for (const { card, entries } of cards) {
    if (card.merchantId !== OURS) continue;
    sums.set(
      card.currency,
      (sums.get(card.currency) ?? 0) + (cardAt(card as CardFacts, entries as EntryFacts[], cut).owedCents ?? 0),
    );
  }
  return sums;
}

/** The close of [from, to) per currency (programs summed), from the same core. */
function close(
  cards: readonly WalkedCard[],
  from: number,
  to: number,
): Map<string, { opening: number; closingFromFlows: number; closingFromCards: number; service: number }> {
  const tally = new LiabilityTally({ fromMs: from, toMs: to }, OURS, true);
  for (const card of cards) tally.add(card, false);
  const sums = new Map<
    string,
    { opening: number; closingFromFlows: number; closingFromCards: number; service: number }
  >();
  for (const g of tally.groups()) {
    const s = sums.get(g.currency) ?? { opening: 0, closingFromFlows: 0, closingFromCards: 0, service: 0 };
    s.opening += g.openingCents;
    s.closingFromFlows += closingOf(g);
    s.closingFromCards += g.ledgerClosingCents;
    s.service += g.serviceCents;
    sums.set(g.currency, s);
  }
  return sums;
}

describe('the ledger-state core', () => {
  it('gives one figure on every surface of a legal world: nights chain and close, closes tie out, the cards at cut-off agree', () => {
    fc.assert(
      fc.property(world, cutOffs, (specs, cuts) => {
        const cards = specs.map((spec, i) => legalCard(i, spec));
        const all = nights(cards, cuts);
        for (const [n, rolls] of all.entries()) {
          const owed = owedAt(cards, cuts[n]!);
          for (const r of rolls) {
            expect(r.differenceCents).toBe(0);
            expect(r.rebaseCents).toBe(0);
            expect(r.closingCents).toBe(owed.get(r.currency) ?? 0);
            expect(r.ledgerClosingCents).toBe(r.closingCents);
            const before = n === 0 ? undefined : all[n - 1]!.find((p) => p.currency === r.currency);
            expect(r.openingCents).toBe(before?.closingCents ?? 0);
          }
          // The close from the previous cut-off (or the beginning of data) to this one: the same closing.
          const from = n === 0 ? T0 - HOUR : cuts[n - 1]!;
          for (const [currency, c] of close(cards, from, cuts[n]!)) {
            expect(c.closingFromFlows).toBe(c.closingFromCards);
            expect(c.closingFromCards).toBe(owed.get(currency) ?? 0);
            expect(c.service).toBe(c.closingFromCards);
            const night = rolls.find((r) => r.currency === currency);
            expect(night?.closingCents ?? 0).toBe(c.closingFromFlows);
            expect(night?.cardsRemainingCents ?? 0).toBe(c.service);
          }
        }
        // Two periods chain: the first's closing is the second's opening.
        const [a, b, c] = cuts as [number, number, number];
        const first = close(cards, a, b);
        for (const [currency, second] of close(cards, b, c))
          expect(second.opening).toBe(first.get(currency)?.closingFromCards ?? owedAt(cards, b).get(currency) ?? 0);
      }),
      runs(200),
    );
  });

  it('gives in one pass what a card owes at two cut-offs and after its last entry, as cardAt does at each', () => {
    fc.assert(
      fc.property(world, cutOffs, (specs, cuts) => {
        for (const [i, spec] of specs.entries()) {
          const { card, entries } = legalCard(i, spec);
          const [from, to] = [cuts[0]!, cuts[1]!];
          expect(cardAtEach(card, entries, from, to)).toEqual([
            cardAt(card, entries, from),
            cardAt(card, entries, to),
            cardAt(card, entries, Number.POSITIVE_INFINITY),
          ]);
        }
      }),
      runs(200),
    );
  });

  it('shows a planted balance break the same amount on every surface, night after night, until repaired', () => {
    fc.assert(
      fc.property(
        world,
        cutOffs,
        fc.integer({ min: -5_000, max: 5_000 }).filter((d) => d !== 0),
        (specs, cuts, delta) => {
          const cards = specs.map((spec, i) =>
            legalCard(i, {
              ...spec,
              foreign: i === 0 ? false : spec.foreign,
              issuedHours: i === 0 ? 0 : spec.issuedHours,
              ops: i === 0 ? spec.ops.filter((o) => o.kind !== 'VOID' && o.kind !== 'EXPIRE') : spec.ops,
            }),
          );
          const broken = cards[0]!;
          broken.card.remainingCents = cents((broken.card.remainingCents ?? 0) + delta);
          const all = nights(cards, cuts);
          for (const [n, rolls] of all.entries()) {
            const r = rolls.find((x) => x.currency === broken.card.currency)!;
            // The snapshot is read after every cut-off: its difference is there every night.
            expect(r.differenceCents).toBe(delta);
            expect(r.closingCents).toBe(owedAt(cards, cuts[n]!).get(broken.card.currency));
            const c = close(cards, n === 0 ? T0 - HOUR : cuts[n - 1]!, cuts[n]!).get(broken.card.currency)!;
            expect(c.service - c.closingFromCards).toBe(delta);
          }
        },
      ),
      runs(100),
    );
  });

  it('shows a planted chain gap the same amount on every surface from the entry that reveals it, night after night', () => {
    fc.assert(
      fc.property(
        world,
        cutOffs,
        fc.integer({ min: 1, max: 3_000 }),
        fc.integer({ min: 1, max: 3_000 }),
        (specs, cuts, a, b) => {
          // Card 0: issued at T0 with 10,000.00, two debits 100 h apart; the first is missing from the ledger.
          const spec = {
            initial: 1_000_000,
            issuedHours: 0,
            currency: 'USD',
            foreign: false,
            ops: [
              { kind: 'DEBIT' as const, cents: a, gapHours: 1_000 },
              { kind: 'DEBIT' as const, cents: b, gapHours: 100 },
            ],
          };
          const broken = legalCard(0, spec);
          const [, revealing] = broken.entries;
          broken.entries = broken.entries.slice(1);
          const cards = [broken, ...specs.slice(1).map((s, i) => legalCard(i + 1, s))];
          const revealedAt = revealing!.createdAtMs;
          const all = nights(cards, cuts);
          for (const [n, rolls] of all.entries()) {
            const usd = rolls.find((r) => r.currency === 'USD')!;
            // Before the entry that reveals the gap, nothing is missing; from it on, the same amount, every night.
            expect(usd.differenceCents).toBe(cuts[n]! > revealedAt ? -a : 0);
            const from = n === 0 ? T0 - HOUR : cuts[n - 1]!;
            const period = close(cards, from, cuts[n]!).get('USD')!;
            // A period that holds the revealing entry shows the gap between its flows and its cards.
            const holds = revealedAt >= from && revealedAt < cuts[n]!;
            expect(period.closingFromCards - period.closingFromFlows).toBe(holds ? -a : 0);
            expect(period.service - period.closingFromCards).toBe(0);
          }
        },
      ),
      runs(100),
    );
  });

  it('counts a card in flight at its ledger balance and shows what its snapshot holds beyond it apart', () => {
    const card = legalCard(1, {
      initial: 10_000,
      issuedHours: 0,
      currency: 'USD',
      foreign: false,
      ops: [{ kind: 'DEBIT', cents: 2_500, gapHours: 5 }],
    });
    // The snapshot was read before the debit: it still says 100.00.
    card.card.remainingCents = cents(10_000);
    const [[still]] = nights([card], [T0 + 100 * HOUR], new Set()) as [[RollForward]];
    expect(still).toMatchObject({
      closingCents: 7_500,
      cardsRemainingCents: 10_000,
      differenceCents: 2_500,
      inFlightCents: 0,
    });
    const [[moving]] = nights([card], [T0 + 100 * HOUR], new Set([card.card.giftCardId])) as [[RollForward]];
    expect(moving).toMatchObject({
      closingCents: 7_500,
      cardsRemainingCents: 7_500,
      differenceCents: 0,
      inFlightCents: 2_500,
      inFlightCards: 1,
    });
  });

  it('leaves another merchant’s card out of every figure, and re-bases an opening with its reason instead of resetting it', () => {
    const ours = legalCard(1, { initial: 5_000, issuedHours: 0, currency: 'EUR', foreign: false, ops: [] });
    const theirs = legalCard(2, {
      initial: 9_900,
      issuedHours: 0,
      currency: 'EUR',
      foreign: true,
      ops: [{ kind: 'DEBIT', cents: 100, gapHours: 1 }],
    });
    const [[night]] = nights([ours, theirs], [T0 + 10 * HOUR]) as [[RollForward]];
    expect(night).toMatchObject({
      issuedCents: 5_000,
      debitedCents: 0,
      closingCents: 5_000,
      cardsRemainingCents: 5_000,
      differenceCents: 0,
    });
    // A previous run that counted the foreign card (an earlier version) is re-based, on a line of its own.
    const previous: PreviousClosing = {
      cutOffMs: T0 + 10 * HOUR,
      asOfMs: T0 + 10 * HOUR,
      byCurrency: new Map([['EUR', { closingCents: cents(14_800), ledgerClosingCents: cents(14_800) }]]),
    };
    const tally = nightlyTally(previous, T0 + 20 * HOUR, OURS);
    for (const card of [ours, theirs]) tally.add(card, false);
    const [next] = nightlyRollForward(tally, previous);
    expect(next).toMatchObject({ openingCents: 14_800, rebaseCents: -9_800, closingCents: 5_000, differenceCents: 0 });
    expect(next?.rebaseReason).toMatch(/not what the previous run saw/);
    expect(BEGINNING).toBe(Number.NEGATIVE_INFINITY);
  });
});
