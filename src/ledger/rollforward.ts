/**
 * The gift card liability roll-forwards, from the ledger-state core, one way with two
 * groupings. The nightly one per currency: the opening is the previous run's closing; + issued
 * − debited + refunded − voided − expired between the previous run's cut-off and this run's =
 * closing, set against what the cards hold at this run's cut-off; a re-base (the ledger before
 * the previous cut-off is not what the previous run saw) is a line of its own with its amount
 * and reason. A period's per currency and program (the close, the month to date): tied out
 * against every card's balance at the closing cut-off and, for a period that ends now, the
 * service's. Cents only.
 */
import type { LeafKeeper } from './leaves.js';
import type { WalkedCard } from './walk.js';
import { type Cents, minusCents, plusCents, ZERO_CENTS } from '../money.js';
import {
  BEGINNING,
  type CardBetween,
  cardBetween,
  closingOf,
  emptyGroup,
  LiabilityTally,
  type LiabilityFlows,
  type LiabilityGroup,
} from './state.js';

import { CardSumsTally } from './card-sums.js';
import { PopulationTally } from './population.js';
import type { CardLedger } from './types.js';

export type { LiabilityFlows } from './state.js';

export interface RollForward extends LiabilityFlows {
  currency: string;
  /** What the opening moved by, and why (null: no re-base). */
  rebaseCents: Cents;
  rebaseReason: string | null;
  /** opening + re-base + issued − debited + refunded − voided − expired. */
  closingCents: Cents;
  /** The service's figure at the cut-off: Σ the open cards' remainingBalance, cards in flight at their ledger balance. */
  cardsRemainingCents: Cents;
  /** cardsRemaining − closing: zero when the roll-forward closes. */
  differenceCents: Cents;
  /** Σ what the cards owe at the cut-off by their ledgers. */
  ledgerClosingCents: Cents;
  /** What cards in flight hold beyond their ledgers, and how many: shown apart, never a break. */
  inFlightCents: Cents;
  inFlightCards: number;
  unknownCards: number;
  /** The opening cut-off (null: from the beginning) and the closing cut-off, epoch ms. */
  fromMs: number | null;
  cutOffMs: number;
}

/** What the previous complete run closed at, per currency, and where. */
export interface PreviousClosing {
  /** Its closing cut-off; null when it was recorded before cut-offs were kept. */
  cutOffMs: number | null;
  /** Its "data as of", used as the cut-off of a run recorded before cut-offs were kept. */
  asOfMs: number | null;
  byCurrency: ReadonlyMap<string, { closingCents: Cents; ledgerClosingCents: Cents | null }>;
}

/** Where a night's roll-forward opens: the previous run's cut-off, or the beginning on a first run. */
export function openingCutOff(previous: PreviousClosing | null): number {
  if (!previous) return BEGINNING;
  return previous.cutOffMs ?? previous.asOfMs ?? BEGINNING;
}

/** A tally for the night: per currency, our merchant's cards, from the previous run's cut-off to `cutOffMs`. */
export function nightlyTally(
  previous: PreviousClosing | null,
  cutOffMs: number,
  merchantId: string | null,
): LiabilityTally {
  return new LiabilityTally({ fromMs: openingCutOff(previous), toMs: cutOffMs }, merchantId, false);
}

/**
 * The night's roll-forward per currency. The opening is the previous closing; where the ledger
 * at the previous cut-off, as the mirror holds it now, differs from what the previous run saw
 * there (entries mirrored late, rewritten or vanished, a card now foreign or off the cent, or
 * a previous run from an earlier version), the difference is a re-base line with its reason.
 */
export function nightlyRollForward(tally: LiabilityTally, previous: PreviousClosing | null): RollForward[] {
  const groups = new Map(tally.groups().map((g) => [g.currency, g]));
  const currencies = [...new Set([...groups.keys(), ...(previous?.byCurrency.keys() ?? [])])].sort();
  const fromMs = tally.between.fromMs === BEGINNING ? null : tally.between.fromMs;
  return currencies.map((currency): RollForward => {
    const group: LiabilityGroup = groups.get(currency) ?? emptyGroup(currency, null);
    const before = previous?.byCurrency.get(currency);
    const openingCents = before?.closingCents ?? ZERO_CENTS;
    let rebaseCents = ZERO_CENTS;
    let rebaseReason: string | null = null;
    if (previous) {
      const seenBefore = before ? (before.ledgerClosingCents ?? before.closingCents) : ZERO_CENTS;
      rebaseCents = minusCents(group.openingCents, seenBefore);
      if (rebaseCents !== 0) {
        rebaseReason =
          previous.cutOffMs === null || (before !== undefined && before.ledgerClosingCents === null)
            ? 'the previous run was recorded by an earlier version: the opening is re-based to what the cards owed at its cut-off by their ledgers'
            : 'the ledger before the previous cut-off is not what the previous run saw (entries mirrored late, rewritten or vanished, a card no longer ours, or an amount now off the cent): see GC_LEDGER_REWRITTEN and the sync';
      }
    }
    const flows: LiabilityFlows = {
      openingCents: plusCents(openingCents, rebaseCents),
      issuedCents: group.issuedCents,
      debitedCents: group.debitedCents,
      refundedCents: group.refundedCents,
      voidedCents: group.voidedCents,
      expiredCents: group.expiredCents,
    };
    const closingCents = closingOf(flows);
    return {
      currency,
      openingCents,
      rebaseCents,
      rebaseReason,
      issuedCents: group.issuedCents,
      debitedCents: group.debitedCents,
      refundedCents: group.refundedCents,
      voidedCents: group.voidedCents,
      expiredCents: group.expiredCents,
      closingCents,
      cardsRemainingCents: group.serviceCents,
      differenceCents: minusCents(group.serviceCents, closingCents),
      ledgerClosingCents: group.ledgerClosingCents,
      inFlightCents: group.inFlightCents,
      inFlightCards: group.inFlightCards,
      unknownCards: group.unknownCards,
      fromMs,
      cutOffMs: tally.between.toMs,
    };
  });
}

/** The roll-forward of one currency and program. */
export interface PeriodRollForward extends LiabilityFlows {
  currency: string;
  programId: string | null;
  /** opening + issued − debited + refunded − voided − expired. */
  closingFromFlowsCents: Cents;
  /** Σ every card's balance at the closing cut-off. */
  closingFromCardsCents: Cents;
  /** closingFromCards − closingFromFlows: zero when the roll-forward ties out. */
  differenceCents: Cents;
  /** For a period that ends now: Σ the open cards' remainingBalance, and its difference to closingFromCards. */
  serviceRemainingCents: Cents | null;
  serviceDifferenceCents: Cents | null;
  /** Cards whose snapshot and ledger are not of one moment (a period that ends now): what they hold beyond their ledgers, shown apart, never a break. */
  inFlightCents: Cents;
  inFlightCards: number;
  cards: number;
  /** Cards whose figures an amount off the cent leaves unknown: the tie-out cannot close while any remain. */
  unknownCards: number;
  entriesInPeriod: number;
  closes: boolean;
}

/**
 * A period's roll-forward per currency and program: opening + flows = closing from flows, tied
 * out against every card's balance at the closing cut-off and, for a period that ends now,
 * against the service's figure (cards in flight at their ledger balance, what they hold beyond
 * it shown apart).
 */
export function periodRollForwards(tally: LiabilityTally, endsNow: boolean): PeriodRollForward[] {
  return tally.groups().map((group): PeriodRollForward => {
    const closingFromFlowsCents = closingOf(group);
    const differenceCents = minusCents(group.ledgerClosingCents, closingFromFlowsCents);
    const serviceRemainingCents = endsNow ? group.serviceCents : null;
    const serviceDifferenceCents =
      serviceRemainingCents === null ? null : minusCents(serviceRemainingCents, group.ledgerClosingCents);
    return {
      currency: group.currency,
      programId: group.programId,
      openingCents: group.openingCents,
      issuedCents: group.issuedCents,
      debitedCents: group.debitedCents,
      refundedCents: group.refundedCents,
      voidedCents: group.voidedCents,
      expiredCents: group.expiredCents,
      closingFromFlowsCents,
      closingFromCardsCents: group.ledgerClosingCents,
      differenceCents,
      serviceRemainingCents,
      serviceDifferenceCents,
      inFlightCents: endsNow ? group.inFlightCents : ZERO_CENTS,
      inFlightCards: endsNow ? group.inFlightCards : 0,
      cards: group.cards,
      unknownCards: group.unknownCards,
      entriesInPeriod: group.entries,
      closes: group.unknownCards === 0 && differenceCents === 0 && (serviceDifferenceCents ?? 0) === 0,
    };
  });
}

/** The first instant of the UTC month holding `ms`. */
export function monthStartUtc(ms: number): number {
  const day = new Date(ms);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1);
}

/** The month so far as a night computed it: its period roll-forward from the first of the month (UTC) to the night's cut-off. */
export interface MonthToDate {
  /** The first of the month, 00:00 UTC (epoch ms). */
  fromMs: number;
  /** The night's cut-off (epoch ms). */
  toMs: number;
  /** Per currency and program, tied out against the service at the cut-off (cards in flight apart). Cents. */
  rollForwards: PeriodRollForward[];
  /** Ledger entries in the month whose card is not in the mirror. */
  unattributedEntries: number;
  /** The first card's issue in the mirror, null for a mirror without cards. */
  dataFromMs: number | null;
  closes: boolean;
}

/**
 * Every liability figure a night states, from its one walk: the night's roll-forward (per
 * currency, from the previous run's cut-off) and the month to date (per currency and program,
 * from the first of the month). The workbook writes these; it never walks the ledger again.
 */
export class RunTallies {
  readonly night: LiabilityTally;
  readonly month: LiabilityTally;
  /** The population the walk read: counts, control totals, its Merkle root. */
  readonly population = new PopulationTally();
  /** Each card's sums, kept for the run's report (null: not kept, as a re-performance or dry run). */
  readonly cards: CardSumsTally | null;
  #unattributed = 0;
  #dataFromMs: number | null = null;

  /** The leaves kept from the night before, when the walk reuses them (leaves.ts); null: every card hashed. */
  readonly leaves: LeafKeeper | null;

  constructor(night: LiabilityTally, keepCardSums = false, leaves: LeafKeeper | null = null) {
    this.night = night;
    this.leaves = leaves;
    this.cards = keepCardSums ? new CardSumsTally() : null;
    const toMs = night.between.toMs;
    this.month = new LiabilityTally({ fromMs: monthStartUtc(toMs), toMs }, night.merchantId, true);
  }

  /** Adds one walked card to both; returns the night's figures (null for another merchant's card). */
  add(walked: CardLedger, inFlight: boolean): CardBetween | null {
    if (this.#dataFromMs === null || walked.card.issuedAtMs < this.#dataFromMs)
      this.#dataFromMs = walked.card.issuedAtMs;
    this.population.add(walked, this.leaves?.leafOf(walked as WalkedCard));
    this.cards?.add(walked);
    this.month.add(walked, inFlight);
    return this.night.add(walked, inFlight);
  }

  /** An entry whose card is not mirrored: it belongs to no currency or program. */
  orphan(createdAtMs: number): void {
    this.population.orphan();
    const { fromMs, toMs } = this.month.between;
    if (createdAtMs >= fromMs && createdAtMs < toMs) this.#unattributed += 1;
  }

  /** A card added as not in flight that the confirmation pass found moved on: in flight in both. */
  moveInFlight(walked: CardLedger): void {
    for (const tally of [this.night, this.month])
      tally.moveInFlight(walked, cardBetween(walked.card, walked.entries, tally.between, false));
  }

  /** The month to date, tied out against the service at the night's cut-off. */
  monthToDate(): MonthToDate {
    const rollForwards = periodRollForwards(this.month, true);
    return {
      fromMs: this.month.between.fromMs,
      toMs: this.month.between.toMs,
      rollForwards,
      unattributedEntries: this.#unattributed,
      dataFromMs: this.#dataFromMs,
      closes: rollForwards.every((group) => group.closes) && this.#unattributed === 0,
    };
  }
}

/** How a night's roll-forward difference and the month so far's relate, in one currency (cents). */
export interface NightAgainstMonth {
  currency: string;
  /** The night's: the service's figure − the closing from flows since the previous run. */
  nightCents: Cents;
  /** The month so far's, summed over its programs: every card's balance at the cut-off − the closing from flows. */
  monthCardsCents: Cents;
  /** The month so far's: the service's figure − every card's balance at the cut-off. */
  monthServiceCents: Cents;
  /** The month so far's in all: cards − flows + service − cards. */
  monthCents: Cents;
  /** What is left: night − (month cards + month service), the two openings' disagreement (the previous run's closing against the first of the month's). */
  openingsCents: Cents;
}

/**
 * Per currency where either differs, the night's roll-forward difference against the month to
 * date's two (they share the closing cut-off): the night's = the month's cards − flows + its
 * service − cards + what lies between the two openings.
 */
export function nightAgainstMonth(
  night: readonly Pick<RollForward, 'currency' | 'differenceCents'>[],
  month: readonly Pick<PeriodRollForward, 'currency' | 'differenceCents' | 'serviceDifferenceCents'>[],
): NightAgainstMonth[] {
  const currencies = [...new Set([...night.map((r) => r.currency), ...month.map((r) => r.currency)])].sort();
  return currencies.flatMap((currency) => {
    const nightCents = night.find((r) => r.currency === currency)?.differenceCents ?? ZERO_CENTS;
    let monthCardsCents = ZERO_CENTS;
    let monthServiceCents = ZERO_CENTS;
    for (const r of month)
      if (r.currency === currency) {
        monthCardsCents = plusCents(monthCardsCents, r.differenceCents);
        monthServiceCents = plusCents(monthServiceCents, r.serviceDifferenceCents ?? ZERO_CENTS);
      }
    if (nightCents === 0 && monthCardsCents === 0 && monthServiceCents === 0) return [];
    return [
      {
        currency,
        nightCents,
        monthCardsCents,
        monthServiceCents,
        monthCents: plusCents(monthCardsCents, monthServiceCents),
        openingsCents: minusCents(nightCents, plusCents(monthCardsCents, monthServiceCents)),
      },
    ];
  });
}

/** One bar of a roll-forward's waterfall: a flow from the running total before it to the one after it, or a total from zero. Cents. */
export interface WaterfallStep {
  label: 'opening' | 'issued' | 'debited' | 'refunded' | 'voided' | 'expired' | 'closing' | 'cards hold';
  /** The flow (up for issued and refunded, down for the others) or the total, as a positive figure where the ledger's is. */
  amountCents: Cents;
  direction: 'up' | 'down' | 'total';
  fromCents: Cents;
  toCents: Cents;
}

/**
 * A period's roll-forward as a waterfall draws it: the opening, each flow moving the running
 * total (issued and refunds up; debits, voids and expiries down), the closing from flows, and
 * beside it what the cards hold at the cut-off (the two bars differ by the difference).
 */
export function waterfallOf(
  r: LiabilityFlows & Pick<PeriodRollForward, 'closingFromFlowsCents' | 'closingFromCardsCents'>,
): WaterfallStep[] {
  const total = (label: WaterfallStep['label'], amountCents: Cents): WaterfallStep => ({
    label,
    amountCents,
    direction: 'total',
    fromCents: ZERO_CENTS,
    toCents: amountCents,
  });
  const steps: WaterfallStep[] = [total('opening', r.openingCents)];
  let running = r.openingCents;
  const flows: [WaterfallStep['label'], Cents, 1 | -1][] = [
    ['issued', r.issuedCents, 1],
    ['debited', r.debitedCents, -1],
    ['refunded', r.refundedCents, 1],
    ['voided', r.voidedCents, -1],
    ['expired', r.expiredCents, -1],
  ];
  for (const [label, amount, sign] of flows) {
    const next = sign === 1 ? plusCents(running, amount) : minusCents(running, amount);
    steps.push({
      label,
      amountCents: amount,
      direction: sign === 1 ? 'up' : 'down',
      fromCents: running,
      toCents: next,
    });
    running = next;
  }
  steps.push(total('closing', r.closingFromFlowsCents), total('cards hold', r.closingFromCardsCents));
  return steps;
}
