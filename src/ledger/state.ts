/**
 * The ledger-state core: every liability figure the product states comes from here, and only
 * from here (pure: no I/O). It is fed by the one ordered walk of cards and their entries
 * ({@link walkCardLedgers}) and answers three questions, the same way for the nightly
 * roll-forward, the month to date, the period close and the cards at a cut-off:
 *
 * - a card's state at a cut-off: issued yet, closed yet, and what it owes;
 * - the flows of a card between two cut-offs: issued, debited, refunded, voided, expired;
 * - what is in flight: a card whose service figures and mirrored ledger are not of one moment.
 *
 * The definitions (docs/checking.md, "The liability"):
 * - The liability counts the merchant's own cards only (a foreign card is a finding, not ours).
 * - A card owes from its issue (issuedAt before the cut-off) until an entry before the cut-off
 *   closes it: VOID or EXPIRE, which take its balanceBefore out as voided or expired. FROZEN and
 *   other statuses close nothing: a frozen card still owes.
 * - What a card owes at a cut-off is the balanceAfter of its last entry before the cut-off, or
 *   its initialBalance when it has none. An entry at the cut-off's instant belongs after it.
 * - A card's service figure at a cut-off is its remainingBalance (nothing when the ledger closed
 *   it), less what its mirrored entries after the cut-off moved. A card in flight counts at its
 *   ledger balance; what its snapshot says beyond that is shown apart, as in flight.
 * Cents only; a card an amount off the cent leaves unknown is counted apart, never guessed.
 */
import { type Cents, minusCents, plusCents, ZERO_CENTS } from '../money.js';

/** What a roll-forward moves, in cents: opening + issued − debited + refunded − voided − expired. */
export interface LiabilityFlows {
  openingCents: Cents;
  issuedCents: Cents;
  debitedCents: Cents;
  refundedCents: Cents;
  voidedCents: Cents;
  expiredCents: Cents;
}

/** A card as the core needs it. */
export interface CardFacts {
  giftCardId: string;
  merchantId: string;
  currency: string;
  programId: string | null;
  issuedAtMs: number;
  initialCents: Cents | null;
  remainingCents: Cents | null;
}

/** An entry as the core needs it, oldest first. */
export interface EntryFacts {
  type: string;
  amountCents: Cents | null;
  beforeCents: Cents | null;
  afterCents: Cents | null;
  createdAtMs: number;
}

/** A card with its entries, oldest first, as the walk yields it. */
export interface CardWithEntries {
  card: CardFacts;
  entries: readonly EntryFacts[];
}

/** A card's standing at a cut-off, per its mirrored ledger. */
export interface CardState {
  issued: boolean;
  closed: boolean;
  /** What it owes: 0 before its issue or once closed; null when an amount off the cent leaves it unknown. */
  owedCents: Cents | null;
}

/** The first instant of time: a cut-off before every record. */
export const BEGINNING = Number.NEGATIVE_INFINITY;

/** A card's standing at `cutOffMs` (entries before it count; one at it does not). */
export function cardAt(card: CardFacts, entries: readonly EntryFacts[], cutOffMs: number): CardState {
  if (!(card.issuedAtMs < cutOffMs)) return { issued: false, closed: false, owedCents: ZERO_CENTS };
  let balance = card.initialCents;
  let closed = false;
  for (const entry of entries) {
    if (entry.createdAtMs >= cutOffMs) break;
    balance = entry.afterCents;
    if (closes(entry)) closed = true;
  }
  return { issued: true, closed, owedCents: closed ? ZERO_CENTS : balance };
}

/**
 * A card's standing at `fromMs`, at `toMs` (fromMs ≤ toMs) and after its last entry, in one pass
 * over its entries: what {@link cardAt} gives at each, for the walk's hot path.
 */
export function cardAtEach(
  card: CardFacts,
  entries: readonly EntryFacts[],
  fromMs: number,
  toMs: number,
): [CardState, CardState, CardState] {
  const state = (cutOffMs: number, balance: Cents | null, closed: boolean): CardState =>
    card.issuedAtMs < cutOffMs
      ? { issued: true, closed, owedCents: closed ? ZERO_CENTS : balance }
      : { issued: false, closed: false, owedCents: ZERO_CENTS };
  let balance = card.initialCents;
  let closed = false;
  let atFrom: CardState | null = null;
  let atTo: CardState | null = null;
  for (const entry of entries) {
    if (atFrom === null && entry.createdAtMs >= fromMs) atFrom = state(fromMs, balance, closed);
    if (atTo === null && entry.createdAtMs >= toMs) atTo = state(toMs, balance, closed);
    balance = entry.afterCents;
    if (closes(entry)) closed = true;
  }
  const now = state(Number.POSITIVE_INFINITY, balance, closed);
  return [atFrom ?? state(fromMs, balance, closed), atTo ?? state(toMs, balance, closed), now];
}

/** A card's flows in [fromMs, toMs): null amounts make the card unknown. */
export interface CardFlows {
  issuedCents: Cents;
  debitedCents: Cents;
  refundedCents: Cents;
  voidedCents: Cents;
  expiredCents: Cents;
  entries: number;
  unknown: boolean;
}

/** The flows of one card between two cut-offs. */
export function flowsBetween(card: CardFacts, entries: readonly EntryFacts[], fromMs: number, toMs: number): CardFlows {
  const issuedIn = card.issuedAtMs >= fromMs && card.issuedAtMs < toMs;
  const flows: CardFlows = {
    issuedCents: ZERO_CENTS,
    debitedCents: ZERO_CENTS,
    refundedCents: ZERO_CENTS,
    voidedCents: ZERO_CENTS,
    expiredCents: ZERO_CENTS,
    entries: 0,
    unknown: false,
  };
  if (issuedIn) {
    if (card.initialCents === null) flows.unknown = true;
    else flows.issuedCents = card.initialCents;
  }
  for (const entry of entries) {
    if (entry.createdAtMs < fromMs) continue;
    if (entry.createdAtMs >= toMs) break;
    flows.entries += 1;
    const move = entryMove(entry);
    if (move === null) continue;
    if (move.cents === null) flows.unknown = true;
    else flows[move.flow] = plusCents(flows[move.flow], move.cents);
  }
  return flows;
}

/** What an entry moves in the liability: the flow it counts in and its cents (null when off the cent); null for an entry that moves nothing. */
export interface EntryMove {
  flow: 'debitedCents' | 'refundedCents' | 'voidedCents' | 'expiredCents';
  /** DEBIT and REFUND move their amount; VOID and EXPIRE take the card's balanceBefore out. */
  cents: Cents | null;
}

/** The one definition of what an entry moves: a DEBIT its amount out, a REFUND its amount in, a VOID or EXPIRE its balanceBefore out. */
export function entryMove(entry: Pick<EntryFacts, 'type' | 'amountCents' | 'beforeCents'>): EntryMove | null {
  switch (entry.type) {
    case 'DEBIT':
      return { flow: 'debitedCents', cents: entry.amountCents };
    case 'REFUND':
      return { flow: 'refundedCents', cents: entry.amountCents };
    case 'VOID':
      return { flow: 'voidedCents', cents: entry.beforeCents };
    case 'EXPIRE':
      return { flow: 'expiredCents', cents: entry.beforeCents };
    default:
      return null;
  }
}

/** An entry that closes its card: VOID or EXPIRE (they take its balanceBefore out; their amount moves nothing). */
export const closes = (entry: Pick<EntryFacts, 'type'>): boolean => entry.type === 'VOID' || entry.type === 'EXPIRE';

/** An entry that moves money by its amount: DEBIT or REFUND. */
export const movesMoney = (entry: Pick<EntryFacts, 'type'>): boolean =>
  entry.type === 'DEBIT' || entry.type === 'REFUND';

/** The cents a DEBIT or REFUND should move the balance by: −amount, +amount; 0 otherwise; null when off the cent. */
export function signedAmount(entry: Pick<EntryFacts, 'type' | 'amountCents'>): Cents | null {
  if (entry.type === 'DEBIT') return entry.amountCents === null ? null : minusCents(ZERO_CENTS, entry.amountCents);
  if (entry.type === 'REFUND') return entry.amountCents;
  return ZERO_CENTS;
}

/** One card between two cut-offs, as every surface shows it. */
export interface CardBetween {
  card: CardFacts;
  opening: CardState;
  closing: CardState;
  flows: CardFlows;
  /** The service's figure at the closing cut-off (see the module's definitions); null when unknown. */
  serviceCents: Cents | null;
  /** For a card in flight: what its snapshot holds beyond its ledger (remaining − ledger now). */
  inFlightCents: Cents;
  inFlight: boolean;
  /** Its figures are unknown (an amount off the cent): counted apart. */
  unknown: boolean;
  /** It owed something at either cut-off or moved between them. */
  relevant: boolean;
}

/** What the core needs to know about the cut-offs and the run. */
export interface Between {
  /** The opening cut-off, or BEGINNING. */
  fromMs: number;
  /** The closing cut-off: one instant for every figure of a run. */
  toMs: number;
}

/** A card between two cut-offs, its service figure brought to the closing cut-off. */
export function cardBetween(
  card: CardFacts,
  entries: readonly EntryFacts[],
  between: Between,
  inFlight: boolean,
): CardBetween {
  const [opening, closing, now] = cardAtEach(card, entries, between.fromMs, between.toMs);
  const flows = flowsBetween(card, entries, between.fromMs, between.toMs);
  const unknown = flows.unknown || opening.owedCents === null || closing.owedCents === null || now.owedCents === null;
  // The service owes what the card holds unless its ledger closed it.
  const service = now.closed ? ZERO_CENTS : card.remainingCents;
  let serviceCents: Cents | null = null;
  let inFlightCents = ZERO_CENTS;
  if (!unknown && service !== null) {
    const atCut = closing.owedCents as Cents;
    const ledgerNow = now.owedCents as Cents;
    if (inFlight) {
      serviceCents = atCut;
      inFlightCents = minusCents(service, ledgerNow);
    } else {
      serviceCents = minusCents(service, minusCents(ledgerNow, atCut));
    }
  }
  // A card issued after the closing cut-off is not ours yet, whatever its snapshot says.
  if (!closing.issued) {
    serviceCents = ZERO_CENTS;
    inFlightCents = ZERO_CENTS;
  }
  const unknownFigures = unknown || (serviceCents === null && closing.issued);
  // A card that owes nothing by its ledger still counts when the service says it holds something.
  const relevant =
    unknownFigures ||
    opening.owedCents !== 0 ||
    closing.owedCents !== 0 ||
    flows.entries > 0 ||
    flows.issuedCents !== 0 ||
    serviceCents !== 0 ||
    (inFlight && closing.issued);
  return { card, opening, closing, flows, serviceCents, inFlightCents, inFlight, unknown: unknownFigures, relevant };
}

/** The liability of one currency and program between two cut-offs: the sums of its cards. */
export interface LiabilityGroup extends LiabilityFlows {
  currency: string;
  programId: string | null;
  /** Σ what the cards owe at the closing cut-off, by their ledgers. */
  ledgerClosingCents: Cents;
  /** Σ the service's figures at the closing cut-off (cards in flight at their ledger balance). */
  serviceCents: Cents;
  /** Σ what cards in flight hold beyond their ledgers: shown apart, never a break by itself. */
  inFlightCents: Cents;
  inFlightCards: number;
  cards: number;
  /** Cards whose figures an amount off the cent leaves unknown: counted apart. */
  unknownCards: number;
  entries: number;
}

/** Sums cards into groups per currency and program (or per currency alone). */
export class LiabilityTally {
  readonly #groups = new Map<string, LiabilityGroup>();
  readonly #byProgram: boolean;
  /** Our merchant: another merchant's cards never count (null: every card). */
  readonly merchantId: string | null;
  readonly between: Between;

  /**
   * @param merchantId our merchant: another merchant's cards never count (null: every card).
   * @param byProgram group per currency and program (the close), or per currency (the night).
   */
  constructor(between: Between, merchantId: string | null, byProgram: boolean) {
    this.between = between;
    this.merchantId = merchantId;
    this.#byProgram = byProgram;
  }

  /** Adds one walked card; returns its figures (null for another merchant's card). */
  add(walked: CardWithEntries, inFlight: boolean): CardBetween | null {
    const card = walked.card;
    if (this.merchantId !== null && card.merchantId !== this.merchantId) return null;
    const figures = cardBetween(card, walked.entries, this.between, inFlight);
    if (!figures.relevant) return figures;
    const group = this.#group(card.currency, this.#byProgram ? card.programId : null);
    group.cards += 1;
    group.entries += figures.flows.entries;
    if (figures.unknown) {
      group.unknownCards += 1;
      return figures;
    }
    group.openingCents = plusCents(group.openingCents, figures.opening.owedCents as Cents);
    group.issuedCents = plusCents(group.issuedCents, figures.flows.issuedCents);
    group.debitedCents = plusCents(group.debitedCents, figures.flows.debitedCents);
    group.refundedCents = plusCents(group.refundedCents, figures.flows.refundedCents);
    group.voidedCents = plusCents(group.voidedCents, figures.flows.voidedCents);
    group.expiredCents = plusCents(group.expiredCents, figures.flows.expiredCents);
    group.ledgerClosingCents = plusCents(group.ledgerClosingCents, figures.closing.owedCents as Cents);
    group.serviceCents = plusCents(group.serviceCents, figures.serviceCents as Cents);
    group.inFlightCents = plusCents(group.inFlightCents, figures.inFlightCents);
    if (figures.inFlight && figures.closing.issued) group.inFlightCards += 1;
    return figures;
  }

  /**
   * Counts a card already added as in flight after all (the confirmation pass found it moved
   * on): it moves to its ledger balance, and what its snapshot holds beyond that to in flight.
   */
  moveInFlight(walked: CardWithEntries, counted: CardBetween): void {
    if (counted.inFlight || counted.unknown || !counted.relevant) return;
    const group = this.#group(counted.card.currency, this.#byProgram ? counted.card.programId : null);
    const now = cardBetween(walked.card, walked.entries, this.between, true);
    if (now.unknown) return;
    group.serviceCents = plusCents(
      group.serviceCents,
      minusCents(now.serviceCents as Cents, counted.serviceCents as Cents),
    );
    group.inFlightCents = plusCents(group.inFlightCents, now.inFlightCents);
    if (now.closing.issued) group.inFlightCards += 1;
  }

  #group(currency: string, programId: string | null): LiabilityGroup {
    const key = `${currency}\u0000${programId ?? ''}`;
    let group = this.#groups.get(key);
    if (!group) {
      group = emptyGroup(currency, programId);
      this.#groups.set(key, group);
    }
    return group;
  }

  /** The groups, by currency then program. */
  groups(): LiabilityGroup[] {
    return [...this.#groups.values()].sort(
      (a, b) => a.currency.localeCompare(b.currency) || (a.programId ?? '').localeCompare(b.programId ?? ''),
    );
  }
}

/** A currency and program with nothing in it yet. */
export function emptyGroup(currency: string, programId: string | null): LiabilityGroup {
  return {
    currency,
    programId,
    openingCents: ZERO_CENTS,
    issuedCents: ZERO_CENTS,
    debitedCents: ZERO_CENTS,
    refundedCents: ZERO_CENTS,
    voidedCents: ZERO_CENTS,
    expiredCents: ZERO_CENTS,
    ledgerClosingCents: ZERO_CENTS,
    serviceCents: ZERO_CENTS,
    inFlightCents: ZERO_CENTS,
    inFlightCards: 0,
    cards: 0,
    unknownCards: 0,
    entries: 0,
  };
}

/** opening + issued − debited + refunded − voided − expired. */
export function closingOf(flows: LiabilityFlows): Cents {
  return (flows.openingCents +
    flows.issuedCents -
    flows.debitedCents +
    flows.refundedCents -
    flows.voidedCents -
    flows.expiredCents) as Cents;
}

/** {@link closingOf} of figures that may be unknown (an amount off the cent): null when one is. */
export function closingOfKnown(flows: { [K in keyof LiabilityFlows]: Cents | null }): Cents | null {
  const { openingCents, issuedCents, debitedCents, refundedCents, voidedCents, expiredCents } = flows;
  if (
    openingCents === null ||
    issuedCents === null ||
    debitedCents === null ||
    refundedCents === null ||
    voidedCents === null ||
    expiredCents === null
  )
    return null;
  return closingOf({ openingCents, issuedCents, debitedCents, refundedCents, voidedCents, expiredCents });
}

/** A card against its whole ledger, as the Card reconciliation sheet and the card_reconciliation view state it. */
export interface CardReconciliation {
  debitedCents: Cents;
  refundedCents: Cents;
  /** initialBalance − debits + refunds; null when an amount off the cent leaves it unknown. */
  recomputedCents: Cents | null;
  /** remainingBalance − recomputed; null when either is unknown. */
  differenceCents: Cents | null;
  entries: number;
}

/** What a card's reconciliation sums of its ledger: the run keeps these per card for the Card sheet. */
export interface CardSums {
  debitedCents: Cents;
  refundedCents: Cents;
  /** An entry's amount was off the cent: what it sums is unknown. */
  unknownAmount: boolean;
  entries: number;
}

/** The debits and refunds of a card's mirrored entries, summed. */
export function cardSums(entries: readonly Pick<EntryFacts, 'type' | 'amountCents'>[]): CardSums {
  let debitedCents = ZERO_CENTS;
  let refundedCents = ZERO_CENTS;
  let unknownAmount = false;
  for (const entry of entries) {
    if (entry.type !== 'DEBIT' && entry.type !== 'REFUND') continue;
    if (entry.amountCents === null) unknownAmount = true;
    else if (entry.type === 'DEBIT') debitedCents = plusCents(debitedCents, entry.amountCents);
    else refundedCents = plusCents(refundedCents, entry.amountCents);
  }
  return { debitedCents, refundedCents, unknownAmount, entries: entries.length };
}

/** A card's initialBalance − debits + refunds over every mirrored entry, against its remainingBalance. */
export function cardReconciliation(
  card: Pick<CardFacts, 'initialCents' | 'remainingCents'>,
  entries: readonly Pick<EntryFacts, 'type' | 'amountCents'>[],
): CardReconciliation {
  return reconciliationOf(card, cardSums(entries));
}

/** {@link cardReconciliation} from the sums of the card's entries (as a run kept them). */
export function reconciliationOf(
  card: Pick<CardFacts, 'initialCents' | 'remainingCents'>,
  sums: CardSums,
): CardReconciliation {
  const { debitedCents, refundedCents } = sums;
  const recomputedCents =
    card.initialCents === null || sums.unknownAmount
      ? null
      : plusCents(minusCents(card.initialCents, debitedCents), refundedCents);
  const differenceCents =
    recomputedCents === null || card.remainingCents === null ? null : minusCents(card.remainingCents, recomputedCents);
  return { debitedCents, refundedCents, recomputedCents, differenceCents, entries: sums.entries };
}

/** What an entry's balanceAfter should be: its balanceBefore moved by its own amount (VOID and EXPIRE move nothing); null when unknown. */
export function expectedAfter(entry: Pick<EntryFacts, 'type' | 'amountCents' | 'beforeCents'>): number | null {
  const delta = signedAmount(entry);
  return delta === null || entry.beforeCents === null ? null : entry.beforeCents + delta;
}

/** A link of a card's chain that does not hold: the entry does not start where the one before it (or the issue) ended. */
export interface BrokenLink<E> {
  /** The entry before it, or null for the first (it should start at the initial balance). */
  previous: E | null;
  /** Where the chain stood: the previous entry's balanceAfter, or the initial balance. */
  previousAfterCents: Cents;
  entry: E;
  /** balanceBefore − where the chain stood. */
  gapCents: Cents;
}

/** Every link of a card's chain, in ledger order, whose entry's balanceBefore is not the previous balanceAfter (unknown amounts skip). */
export function brokenLinks<E extends Pick<EntryFacts, 'beforeCents' | 'afterCents'>>(
  initialCents: Cents | null,
  entries: readonly E[],
): BrokenLink<E>[] {
  const broken: BrokenLink<E>[] = [];
  let previous: E | null = null;
  let after = initialCents;
  for (const entry of entries) {
    if (after !== null && entry.beforeCents !== null && entry.beforeCents !== after)
      broken.push({ previous, previousAfterCents: after, entry, gapCents: minusCents(entry.beforeCents, after) });
    previous = entry;
    after = entry.afterCents;
  }
  return broken;
}
