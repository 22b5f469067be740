/**
 * The ledger's population as a night walked it: what an auditor tests for completeness and
 * accuracy. Per currency, the cards and entries counted and their control totals (what the
 * cards hold by the service's snapshots, what every entry debited and refunded); and a Merkle
 * root over every card with its entries in the walk's order (cards by ID), so one card's
 * inclusion can be proved without the rest. Fed by the one walk; pure.
 */
import { type Cents, plusCents, ZERO_CENTS } from '../money.js';
import { MerkleBuilder, leafHash } from './merkle.js';
import { entryMove } from './state.js';
import type { CardLedger } from './types.js';

/** One currency's control totals, in cents; amounts off the cent are counted apart, never summed. */
export interface CurrencyControls {
  cards: number;
  entries: number;
  /** Σ the cards' remainingBalance as the service last reported it. */
  remainingCents: Cents;
  /** Σ every DEBIT's amount and every REFUND's amount, all time. */
  debitedCents: Cents;
  refundedCents: Cents;
  /** Cards or entries with an amount off the cent: not in the sums above. */
  offTheCent: number;
}

export interface LedgerPopulation {
  cards: number;
  entries: number;
  /** Entries whose card is not in the mirror (in `entries`, in no currency). */
  orphanEntries: number;
  byCurrency: Record<string, CurrencyControls>;
  /** The Merkle root (hex) over every card with its entries, cards in ID order: see {@link canonicalCard}. */
  merkleRoot: string;
}

/** A card with its entries as one canonical text: the leaf of the population's Merkle tree. */
export function canonicalCard({ card, entries }: CardLedger): string {
  return JSON.stringify([
    card.giftCardId,
    card.merchantId,
    card.status,
    card.currency,
    card.programId,
    card.issuedAtMs,
    card.initialCents,
    card.remainingCents,
    card.expiresAtMs,
    entries.map((e) => [
      e.transactionId,
      e.type,
      e.amountCents,
      e.beforeCents,
      e.afterCents,
      e.referenceId,
      e.idempotencyKey,
      e.createdAtMs,
    ]),
  ]);
}

export class PopulationTally {
  readonly #merkle = new MerkleBuilder();
  readonly #byCurrency = new Map<string, CurrencyControls>();
  #entries = 0;
  #orphans = 0;

  /** Adds a card: its leaf as kept from the night before when it has not moved (leaves.ts), else hashed now. */
  add(ledger: CardLedger, leaf?: Buffer): void {
    this.#merkle.add(leaf ?? leafHash(canonicalCard(ledger)));
    const { card, entries } = ledger;
    let controls = this.#byCurrency.get(card.currency);
    if (!controls) {
      controls = {
        cards: 0,
        entries: 0,
        remainingCents: ZERO_CENTS,
        debitedCents: ZERO_CENTS,
        refundedCents: ZERO_CENTS,
        offTheCent: 0,
      };
      this.#byCurrency.set(card.currency, controls);
    }
    controls.cards += 1;
    controls.entries += entries.length;
    this.#entries += entries.length;
    if (card.remainingCents === null) controls.offTheCent += 1;
    else controls.remainingCents = plusCents(controls.remainingCents, card.remainingCents);
    for (const entry of entries) {
      const move = entryMove(entry);
      if (move === null || (move.flow !== 'debitedCents' && move.flow !== 'refundedCents')) continue;
      if (move.cents === null) controls.offTheCent += 1;
      else controls[move.flow] = plusCents(controls[move.flow], move.cents);
    }
  }

  orphan(): void {
    this.#orphans += 1;
    this.#entries += 1;
  }

  result(): LedgerPopulation {
    const currencies = [...this.#byCurrency.keys()].sort();
    return {
      cards: this.#merkle.leaves,
      entries: this.#entries,
      orphanEntries: this.#orphans,
      byCurrency: Object.fromEntries(currencies.map((c) => [c, { ...this.#byCurrency.get(c)! }])),
      merkleRoot: this.#merkle.root(),
    };
  }
}
