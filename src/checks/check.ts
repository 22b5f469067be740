/**
 * What a check is and what it returns. Two kinds share one shape:
 * - a card check inspects one gift card with its ledger in order (a pure function; the runner
 *   streams every card through every card check in one pass over the mirror);
 * - a query check reads typed rows through the checks' store and decides over them, pure.
 * Checks return findings; they never throw on bad data.
 */

/**
 * The catalogue's codes (DESIGN.md), stable: reports, tests and users key on them. Each is
 * written once, in its check's file; the list is the registry's (checks/index.ts).
 */
import type { Mirror } from '../db/mirror.js';
import type { ChecksStore } from './store.js';

/** error: money or a ledger invariant is wrong; warning: a control failed; info: worth knowing. */
export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const SEVERITY_RANK: Record<Severity, number> = { info: 1, warning: 2, error: 3 };

/** booksRow: a row of the merchant's books, by its row_id in books_rows (its file and line say where it is). */
export type RecordType =
  | 'giftCard'
  | 'giftCardTransaction'
  | 'coupon'
  | 'dpOrder'
  | 'dpProduct'
  | 'dpWallet'
  | 'booksRow';

/** A record a finding is about, as the service names it: enough to look it up there. */
export interface RecordRef {
  type: RecordType;
  id: string;
}

/** Expected and actual, in cents of `currency` or as a count. */
export type Measure =
  | { unit: 'cents'; expected: number; actual: number }
  | { unit: 'count'; expected: number; actual: number };

/** What a check returns for one break; the runner adds code, severity, fingerprint and state. */
export interface FindingDraft {
  entityType: RecordType;
  entityId: string;
  giftCardId?: string;
  referenceId?: string;
  currency?: string;
  measure?: Measure;
  /** One sentence: where, what, and what to look at next. */
  message: string;
  records: RecordRef[];
  /** Identities beyond entity and reference that tell two findings of one code apart. */
  identity?: string[];
  /**
   * The money this break puts at stake, in cents of `currency`, when it is not the measure's
   * difference (a duplicated debit's amount, a duplicated order's total); 0 when none.
   */
  atStakeCents?: number;
  /**
   * Breaks that point at the same money share a key, so that it counts once (a card's balance
   * difference seen by several codes). Default: the finding's own fingerprint.
   */
  stakeKey?: string;
}

/**
 * How a break ends. A state break is about how records stand now (a balance that disagrees):
 * it is resolved when the records agree again. An event break is found from a change between
 * two syncs (an entry rewritten or gone, a counter that went down, a wallet that moved
 * unexplained): it stays open on every later night until a person accepts it.
 */
export type Lifecycle = 'state' | 'event';

/** Thresholds with DESIGN.md's defaults. */
export interface CheckOptions {
  /** How long past expiresAt a card or coupon may stay ACTIVE (the hourly job's slack). */
  expiryGraceMinutes: number;
  /** How long an order may stay short of COMPLETED or FAILED. */
  stuckOrderSlaHours: number;
  /** Two equal DEBITs under one reference within this window look like a double debit. */
  doubleDebitWindowSeconds: number;
  /** Matching the books: cents per currency an amount may differ by (default none). */
  booksToleranceCents: Record<string, number>;
  /** Matching the books: how far apart a books row and its entry may be for the tolerance and code-hash rules. */
  booksWindowHours: number;
  /** Matching the books: unmatched within this of the end of the data is in transit. */
  booksCutoffMinutes: number;
  /** A card in flight on this many consecutive syncs is a finding of its own (GC_STUCK_IN_FLIGHT). */
  stuckInFlightRuns: number;
}

export const DEFAULT_CHECK_OPTIONS: CheckOptions = {
  expiryGraceMinutes: 120,
  stuckOrderSlaHours: 24,
  doubleDebitWindowSeconds: 60,
  booksToleranceCents: {},
  booksWindowHours: 72,
  booksCutoffMinutes: 60,
  stuckInFlightRuns: 3,
};

/** What every check may know about the run. */
export interface CheckContext {
  /** The mirror, for the checks' store. */
  mirror: Mirror;
  /** The sync being checked, and the completed sync before it (cross-run checks). */
  syncRunId: number;
  previousSyncRunId: number | null;
  /** When the checked sync started reading: "now" for ages and SLAs. */
  asOfMs: number;
  /** Our merchant: configured, or the one owning most cards and coupons. */
  merchantId: string | null;
  options: CheckOptions;
  /** Cards the ledger names but the mirror lacks, when the card walk has found them already. */
  orphanCardIds?: readonly string[];
  /**
   * Re-performance: the checks that read the ledger's entries read them as sync `asOfSync` left
   * them, rebuilt from the mirror's history; absent, as they are now (the night's own run).
   */
  asOfSync?: number;
}

/** What a card check may know besides the card: thresholds and our merchant. */
export interface CardContext {
  options: CheckOptions;
  merchantId: string | null;
}

export type { CardLedger, CardSnapshot, LedgerEntry } from '../ledger/types.js';
import type { CardLedger } from '../ledger/types.js';

interface CheckInfo<C extends string> {
  code: C;
  severity: Severity;
  /** A few words, for tables. */
  title: string;
  /** What the check proves and what a finding means, in words an auditor understands. */
  description: string;
  lifecycle: Lifecycle;
  /** It reads the books' matching (a BK_ check, and the services' checks against the books): it cannot run when the matching failed. */
  needsBooks?: boolean;
}

export interface CardCheck<C extends string = string> extends CheckInfo<C> {
  kind: 'card';
  /**
   * True when the finding's truth depends on when the card was read (the balance against its
   * ledger, the tail against the card): a card that moved during the sync, or that the
   * confirmation pass finds moved on, is reported as GC_IN_FLIGHT instead and checked again
   * next run. Findings about entries themselves are never time-sensitive.
   */
  timeSensitive: boolean;
  inspect(ledger: CardLedger, context: CardContext): FindingDraft[];
}

/**
 * A query check in two halves: what it reads (its SQL, a method of the checks' store, typed
 * rows back) and what it decides over those rows (pure: tested without a database).
 */
export interface RowsCheck<C extends string = string, R = unknown> extends CheckInfo<C> {
  kind: 'rows';
  read(store: ChecksStore, context: CheckContext): Promise<readonly R[]>;
  decide(rows: readonly R[], context: DecideContext): FindingDraft[];
}

/** What a decision may know besides its rows: the run's clock, our merchant and the thresholds. */
export type DecideContext = Pick<CheckContext, 'asOfMs' | 'merchantId' | 'options'>;

export type Check<C extends string = string> = CardCheck<C> | RowsCheck<C>;

/** A card check, its code kept as the literal it is: the registry's list of codes is made of them. */
export function cardCheck<const C extends string>(check: CardCheck<C>): CardCheck<C> {
  return check;
}

/** A check that reads typed rows through the checks' store and decides over them, its code kept as the literal it is. */
export function rowsCheck<const C extends string, R>(check: RowsCheck<C, R>): RowsCheck<C, R> {
  return check;
}

/** True when the draft's truth depends on when its card was read (see CardCheck.timeSensitive). */
export function isTimeSensitive(check: Check): boolean {
  return check.kind === 'card' && check.timeSensitive;
}
