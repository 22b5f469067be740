/** The Card reconciliation sheet: each card's figures as the run's sync left them, the cards with a finding first. */
import { walkCardSumsOf } from '../../ledger/walk.js';
import { cardsWithKeptSums } from '../../ledger/card-sums.js';
import { cardReconciliation, type CardReconciliation, reconciliationOf } from '../../ledger/state.js';
import type { CardSnapshot } from '../../ledger/types.js';
import type { Cell, SheetSpec } from '../xlsx-writer.js';
import { money, type Keyed, NO_CELLS, exceptionsFirst, type FindingsOf, type LedgerSheetReads } from './rows.js';

/**
 * The Card reconciliation sheet: each card's figures as the run's sync left them, the cards with
 * a finding first: the sums the run's walk kept (`kept`, while no sync has changed the cards
 * since), else a walk of the ledger as of the run's sync, which gives the same figures.
 */
export async function cardSheet({
  mirror,
  reads,
  syncRunId,
  kept,
  findingsOf,
  flagged,
}: LedgerSheetReads): Promise<SheetSpec> {
  return {
    name: 'Card reconciliation',
    header: [
      'gift card',
      'currency',
      'status',
      'initial balance',
      'debits',
      'refunds',
      'recomputed balance',
      'reported remaining',
      'difference',
      'entries',
      'findings',
    ],
    // One page wide at 0.75: a card's ID wraps at its hyphens onto two lines.
    fixedWidths: { 0: 20, 1: 8, 2: 10, 3: 13, 4: 13, 5: 13, 6: 13, 7: 13, 8: 13, 9: 8, 10: 30 },
    ...(await exceptionsFirst(
      'card',
      (only, keysOnly) => cardRows({ mirror, reads, syncRunId, kept, findingsOf }, only, keysOnly),
      flagged,
    )),
  };
}

/**
 * Per card, from the ledger stage: initial − debits + refunds against the reported balance, the
 * sums as the run's walk kept them (`kept`), or else summed by a walk as of the run's sync.
 */
async function* cardRows(
  { mirror, reads, syncRunId, kept, findingsOf }: Omit<LedgerSheetReads, 'flagged'>,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  // Asked for keys alone, the cards' IDs: the ledger's entries are read for the rows' figures only.
  if (keysOnly) {
    for await (const ids of reads.cardIds(only)) yield ids.map((id): Keyed => [id, NO_CELLS, findingsOf(id) !== '']);
    return;
  }
  if (kept !== null) {
    for await (const batch of cardsWithKeptSums(mirror, kept, only ?? undefined))
      yield batch.map(({ card, sums }) => cardRow(card, reconciliationOf(card, sums), findingsOf));
    return;
  }
  // The entries' figures alone: a card's reconciliation needs no entry's identity.
  for await (const batch of walkCardSumsOf(mirror, only ?? undefined, syncRunId))
    yield batch.map(({ card, entries }) => cardRow(card, cardReconciliation(card, entries), findingsOf));
}

/** One card's row of the Card reconciliation sheet. */
function cardRow(card: CardSnapshot, figures: CardReconciliation, findingsOf: FindingsOf): Keyed {
  const id = card.giftCardId;
  const c = card.currency;
  // Each row re-performs itself: recomputed = initial − debits + refunds, difference = reported − recomputed.
  // An amount off the cent leaves the figures unknown: the cells stay empty rather than wrong.
  const recomputedCell: Cell =
    figures.recomputedCents === null
      ? null
      : { formula: 'D{row}-E{row}+F{row}', cents: figures.recomputedCents, currency: c };
  const differenceCell: Cell =
    figures.differenceCents === null ? null : { formula: 'H{row}-G{row}', cents: figures.differenceCents, currency: c };
  const findings = findingsOf(id);
  return [
    id,
    [
      id,
      c,
      card.status,
      money(card.initialCents, c),
      money(figures.debitedCents, c),
      money(figures.refundedCents, c),
      recomputedCell,
      money(card.remainingCents, c),
      differenceCell,
      figures.entries,
      findings,
    ],
    findings !== '',
  ];
}
