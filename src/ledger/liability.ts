/**
 * The liability as finance closes it, at one cut-off, from the same walk and the same
 * definitions as the roll-forward (state.ts): per currency, program and issue month (the
 * vintage) what was issued, redeemed, voided and expired and what remains, with the redemption
 * curve; what remains by time since last activity (dormancy) and to expiry; the cards past their
 * jurisdiction's dormancy period (unclaimed property, owed to a state, never revenue); and
 * breakage, estimated per program and recognised per vintage in proportion to redemptions.
 * Pure: no I/O. Cents are integers; rates are exact fractions (rate.ts). docs/liability.md
 * states every figure for a controller, with its source.
 *
 * Months are calendar months in UTC, as the month to date's: a card's vintage is the UTC month
 * of its issuedAt; "k months since issue" counts whole calendar months from the issue month.
 */
import { type Cents, minusCents, plusCents, ZERO_CENTS } from '../money.js';
import { complementOf, proportionOf, type Rate, rateBelow, rateOf, shareOf, timesRate, ZERO_RATE } from './rate.js';
import { closes, type EntryFacts, entryMove } from './state.js';

/** The accounting standard the breakage figures follow. */
export type LiabilityStandard = 'asc-606' | 'ifrs-15' | 'ifrs-9';

/** One jurisdiction's unclaimed property rule for gift cards. */
export interface JurisdictionRule {
  /** Whole months without activity after which a balance is presumed abandoned. */
  dormancyMonths: number;
  /** The jurisdiction exempts gift cards from unclaimed property. */
  exempt: boolean;
}

/** What shapes the liability figures: every one is stated on the sheets and in the manifest. */
export interface LiabilitySettings {
  standard: LiabilityStandard;
  /** A vintage this many whole months old or more is mature: its unredeemed share is history to estimate from. */
  maturityMonths: number;
  /** The constraint on the estimate (ASC 606-10-32-11, IFRS 15.56): the rate is reduced by this share. */
  haircut: Rate;
  /** A breakage rate the finance team sets per program (before the haircut); the others are estimated from mature vintages. */
  programRates: ReadonlyMap<string, Rate>;
  /** The jurisdiction of a program's cards (the service's cards carry none); else the merchant's state of incorporation. */
  programJurisdictions: ReadonlyMap<string, string>;
  /** The merchant's state of incorporation: the second priority rule's jurisdiction. */
  stateOfIncorporation: string;
  /** Rules per jurisdiction; one not listed follows `defaultDormancyMonths`, not exempt. */
  jurisdictions: ReadonlyMap<string, JurisdictionRule>;
  defaultDormancyMonths: number;
}

/** The documented defaults (docs/liability.md): ASC 606, 24 months to maturity, a 10 % haircut, 3 years' dormancy, 5 in New York. */
export const DEFAULT_LIABILITY_SETTINGS: LiabilitySettings = {
  standard: 'asc-606',
  maturityMonths: 24,
  haircut: rateOf(1, 10),
  programRates: new Map(),
  programJurisdictions: new Map(),
  stateOfIncorporation: 'DE',
  jurisdictions: new Map([
    ['DE', { dormancyMonths: 60, exempt: false }],
    ['NY', { dormancyMonths: 60, exempt: false }],
    ['CA', { dormancyMonths: 36, exempt: true }],
  ]),
  defaultDormancyMonths: 36,
};

/** A card as the liability needs it. */
export interface LiabilityCard {
  giftCardId: string;
  merchantId: string;
  currency: string;
  programId: string | null;
  issuedAtMs: number;
  expiresAtMs: number;
  initialCents: Cents | null;
}

const DAY_MS = 86_400_000;

/** The UTC month of an instant as a count of months (year × 12 + month). */
export function monthIndexOf(ms: number): number {
  const day = new Date(ms);
  return day.getUTCFullYear() * 12 + day.getUTCMonth();
}

/** The first instant of a month index, UTC (years from 100 on: Date.UTC reads 0 to 99 as 1900 to 1999). */
export function monthStartOf(index: number): number {
  return Date.UTC(Math.floor(index / 12), index % 12, 1);
}

/** "YYYY-MM" of a month index. */
export function monthLabel(index: number): string {
  const year = Math.floor(index / 12);
  return `${String(year).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** `ms` moved by whole calendar months in UTC, the day clamped to the month's last (31 Jan + 1 = 28 or 29 Feb). */
export function addMonthsUtc(ms: number, months: number): number {
  const day = new Date(ms);
  const year = day.getUTCFullYear();
  const month = day.getUTCMonth() + months;
  // Date.UTC carries a month past 11 into the years; day 0 of the next month is this month's last.
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(day.getUTCDate(), lastDay),
    day.getUTCHours(),
    day.getUTCMinutes(),
    day.getUTCSeconds(),
    day.getUTCMilliseconds(),
  );
}

/** Whole calendar months from `fromMs` to `toMs` (0 when toMs is before a month has passed). */
export function wholeMonthsBetween(fromMs: number, toMs: number): number {
  if (toMs < fromMs) return -wholeMonthsBetween(toMs, fromMs);
  let k = monthIndexOf(toMs) - monthIndexOf(fromMs);
  if (addMonthsUtc(fromMs, k) > toMs) k -= 1;
  return k;
}

/** A band of time in whole months: [from, to), `to` null for open-ended. */
export interface MonthBand {
  label: string;
  fromMonths: number;
  toMonths: number | null;
}

/** Time since the last activity. */
export const DORMANCY_BANDS: readonly MonthBand[] = [
  { label: '0–6 months', fromMonths: 0, toMonths: 6 },
  { label: '6–12 months', fromMonths: 6, toMonths: 12 },
  { label: '1–2 years', fromMonths: 12, toMonths: 24 },
  { label: '2–3 years', fromMonths: 24, toMonths: 36 },
  { label: '3–5 years', fromMonths: 36, toMonths: 60 },
  { label: '5 years or more', fromMonths: 60, toMonths: null },
];

/** Time to expiry; a card past its expiry still owing comes first. */
export const EXPIRY_BANDS: readonly MonthBand[] = [
  { label: 'past expiry', fromMonths: Number.NEGATIVE_INFINITY, toMonths: 0 },
  { label: 'within 3 months', fromMonths: 0, toMonths: 3 },
  { label: '3–12 months', fromMonths: 3, toMonths: 12 },
  { label: '1–2 years', fromMonths: 12, toMonths: 24 },
  { label: '2–5 years', fromMonths: 24, toMonths: 60 },
  { label: '5 years or more', fromMonths: 60, toMonths: null },
];

const bandOf = (bands: readonly MonthBand[], months: number): number =>
  bands.findIndex((b) => months >= b.fromMonths && (b.toMonths === null || months < b.toMonths));

/** One card at the cut-off, as every liability figure counts it. */
export interface CardLiability {
  card: LiabilityCard;
  /** What it owes at the cut-off by its ledger (0 once voided or expired); null: unknown (an amount off the cent). */
  remainingCents: Cents | null;
  /** Debits less refunds before the cut-off; null when an amount is off the cent. */
  redeemedCents: Cents | null;
  voidedCents: Cents | null;
  expiredCents: Cents | null;
  /** Redeemed (debits less refunds) per whole calendar month since the issue month: [0] the issue month. */
  redeemedByAge: Cents[];
  /** Its last ledger entry before the cut-off, or its issue when it has none. */
  lastActivityMs: number;
  closed: boolean;
}

/** A card at `cutOffMs` from its entries, oldest first; null when not issued before the cut-off. */
export function cardLiabilityAt(
  card: LiabilityCard,
  entries: readonly EntryFacts[],
  cutOffMs: number,
): CardLiability | null {
  if (!(card.issuedAtMs < cutOffMs)) return null;
  const issueMonth = monthIndexOf(card.issuedAtMs);
  let balance = card.initialCents;
  let closed = false;
  let redeemed: Cents | null = ZERO_CENTS;
  let voided: Cents | null = ZERO_CENTS;
  let expired: Cents | null = ZERO_CENTS;
  const redeemedByAge: Cents[] = [];
  let lastActivityMs = card.issuedAtMs;
  // The month of the entries so far, and when it ends: a Date is made once a month, not once an entry.
  let age = 0;
  let monthEndsMs = monthStartOf(issueMonth + 1);
  for (const entry of entries) {
    if (entry.createdAtMs >= cutOffMs) break;
    lastActivityMs = entry.createdAtMs;
    balance = entry.afterCents;
    if (closes(entry)) closed = true;
    const move = entryMove(entry);
    if (move === null) continue;
    if (move.flow === 'voidedCents')
      voided = move.cents === null || voided === null ? null : plusCents(voided, move.cents);
    else if (move.flow === 'expiredCents')
      expired = move.cents === null || expired === null ? null : plusCents(expired, move.cents);
    else {
      const signed =
        move.cents === null ? null : move.flow === 'debitedCents' ? move.cents : minusCents(ZERO_CENTS, move.cents);
      if (signed === null || redeemed === null) redeemed = null;
      else {
        redeemed = plusCents(redeemed, signed);
        if (entry.createdAtMs >= monthEndsMs) {
          const month = monthIndexOf(entry.createdAtMs);
          age = Math.max(0, month - issueMonth);
          monthEndsMs = monthStartOf(month + 1);
        }
        while (redeemedByAge.length <= age) redeemedByAge.push(ZERO_CENTS);
        redeemedByAge[age] = plusCents(redeemedByAge[age] as Cents, signed);
      }
    }
  }
  return {
    card,
    remainingCents: closed ? ZERO_CENTS : balance,
    redeemedCents: redeemed,
    voidedCents: voided,
    expiredCents: expired,
    redeemedByAge,
    lastActivityMs,
    closed,
  };
}

/** A currency, program and issue month. */
export interface Vintage {
  currency: string;
  programId: string | null;
  /** "YYYY-MM", UTC. */
  month: string;
  /** Whole calendar months from the vintage's month to the cut-off's. */
  ageMonths: number;
  cards: number;
  issuedCents: Cents;
  /** Debits less refunds. */
  redeemedCents: Cents;
  voidedCents: Cents;
  expiredCents: Cents;
  /** What the vintage's cards owe at the cut-off: Σ over vintages = the roll-forward's closing at cut-off. */
  remainingCents: Cents;
  /** remaining − (issued − redeemed − voided − expired): 0 where every card's chain is whole. */
  unexplainedCents: Cents;
  /** Cards whose figures an amount off the cent leaves unknown: counted apart, as in the roll-forward. */
  unknownCards: number;
  /** Cumulative redeemed after k whole months since issue: [k−1] for k = 1 … the vintage's age (complete months only). */
  redeemedAfterMonths: Cents[];
  /** Of `remaining`, the escheat candidates' balances (unclaimed property). */
  escheatCents: Cents;
  escheatCards: number;
}

/** The cards and value of one band, per currency and program. */
export interface BandRow {
  currency: string;
  programId: string | null;
  band: string;
  /** Cards owing something in the band. */
  cards: number;
  cents: Cents;
}

/** A card presumed abandoned: owed to its jurisdiction, never breakage. */
export interface EscheatCandidate {
  giftCardId: string;
  currency: string;
  programId: string | null;
  jurisdiction: string;
  issuedAtMs: number;
  lastActivityMs: number;
  dormancyMonths: number;
  balanceCents: Cents;
}

/** Where a program's breakage rate comes from. */
export type RateSource = 'set' | 'mature vintages' | 'none';

/** A currency and program's breakage estimate. */
export interface ProgramBreakage {
  currency: string;
  programId: string | null;
  source: RateSource;
  /** The mature vintages' base (issued − voided − escheat) and what of it was never redeemed. */
  matureVintages: number;
  matureBaseCents: Cents;
  matureUnredeemedCents: Cents;
  /** The rate before the constraint (null: no basis, no breakage recognised). */
  rate: Rate | null;
  /** rate × (1 − haircut). */
  constrainedRate: Rate;
}

/** One vintage's breakage. */
export interface VintageBreakage {
  currency: string;
  programId: string | null;
  month: string;
  /** issued − voided − escheat candidates' balances: what breakage may come from. */
  baseCents: Cents;
  /** floor(base × constrained rate). */
  expectedCents: Cents;
  /** base − expected. */
  expectedRedemptionsCents: Cents;
  /** Debits less refunds to date (never below 0 here). */
  redeemedCents: Cents;
  /**
   * floor(expected × min(redeemed, expected redemptions) ÷ expected redemptions), never above
   * the vintage's remaining less its escheat candidates; 0 under IFRS 9.
   */
  recognisedCents: Cents;
}

/** The liability split per currency: what the books should hold. */
export interface LiabilitySplit {
  currency: string;
  /** Σ the cards' balances at the cut-off (the roll-forward's closing at cut-off). */
  balancesCents: Cents;
  breakageRecognisedCents: Cents;
  escheatPayableCents: Cents;
  /** balances − breakage recognised − escheat payable. */
  contractLiabilityCents: Cents;
  /** Breakage taken at expiry to date (the EXPIRE entries): already out of the balances. */
  expiredToDateCents: Cents;
  unknownCards: number;
}

/** A currency and program's vintages summed: the Liability by vintage sheet's total rows and the bands' totals. */
export interface VintageTotal {
  currency: string;
  programId: string | null;
  cards: number;
  /** Cards owing something at the cut-off: each band table's count of cards sums to this. */
  owingCards: number;
  issuedCents: Cents;
  redeemedCents: Cents;
  voidedCents: Cents;
  expiredCents: Cents;
  /** = the roll-forward's closing at cut-off; each band table sums to it. */
  remainingCents: Cents;
  unexplainedCents: Cents;
  escheatCents: Cents;
  unknownCards: number;
}

/** The escheat candidates of one jurisdiction and currency. */
export interface EscheatTotal {
  jurisdiction: string;
  currency: string;
  cards: number;
  cents: Cents;
}

/** Every liability figure at one cut-off. */
export interface LiabilityAt {
  cutOffMs: number;
  standard: LiabilityStandard;
  vintages: Vintage[];
  dormancy: BandRow[];
  expiry: BandRow[];
  programs: ProgramBreakage[];
  breakage: VintageBreakage[];
  escheat: EscheatCandidate[];
  split: LiabilitySplit[];
  /** Per currency and program, the vintages summed. */
  totals: VintageTotal[];
  /** Per jurisdiction and currency, the escheat candidates summed. */
  escheatTotals: EscheatTotal[];
}

interface VintageSums extends Vintage {
  redeemedByAge: Cents[];
  monthIndex: number;
}

const groupKey = (currency: string, programId: string | null): string => `${currency}\u0000${programId ?? ''}`;

/** Sums cards into vintages, bands and escheat candidates at one cut-off. */
export class LiabilityBook {
  readonly cutOffMs: number;
  readonly merchantId: string | null;
  readonly settings: LiabilitySettings;
  readonly #vintages = new Map<string, VintageSums>();
  readonly #bands = new Map<string, { dormancy: BandRow[]; expiry: BandRow[] }>();
  readonly #escheat: EscheatCandidate[] = [];
  readonly #cutOffMonth: number;
  /** The cut-off's place in its month (ms since the month began) and its month's length in days: a card's months to it from one Date. */
  readonly #cutOffInMonth: number;
  readonly #cutOffMonthDays: number;
  readonly #cutOffDay: number;
  readonly #cutOffSinceMidnight: number;

  constructor(cutOffMs: number, merchantId: string | null, settings: LiabilitySettings) {
    this.cutOffMs = cutOffMs;
    this.merchantId = merchantId;
    this.settings = settings;
    this.#cutOffMonth = monthIndexOf(cutOffMs);
    this.#cutOffInMonth = cutOffMs - monthStartOf(this.#cutOffMonth);
    this.#cutOffMonthDays = (monthStartOf(this.#cutOffMonth + 1) - monthStartOf(this.#cutOffMonth)) / DAY_MS;
    this.#cutOffDay = new Date(cutOffMs).getUTCDate();
    this.#cutOffSinceMidnight = cutOffMs - Math.floor(cutOffMs / DAY_MS) * DAY_MS;
  }

  /** Whole calendar months from the cut-off to `ms` (after it): wholeMonthsBetween's figure from one Date, as #monthsToCutOff. */
  #monthsFromCutOff(ms: number): number {
    const day = new Date(ms);
    const year = day.getUTCFullYear();
    const month = day.getUTCMonth();
    const months = year * 12 + month - this.#cutOffMonth;
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    const length = month === 1 ? (leap ? 29 : 28) : ([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month] as number);
    const landed = (Math.min(this.#cutOffDay, length) - 1) * DAY_MS + this.#cutOffSinceMidnight;
    const inMonth = (day.getUTCDate() - 1) * DAY_MS + (ms - Math.floor(ms / DAY_MS) * DAY_MS);
    return landed <= inMonth ? months : months - 1;
  }

  /**
   * Whole calendar months from `ms` (before the cut-off) to the cut-off: wholeMonthsBetween's
   * figure from one Date (moved into the cut-off's month, its day clamped to that month's length,
   * it is a whole month more when it lands at or before the cut-off).
   */
  #monthsToCutOff(ms: number): number {
    const day = new Date(ms);
    const months = this.#cutOffMonth - (day.getUTCFullYear() * 12 + day.getUTCMonth());
    const sinceMidnight = ms - Math.floor(ms / DAY_MS) * DAY_MS;
    const landed = (Math.min(day.getUTCDate(), this.#cutOffMonthDays) - 1) * DAY_MS + sinceMidnight;
    return landed <= this.#cutOffInMonth ? months : months - 1;
  }

  /** The jurisdiction of a card: its program's, else the merchant's state of incorporation. */
  jurisdictionOf(programId: string | null): string {
    return (
      (programId !== null ? this.settings.programJurisdictions.get(programId) : undefined) ??
      this.settings.stateOfIncorporation
    );
  }

  /**
   * Adds one card; `unknown` (the roll-forward's verdict at this cut-off, when the caller has it)
   * keeps the two counting the same cards apart.
   */
  add(card: LiabilityCard, entries: readonly EntryFacts[], unknown?: boolean): CardLiability | null {
    if (this.merchantId !== null && card.merchantId !== this.merchantId) return null;
    const at = cardLiabilityAt(card, entries, this.cutOffMs);
    if (at === null) return null;
    const vintage = this.#vintage(card);
    vintage.cards += 1;
    const flowsUnknown =
      card.initialCents === null || at.redeemedCents === null || at.voidedCents === null || at.expiredCents === null;
    if (unknown ?? (at.remainingCents === null || flowsUnknown)) {
      vintage.unknownCards += 1;
      return at;
    }
    const remaining = at.remainingCents as Cents;
    vintage.remainingCents = plusCents(vintage.remainingCents, remaining);
    if (flowsUnknown) vintage.unexplainedCents = plusCents(vintage.unexplainedCents, remaining);
    else {
      const issued = card.initialCents as Cents;
      vintage.issuedCents = plusCents(vintage.issuedCents, issued);
      vintage.redeemedCents = plusCents(vintage.redeemedCents, at.redeemedCents as Cents);
      vintage.voidedCents = plusCents(vintage.voidedCents, at.voidedCents as Cents);
      vintage.expiredCents = plusCents(vintage.expiredCents, at.expiredCents as Cents);
      const explained = issued - (at.redeemedCents as Cents) - (at.voidedCents as Cents) - (at.expiredCents as Cents);
      vintage.unexplainedCents = plusCents(vintage.unexplainedCents, minusCents(remaining, explained as Cents));
      at.redeemedByAge.forEach((c, k) => {
        while (vintage.redeemedByAge.length <= k) vintage.redeemedByAge.push(ZERO_CENTS);
        vintage.redeemedByAge[k] = plusCents(vintage.redeemedByAge[k] as Cents, c);
      });
    }
    if (remaining === 0) return at;
    const bands = this.#bandsOf(card.currency, card.programId);
    const idle = this.#monthsToCutOff(at.lastActivityMs);
    const dormancy = bands.dormancy[bandOf(DORMANCY_BANDS, idle)] as BandRow;
    dormancy.cards += 1;
    dormancy.cents = plusCents(dormancy.cents, remaining);
    const toExpiry = card.expiresAtMs <= this.cutOffMs ? -1 : this.#monthsFromCutOff(card.expiresAtMs);
    const expiry = bands.expiry[bandOf(EXPIRY_BANDS, toExpiry)] as BandRow;
    expiry.cards += 1;
    expiry.cents = plusCents(expiry.cents, remaining);
    if (remaining > 0) {
      const jurisdiction = this.jurisdictionOf(card.programId);
      const rule = this.settings.jurisdictions.get(jurisdiction) ?? {
        dormancyMonths: this.settings.defaultDormancyMonths,
        exempt: false,
      };
      // Past its dormancy period: its last activity moved by the period lands at or before the cut-off.
      if (!rule.exempt && idle >= rule.dormancyMonths) {
        vintage.escheatCards += 1;
        vintage.escheatCents = plusCents(vintage.escheatCents, remaining);
        this.#escheat.push({
          giftCardId: card.giftCardId,
          currency: card.currency,
          programId: card.programId,
          jurisdiction,
          issuedAtMs: card.issuedAtMs,
          lastActivityMs: at.lastActivityMs,
          dormancyMonths: rule.dormancyMonths,
          balanceCents: remaining,
        });
      }
    }
    return at;
  }

  #vintage(card: LiabilityCard): VintageSums {
    const monthIndex = monthIndexOf(card.issuedAtMs);
    const key = `${groupKey(card.currency, card.programId)}\u0000${monthIndex}`;
    let vintage = this.#vintages.get(key);
    if (!vintage) {
      vintage = {
        currency: card.currency,
        programId: card.programId,
        month: monthLabel(monthIndex),
        monthIndex,
        ageMonths: this.#cutOffMonth - monthIndex,
        cards: 0,
        issuedCents: ZERO_CENTS,
        redeemedCents: ZERO_CENTS,
        voidedCents: ZERO_CENTS,
        expiredCents: ZERO_CENTS,
        remainingCents: ZERO_CENTS,
        unexplainedCents: ZERO_CENTS,
        unknownCards: 0,
        redeemedAfterMonths: [],
        redeemedByAge: [],
        escheatCents: ZERO_CENTS,
        escheatCards: 0,
      };
      this.#vintages.set(key, vintage);
    }
    return vintage;
  }

  #bandsOf(currency: string, programId: string | null): { dormancy: BandRow[]; expiry: BandRow[] } {
    const key = groupKey(currency, programId);
    let bands = this.#bands.get(key);
    if (!bands) {
      const row = (band: MonthBand): BandRow => ({
        currency,
        programId,
        band: band.label,
        cards: 0,
        cents: ZERO_CENTS,
      });
      bands = { dormancy: DORMANCY_BANDS.map(row), expiry: EXPIRY_BANDS.map(row) };
      this.#bands.set(key, bands);
    }
    return bands;
  }

  /** Every figure at the cut-off, breakage estimated and recognised. */
  result(): LiabilityAt {
    const byGroup = (
      a: { currency: string; programId: string | null },
      b: { currency: string; programId: string | null },
    ) => a.currency.localeCompare(b.currency) || (a.programId ?? '').localeCompare(b.programId ?? '');
    const vintages = [...this.#vintages.values()]
      .sort((a, b) => byGroup(a, b) || a.monthIndex - b.monthIndex)
      .map(({ redeemedByAge, monthIndex: _m, ...vintage }): Vintage => {
        // Complete months only: the k-th point needs the vintage's month plus k months to have ended by the cut-off.
        const points: Cents[] = [];
        let sum = ZERO_CENTS;
        for (let k = 1; k <= vintage.ageMonths; k += 1) {
          sum = plusCents(sum, redeemedByAge[k - 1] ?? ZERO_CENTS);
          points.push(sum);
        }
        return { ...vintage, redeemedAfterMonths: points };
      });
    const bands = [...this.#bands.values()].sort((a, b) => byGroup(a.dormancy[0] as BandRow, b.dormancy[0] as BandRow));
    const { programs, breakage } = breakageOf(vintages, this.settings);
    const escheat = [...this.#escheat].sort((a, b) => a.giftCardId.localeCompare(b.giftCardId));
    return {
      cutOffMs: this.cutOffMs,
      standard: this.settings.standard,
      vintages,
      dormancy: bands.flatMap((b) => b.dormancy),
      expiry: bands.flatMap((b) => b.expiry),
      programs,
      breakage,
      escheat,
      split: splitOf(vintages, breakage),
      totals: totalsOf(
        vintages,
        bands.map((b) => b.dormancy),
      ),
      escheatTotals: escheatTotalsOf(escheat),
    };
  }
}

/** The breakage base of a vintage: issued − voided − its escheat candidates' balances. */
const baseOf = (v: Vintage): Cents => minusCents(minusCents(v.issuedCents, v.voidedCents), v.escheatCents);

/** Per program the rate, per vintage the expected and recognised breakage (the proportional method). */
export function breakageOf(
  vintages: readonly Vintage[],
  settings: LiabilitySettings,
): { programs: ProgramBreakage[]; breakage: VintageBreakage[] } {
  const programs = new Map<string, ProgramBreakage>();
  for (const v of vintages) {
    const key = groupKey(v.currency, v.programId);
    let program = programs.get(key);
    if (!program) {
      program = {
        currency: v.currency,
        programId: v.programId,
        source: 'none',
        matureVintages: 0,
        matureBaseCents: ZERO_CENTS,
        matureUnredeemedCents: ZERO_CENTS,
        rate: null,
        constrainedRate: ZERO_RATE,
      };
      programs.set(key, program);
    }
    if (v.ageMonths >= settings.maturityMonths && v.unknownCards === 0) {
      program.matureVintages += 1;
      const base = baseOf(v);
      program.matureBaseCents = plusCents(program.matureBaseCents, base);
      program.matureUnredeemedCents = plusCents(program.matureUnredeemedCents, minusCents(base, v.redeemedCents));
    }
  }
  for (const program of programs.values()) {
    const set = program.programId === null ? undefined : settings.programRates.get(program.programId);
    if (set) {
      program.source = 'set';
      program.rate = set;
    } else if (program.matureBaseCents > 0) {
      program.source = 'mature vintages';
      const unredeemed = Math.max(0, Math.min(program.matureUnredeemedCents, program.matureBaseCents));
      program.rate = rateOf(unredeemed, program.matureBaseCents);
    }
    program.constrainedRate =
      program.rate === null ? ZERO_RATE : timesRate(program.rate, complementOf(settings.haircut));
  }
  const breakage = vintages.map((v): VintageBreakage => {
    const program = programs.get(groupKey(v.currency, v.programId)) as ProgramBreakage;
    const base = baseOf(v);
    const positiveBase = base > 0 ? base : ZERO_CENTS;
    const expected = shareOf(positiveBase, program.constrainedRate);
    const expectedRedemptions = minusCents(positiveBase, expected);
    const redeemed = v.redeemedCents > 0 ? v.redeemedCents : ZERO_CENTS;
    const available = Math.max(0, v.remainingCents - v.escheatCents) as Cents;
    let recognised = ZERO_CENTS;
    if (settings.standard !== 'ifrs-9' && expected > 0 && v.unknownCards === 0) {
      const proportional =
        expectedRedemptions <= 0 || !rateBelow(rateOf(redeemed, expectedRedemptions), rateOf(1, 1))
          ? expected
          : proportionOf(expected, redeemed, expectedRedemptions);
      recognised = Math.min(proportional, available) as Cents;
    }
    return {
      currency: v.currency,
      programId: v.programId,
      month: v.month,
      baseCents: base,
      expectedCents: expected,
      expectedRedemptionsCents: expectedRedemptions,
      redeemedCents: redeemed,
      recognisedCents: recognised,
    };
  });
  return { programs: [...programs.values()], breakage };
}

/** The split per currency: balances − breakage recognised − escheat payable = the contract liability. */
function splitOf(vintages: readonly Vintage[], breakage: readonly VintageBreakage[]): LiabilitySplit[] {
  const split = new Map<string, LiabilitySplit>();
  const of = (currency: string): LiabilitySplit => {
    let row = split.get(currency);
    if (!row) {
      row = {
        currency,
        balancesCents: ZERO_CENTS,
        breakageRecognisedCents: ZERO_CENTS,
        escheatPayableCents: ZERO_CENTS,
        contractLiabilityCents: ZERO_CENTS,
        expiredToDateCents: ZERO_CENTS,
        unknownCards: 0,
      };
      split.set(currency, row);
    }
    return row;
  };
  for (const v of vintages) {
    const row = of(v.currency);
    row.balancesCents = plusCents(row.balancesCents, v.remainingCents);
    row.escheatPayableCents = plusCents(row.escheatPayableCents, v.escheatCents);
    row.expiredToDateCents = plusCents(row.expiredToDateCents, v.expiredCents);
    row.unknownCards += v.unknownCards;
  }
  for (const b of breakage) {
    const row = of(b.currency);
    row.breakageRecognisedCents = plusCents(row.breakageRecognisedCents, b.recognisedCents);
  }
  for (const row of split.values())
    row.contractLiabilityCents = minusCents(
      minusCents(row.balancesCents, row.breakageRecognisedCents),
      row.escheatPayableCents,
    );
  return [...split.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

/** Per currency and program, its vintages summed, and the cards owing something (its dormancy bands' cards). */
function totalsOf(vintages: readonly Vintage[], dormancy: readonly (readonly BandRow[])[]): VintageTotal[] {
  const totals = new Map<string, VintageTotal>();
  for (const v of vintages) {
    const key = groupKey(v.currency, v.programId);
    const t = totals.get(key) ?? {
      currency: v.currency,
      programId: v.programId,
      cards: 0,
      owingCards: 0,
      issuedCents: ZERO_CENTS,
      redeemedCents: ZERO_CENTS,
      voidedCents: ZERO_CENTS,
      expiredCents: ZERO_CENTS,
      remainingCents: ZERO_CENTS,
      unexplainedCents: ZERO_CENTS,
      escheatCents: ZERO_CENTS,
      unknownCards: 0,
    };
    t.cards += v.cards;
    t.unknownCards += v.unknownCards;
    t.issuedCents = plusCents(t.issuedCents, v.issuedCents);
    t.redeemedCents = plusCents(t.redeemedCents, v.redeemedCents);
    t.voidedCents = plusCents(t.voidedCents, v.voidedCents);
    t.expiredCents = plusCents(t.expiredCents, v.expiredCents);
    t.remainingCents = plusCents(t.remainingCents, v.remainingCents);
    t.unexplainedCents = plusCents(t.unexplainedCents, v.unexplainedCents);
    t.escheatCents = plusCents(t.escheatCents, v.escheatCents);
    totals.set(key, t);
  }
  for (const bands of dormancy) {
    const first = bands[0];
    const t = first ? totals.get(groupKey(first.currency, first.programId)) : undefined;
    if (t) t.owingCards = bands.reduce((n, b) => n + b.cards, 0);
  }
  return [...totals.values()];
}

/** Per jurisdiction and currency, the escheat candidates summed, by jurisdiction then currency. */
function escheatTotalsOf(escheat: readonly EscheatCandidate[]): EscheatTotal[] {
  const totals = new Map<string, EscheatTotal>();
  for (const c of escheat) {
    const key = `${c.jurisdiction}\u0000${c.currency}`;
    const t = totals.get(key) ?? { jurisdiction: c.jurisdiction, currency: c.currency, cards: 0, cents: ZERO_CENTS };
    t.cards += 1;
    t.cents = plusCents(t.cents, c.balanceCents);
    totals.set(key, t);
  }
  return [...totals.values()].sort(
    (a, b) => a.jurisdiction.localeCompare(b.jurisdiction) || a.currency.localeCompare(b.currency),
  );
}

/** The period's breakage entries per currency: at expiry (the EXPIRE entries) and the change in proportional breakage recognised. */
export interface BreakageEntry {
  currency: string;
  /** Taken by EXPIRE entries in the period (the roll-forward's expired): out of the cards' balances already. */
  atExpiryCents: Cents;
  /** Recognised to date at the closing cut-off less at the opening. */
  proportionalCents: Cents;
  recognisedOpeningCents: Cents;
  recognisedClosingCents: Cents;
}

/**
 * The journal entries a period's breakage implies, per currency: the proportional breakage
 * recognised to date at its closing cut-off less at its opening one, and what the period's
 * EXPIRE entries took (`expired`: the period roll-forward's rows).
 */
export function breakageEntriesOf(
  closing: LiabilityAt,
  opening: LiabilityAt,
  expired: readonly { currency: string; expiredCents: Cents }[],
): BreakageEntry[] {
  const currencies = new Set([...closing.split.map((s) => s.currency), ...expired.map((r) => r.currency)]);
  const recognised = (at: LiabilityAt, currency: string): Cents =>
    at.split.find((s) => s.currency === currency)?.breakageRecognisedCents ?? ZERO_CENTS;
  return [...currencies].sort().map((currency) => {
    const atOpening = recognised(opening, currency);
    const atClosing = recognised(closing, currency);
    let atExpiry = ZERO_CENTS;
    for (const r of expired) if (r.currency === currency) atExpiry = plusCents(atExpiry, r.expiredCents);
    return {
      currency,
      atExpiryCents: atExpiry,
      proportionalCents: minusCents(atClosing, atOpening),
      recognisedOpeningCents: atOpening,
      recognisedClosingCents: atClosing,
    };
  });
}
