import type { Cents } from '../money.js';
/** The ledger as the mirror holds it: a card's snapshot and its entries, as the walk hands them out. */

/** One gift card snapshot as the mirror holds it. */
export interface CardSnapshot {
  giftCardId: string;
  merchantId: string;
  status: string;
  currency: string;
  programId: string | null;
  issuedAtMs: number;
  initialCents: Cents | null;
  remainingCents: Cents | null;
  expiresAtMs: number;
  /** When the sync read this snapshot (our clock). */
  readAtMs: number;
}

/** One ledger entry; cents are null when the service sent an amount off the cent. */
export interface LedgerEntry {
  transactionId: string;
  type: string;
  amountCents: Cents | null;
  beforeCents: Cents | null;
  afterCents: Cents | null;
  referenceId: string;
  idempotencyKey: string;
  createdAtMs: number;
  /** The service's list order (higher is newer): orders equal createdAt. */
  listOrder: number;
}

/** A card and its entries, oldest first (equal createdAt by list order or the chain's links). */
export interface CardLedger {
  card: CardSnapshot;
  entries: LedgerEntry[];
}
