/**
 * A period close, from the mirrored ledger alone, per currency and per program: the
 * outstanding balance at the start of the period, what was issued, debited, refunded, voided
 * and expired (breakage) in it, and the closing balance; tied out against every card's balance
 * at the closing cut-off and, for a period that ends now, against the service's
 * remainingBalance. Cents only; one streaming pass over the cards and their ledgers.
 *
 * A card's balance at a cut-off is the balanceAfter of its last entry before it, or its
 * initialBalance when it was issued before the cut-off with no entry; a card closed by a VOID
 * or EXPIRE entry before the cut-off owes nothing (the voided or expired amount is the
 * entry's balanceBefore, as in the nightly roll-forward).
 */
import type { Cents } from '../money.js';
import { walkCardFigures } from '../ledger/walk.js';
import { periodRollForwards, type PeriodRollForward } from '../ledger/rollforward.js';
import { LiabilityTally } from '../ledger/state.js';
import {
  DEFAULT_LIABILITY_SETTINGS,
  LiabilityBook,
  type LiabilityAt,
  type LiabilitySettings,
} from '../ledger/liability.js';

export type { PeriodRollForward } from '../ledger/rollforward.js';
import { ChecksStore } from '../checks/store.js';
import type { Mirror } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import type { Period } from './period.js';

/** The cards a check run counted in flight, over the sync it checked. */
export interface RunInFlight {
  syncRunId: number;
  cards: ReadonlySet<string>;
}

/** One card across the period. Amounts in cents; null where an amount off the cent leaves it unknown. */
export interface CardAtCutOff {
  giftCardId: string;
  currency: string;
  programId: string | null;
  issuedAtMs: number;
  openingCents: Cents | null;
  issuedCents: Cents | null;
  debitedCents: Cents | null;
  refundedCents: Cents | null;
  voidedCents: Cents | null;
  expiredCents: Cents | null;
  /** Its balance at the closing cut-off, from its ledger. */
  closingCents: Cents | null;
  /** The service's figure at the closing cut-off (null when the card is closed, or the period does not end now). */
  remainingCents: Cents | null;
  /** For a card in flight: what its snapshot holds beyond its ledger, shown apart. */
  inFlightCents: Cents | null;
  closed: boolean;
  entriesInPeriod: number;
}

export interface PeriodClose {
  period: Period;
  /** The mirror's data are complete up to this instant (the newest completed sync's ledger read). */
  asOfMs: number;
  /** The period reaches the data's edge: its closing cut-off is `asOfMs`, tied out against the service. */
  endsNow: boolean;
  /** The closing cut-off used (the period's end, or `asOfMs` for a period that ends now). */
  closingCutOffMs: number;
  merchantId: string | null;
  rollForwards: PeriodRollForward[];
  /** Ledger entries in the period whose card is not in the mirror: they belong to no currency or program. */
  unattributedEntries: number;
  /** The first card's issue in the mirror (the data's start), null for a mirror without cards. */
  dataFromMs: number | null;
  closes: boolean;
}

/** A period close with its liability workpaper figures. */
export interface ClosedPeriodFigures extends PeriodClose {
  /** The liability as finance closes it (ledger/liability.ts): at the closing cut-off, and at the opening one for the period's breakage entry. */
  liability: CloseLiability;
}

/** The close's liability workpaper figures, with the settings that shaped them. */
export interface CloseLiability {
  settings: LiabilitySettings;
  closing: LiabilityAt;
  opening: LiabilityAt;
}

/** The newest completed sync's edge: every ledger entry committed before it is mirrored. */
export async function dataAsOf(mirror: Mirror): Promise<number | null> {
  const newest = await new ChecksStore(mirror).newestCompletedSync();
  return newest?.cutOffMs ?? null;
}

/**
 * Closes `period` over the mirror from the ledger-state core; `onCard` sees every card that owed
 * something at either cut-off or moved in the period, in card ID order.
 * `options.asOfMs` cuts the data off earlier than the newest sync (a past check run's edge);
 * `options.inFlight`, the newest check run's in-flight cards, are those a period ending now shows apart.
 * @throws MirrorError when the mirror holds no completed sync, or the period starts after its data.
 */
export async function closePeriod(
  mirror: Mirror,
  period: Period,
  onCard: (card: CardAtCutOff) => void = () => undefined,
  options: {
    asOfMs?: number;
    merchantId?: string | null;
    inFlight?: RunInFlight | null;
    /** Close over the mirror as it stood when this sync finished, rebuilt from its history (re-performance). */
    asOfSync?: number;
    /** What shapes breakage and unclaimed property (default: DEFAULT_LIABILITY_SETTINGS). */
    liability?: LiabilitySettings;
  } = {},
): Promise<ClosedPeriodFigures> {
  const store = new ChecksStore(mirror);
  const newest =
    options.asOfSync === undefined
      ? await store.newestCompletedSync()
      : await store.newestCompletedSync(options.asOfSync + 1);
  if (newest === undefined) throw new MirrorError('the mirror holds no completed sync: run `ledger-recon sync` first');
  // An earlier edge (a past check run's): the service's balances read since are not comparable.
  const asOfMs = Math.min(options.asOfMs ?? newest.cutOffMs, newest.cutOffMs);
  const comparableWithService = asOfMs === newest.cutOffMs;
  if (period.startMs >= asOfMs)
    throw new MirrorError(
      `the period ${period.label} starts after the mirror's data (complete up to ${new Date(asOfMs).toISOString()}): sync first, or close an earlier period`,
    );
  const endsNow = period.endMs >= asOfMs && comparableWithService;
  const start = period.startMs;
  const end = Math.min(period.endMs, asOfMs);
  // Our merchant as the newest run pinned it (the caller asks the findings store); every card when none has.
  const merchantId = options.merchantId ?? null;
  // One in-flight set for every surface of a night: the check run's over the newest sync (its
  // GC_IN_FLIGHT cards, the confirmation's included), else what that sync recorded.
  const runs = options.inFlight?.syncRunId === newest.syncRunId ? options.inFlight.cards : undefined;
  const inFlight = !endsNow ? new Set<string>() : (runs ?? (await store.cards.cardIdsInFlight(newest.syncRunId)));

  const tally = new LiabilityTally({ fromMs: start, toMs: end }, merchantId, true);
  const liabilitySettings = options.liability ?? DEFAULT_LIABILITY_SETTINGS;
  const closingBook = new LiabilityBook(end, merchantId, liabilitySettings);
  const openingBook = new LiabilityBook(start, merchantId, liabilitySettings);
  let unattributedEntries = 0;
  const orphan = (_card: string, createdAtMs: number): void => {
    if (createdAtMs >= start && createdAtMs < end) unattributedEntries += 1;
  };
  let dataFromMs: number | null = null;
  for await (const batch of walkCardFigures(
    mirror,
    orphan,
    options.asOfSync === undefined ? undefined : newest.syncRunId,
  ))
    for (const walked of batch) {
      if (dataFromMs === null || walked.card.issuedAtMs < dataFromMs) dataFromMs = walked.card.issuedAtMs;
      const figures = tally.add(walked, inFlight.has(walked.card.giftCardId));
      if (!figures) continue;
      // The same cards apart as the roll-forward's: the vintages sum to its closing at cut-off.
      closingBook.add(walked.card, walked.entries, figures.unknown);
      openingBook.add(walked.card, walked.entries);
      if (!figures.relevant) continue;
      const { card, opening, closing, flows, unknown } = figures;
      onCard({
        giftCardId: card.giftCardId,
        currency: card.currency,
        programId: card.programId,
        issuedAtMs: card.issuedAtMs,
        openingCents: opening.owedCents,
        issuedCents: flows.issuedCents,
        debitedCents: unknown ? null : flows.debitedCents,
        refundedCents: unknown ? null : flows.refundedCents,
        voidedCents: unknown ? null : flows.voidedCents,
        expiredCents: unknown ? null : flows.expiredCents,
        closingCents: closing.owedCents,
        remainingCents: closing.closed ? null : endsNow ? figures.serviceCents : card.remainingCents,
        inFlightCents: figures.inFlight && endsNow ? figures.inFlightCents : null,
        closed: closing.closed,
        entriesInPeriod: flows.entries,
      });
    }

  const rollForwards = periodRollForwards(tally, endsNow);
  return {
    period,
    asOfMs,
    endsNow,
    closingCutOffMs: end,
    merchantId,
    rollForwards,
    unattributedEntries,
    dataFromMs,
    closes: rollForwards.every((group) => group.closes) && unattributedEntries === 0,
    liability: { settings: liabilitySettings, closing: closingBook.result(), opening: openingBook.result() },
  };
}
