/**
 * The gift card liability roll-forward per currency: opening outstanding balance + issued −
 * debited + refunded − voided − expired = closing, set against the sum of the open cards'
 * remaining balances. The opening is the outstanding balance the previous run found, so each
 * run accounts for its own period. Fed card by card from the checker's walk; cents only.
 */
import type { WalkedCard } from './card-ledger.js';

/** What a gift card liability roll-forward moves, in cents: opening + issued − debited + refunded − voided − expired. */
export interface LiabilityFlows {
  openingCents: number;
  issuedCents: number;
  debitedCents: number;
  refundedCents: number;
  voidedCents: number;
  expiredCents: number;
}

export interface RollForward extends LiabilityFlows {
  currency: string;
  closingCents: number;
  /** Σ remainingBalance of cards without a VOID or EXPIRE entry. */
  cardsRemainingCents: number;
  /** cardsRemaining − closing: zero when the roll-forward closes. */
  differenceCents: number;
}

type Flows = Omit<RollForward, 'currency' | 'openingCents' | 'closingCents' | 'differenceCents'>;

export class RollForwardTally {
  readonly #since: number | null;
  readonly #flows = new Map<string, Flows>();

  /** Counts what was first mirrored after sync `sinceSyncRunId` (null: everything). */
  constructor(sinceSyncRunId: number | null) {
    this.#since = sinceSyncRunId;
  }

  /**
   * Adds one card. A card that moved during the sync counts at its ledger balance, not its
   * snapshot's, so that timing never shows as an unexplained difference.
   */
  add({ card, entries, firstSyncRunId }: WalkedCard, inFlight = false): void {
    let flows = this.#flows.get(card.currency);
    if (!flows) {
      flows = { issuedCents: 0, debitedCents: 0, refundedCents: 0, voidedCents: 0, expiredCents: 0, cardsRemainingCents: 0 };
      this.#flows.set(card.currency, flows);
    }
    const fresh = (syncRunId: number): boolean => this.#since === null || syncRunId > this.#since;
    if (fresh(firstSyncRunId)) flows.issuedCents += card.initialCents ?? 0;
    let closed = false;
    let ledgerBalance = card.initialCents ?? 0;
    for (const entry of entries) {
      if (entry.type === 'VOID' || entry.type === 'EXPIRE') closed = true;
      if (entry.type === 'DEBIT') ledgerBalance -= entry.amountCents ?? 0;
      else if (entry.type === 'REFUND') ledgerBalance += entry.amountCents ?? 0;
      if (!fresh(entry.firstSyncRunId)) continue;
      if (entry.type === 'DEBIT') flows.debitedCents += entry.amountCents ?? 0;
      else if (entry.type === 'REFUND') flows.refundedCents += entry.amountCents ?? 0;
      else if (entry.type === 'VOID') flows.voidedCents += entry.beforeCents ?? 0;
      else if (entry.type === 'EXPIRE') flows.expiredCents += entry.beforeCents ?? 0;
    }
    if (!closed) flows.cardsRemainingCents += inFlight ? ledgerBalance : (card.remainingCents ?? 0);
  }

  /** The roll-forward per currency, opening at the previous run's outstanding balances. */
  result(openings: ReadonlyMap<string, number>): RollForward[] {
    const currencies = [...new Set([...this.#flows.keys(), ...openings.keys()])].sort();
    return currencies.map((currency) => {
      const flows = this.#flows.get(currency) ?? { issuedCents: 0, debitedCents: 0, refundedCents: 0, voidedCents: 0, expiredCents: 0, cardsRemainingCents: 0 };
      const openingCents = openings.get(currency) ?? 0;
      const closingCents = openingCents + flows.issuedCents - flows.debitedCents + flows.refundedCents - flows.voidedCents - flows.expiredCents;
      return { currency, openingCents, ...flows, closingCents, differenceCents: flows.cardsRemainingCents - closingCents };
    });
  }
}
