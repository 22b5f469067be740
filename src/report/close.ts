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
import type Database from 'better-sqlite3';
import type { LiabilityFlows } from '../checks/rollforward.js';
import { MirrorError } from '../errors.js';
import { pinnedMerchant } from '../findings/store.js';
import type { Period } from './period.js';

/** One card across the period. Amounts in cents; null where an amount off the cent leaves it unknown. */
export interface CardAtCutOff {
  giftCardId: string;
  currency: string;
  programId: string | null;
  issuedAtMs: number;
  openingCents: number | null;
  issuedCents: number | null;
  debitedCents: number | null;
  refundedCents: number | null;
  voidedCents: number | null;
  expiredCents: number | null;
  /** Its balance at the closing cut-off, from its ledger. */
  closingCents: number | null;
  /** The service's remainingBalance (null when the card is closed: it owes nothing). */
  remainingCents: number | null;
  closed: boolean;
  entriesInPeriod: number;
}

/** The roll-forward of one currency and program. */
export interface PeriodRollForward extends LiabilityFlows {
  currency: string;
  programId: string | null;
  /** opening + issued − debited + refunded − voided − expired. */
  closingFromFlowsCents: number;
  /** Σ every card's balance at the closing cut-off. */
  closingFromCardsCents: number;
  /** closingFromCards − closingFromFlows: zero when the roll-forward ties out. */
  differenceCents: number;
  /** For a period that ends now: Σ the open cards' remainingBalance, and its difference to closingFromCards. */
  serviceRemainingCents: number | null;
  serviceDifferenceCents: number | null;
  cards: number;
  /** Cards whose figures an amount off the cent leaves unknown: the tie-out cannot close while any remain. */
  unknownCards: number;
  entriesInPeriod: number;
  closes: boolean;
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
  closes: boolean;
}

type EntryRow = [giftCardId: string, createdAtMs: number, type: string, amountCents: number | null, beforeCents: number | null, afterCents: number | null];
type CardRow = [giftCardId: string, merchantId: string, currency: string, programId: string | null, issuedAtMs: number, initialCents: number | null, remainingCents: number | null];

/** The newest completed sync's edge: every ledger entry committed before it is mirrored. */
export function dataAsOf(sqlite: Database.Database): number | null {
  const row = sqlite.prepare("SELECT summary_json, started_at_ms FROM sync_runs WHERE status = 'completed' ORDER BY sync_run_id DESC LIMIT 1").get() as { summary_json: string | null; started_at_ms: number } | undefined;
  if (!row) return null;
  const until = row.summary_json ? (JSON.parse(row.summary_json) as { ledgerReadUntilMs?: unknown }).ledgerReadUntilMs : undefined;
  return typeof until === 'number' ? until : row.started_at_ms;
}

/**
 * Closes `period` over the mirror; `onCard` sees every card that owed something at either
 * cut-off or moved in the period, in card ID order.
 * `options.asOfMs` cuts the data off earlier than the newest sync (a past check run's edge).
 * @throws MirrorError when the mirror holds no completed sync, or the period starts after its data.
 */
export function closePeriod(sqlite: Database.Database, period: Period, onCard: (card: CardAtCutOff) => void = () => undefined, options: { asOfMs?: number } = {}): PeriodClose {
  const newest = dataAsOf(sqlite);
  if (newest === null) throw new MirrorError('the mirror holds no completed sync: run `ledger-recon sync` first');
  // An earlier edge (a past check run's): the service's balances read since are not comparable.
  const asOfMs = Math.min(options.asOfMs ?? newest, newest);
  const comparableWithService = asOfMs === newest;
  if (period.startMs >= asOfMs) throw new MirrorError(`the period ${period.label} starts after the mirror's data (complete up to ${new Date(asOfMs).toISOString()}): sync first, or close an earlier period`);
  const endsNow = period.endMs >= asOfMs && comparableWithService;
  const start = period.startMs;
  const end = Math.min(period.endMs, asOfMs);
  const merchantId = pinnedMerchant(sqlite);

  const groups = new Map<string, PeriodRollForward>();
  const groupOf = (currency: string, programId: string | null): PeriodRollForward => {
    const key = `${currency}\u0000${programId ?? ''}`;
    let group = groups.get(key);
    if (!group) {
      group = { currency, programId, openingCents: 0, issuedCents: 0, debitedCents: 0, refundedCents: 0, voidedCents: 0, expiredCents: 0, closingFromFlowsCents: 0, closingFromCardsCents: 0, differenceCents: 0, serviceRemainingCents: endsNow ? 0 : null, serviceDifferenceCents: null, cards: 0, unknownCards: 0, entriesInPeriod: 0, closes: false };
      groups.set(key, group);
    }
    return group;
  };

  const cards = (sqlite.prepare('SELECT gift_card_id, merchant_id, currency, program_id, issued_at_ms, initial_balance_cents, remaining_balance_cents FROM gift_cards ORDER BY gift_card_id').raw(true).iterate() as IterableIterator<CardRow>)[Symbol.iterator]();
  const entries = (sqlite
    .prepare('SELECT gift_card_id, created_at_ms, type, amount_cents, balance_before_cents, balance_after_cents FROM gift_card_transactions WHERE vanished_sync_run_id IS NULL ORDER BY gift_card_id, created_at_ms, list_order')
    .raw(true)
    .iterate() as IterableIterator<EntryRow>)[Symbol.iterator]();
  let entry = entries.next();
  let unattributedEntries = 0;

  for (let next = cards.next(); !next.done; next = cards.next()) {
    const [giftCardId, cardMerchant, currency, programId, issuedAtMs, initialCents, remainingCents] = next.value;
    // Entries of cards the mirror does not hold sort before this card: they belong to no group.
    while (!entry.done && entry.value[0] < giftCardId) {
      if (entry.value[1] >= start && entry.value[1] < end) unattributedEntries += 1;
      entry = entries.next();
    }
    const card = { unknown: initialCents === null, closedAtStart: false, closedAtEnd: false, debited: 0, refunded: 0, voided: 0, expired: 0, inPeriod: 0 };
    let balanceAtStart: number | null | undefined;
    let balanceAtEnd: number | null | undefined;
    for (; !entry.done && entry.value[0] === giftCardId; entry = entries.next()) {
      const [, createdAtMs, type, amountCents, beforeCents, afterCents] = entry.value;
      if (createdAtMs >= end) continue;
      const closes = type === 'VOID' || type === 'EXPIRE';
      if (createdAtMs < start) {
        balanceAtStart = afterCents;
        if (closes) card.closedAtStart = true;
      } else {
        card.inPeriod += 1;
        const moved = type === 'DEBIT' || type === 'REFUND' ? amountCents : beforeCents;
        if (moved === null) card.unknown = true;
        else if (type === 'DEBIT') card.debited += moved;
        else if (type === 'REFUND') card.refunded += moved;
        else if (type === 'VOID') card.voided += moved;
        else if (type === 'EXPIRE') card.expired += moved;
      }
      balanceAtEnd = afterCents;
      if (closes) card.closedAtEnd = true;
    }
    if (merchantId !== null && cardMerchant !== merchantId) continue;
    const at = (issuedBefore: boolean, closed: boolean, balance: number | null | undefined): number | null => {
      if (!issuedBefore || closed) return 0;
      const value = balance === undefined ? initialCents : balance;
      if (value === null) card.unknown = true;
      return value;
    };
    const opening = at(issuedAtMs < start, card.closedAtStart, balanceAtStart);
    const closing = at(issuedAtMs < end, card.closedAtEnd, balanceAtEnd);
    const issued = issuedAtMs >= start && issuedAtMs < end ? initialCents : 0;
    const owes = (opening ?? 1) !== 0 || (closing ?? 1) !== 0 || card.inPeriod > 0 || issued !== 0;
    if (!owes) continue;

    const group = groupOf(currency, programId);
    group.cards += 1;
    group.entriesInPeriod += card.inPeriod;
    if (card.unknown || opening === null || closing === null || issued === null) group.unknownCards += 1;
    else {
      group.openingCents += opening;
      group.issuedCents += issued;
      group.debitedCents += card.debited;
      group.refundedCents += card.refunded;
      group.voidedCents += card.voided;
      group.expiredCents += card.expired;
      group.closingFromCardsCents += closing;
    }
    if (endsNow && group.serviceRemainingCents !== null && !card.closedAtEnd && issuedAtMs < end) {
      if (remainingCents === null) group.unknownCards += 1;
      else group.serviceRemainingCents += remainingCents;
    }
    onCard({
      giftCardId,
      currency,
      programId,
      issuedAtMs,
      openingCents: opening,
      issuedCents: issued,
      debitedCents: card.unknown ? null : card.debited,
      refundedCents: card.unknown ? null : card.refunded,
      voidedCents: card.unknown ? null : card.voided,
      expiredCents: card.unknown ? null : card.expired,
      closingCents: closing,
      remainingCents: card.closedAtEnd ? null : remainingCents,
      closed: card.closedAtEnd,
      entriesInPeriod: card.inPeriod,
    });
  }
  for (; !entry.done; entry = entries.next()) if (entry.value[1] >= start && entry.value[1] < end) unattributedEntries += 1;

  const rollForwards = [...groups.values()].sort((a, b) => a.currency.localeCompare(b.currency) || (a.programId ?? '').localeCompare(b.programId ?? ''));
  for (const group of rollForwards) {
    group.closingFromFlowsCents = group.openingCents + group.issuedCents - group.debitedCents + group.refundedCents - group.voidedCents - group.expiredCents;
    group.differenceCents = group.closingFromCardsCents - group.closingFromFlowsCents;
    if (group.serviceRemainingCents !== null) group.serviceDifferenceCents = group.serviceRemainingCents - group.closingFromCardsCents;
    group.closes = group.unknownCards === 0 && group.differenceCents === 0 && (group.serviceDifferenceCents ?? 0) === 0;
  }
  return { period, asOfMs, endsNow, closingCutOffMs: end, merchantId, rollForwards, unattributedEntries, closes: rollForwards.every((group) => group.closes) && unattributedEntries === 0 };
}
