/** The Refunds by reference sheet: each card's debits and the refunds against them, grouped by reference. */
import { cardsWithKeptRefunds, type KeptCardSums } from '../../ledger/card-sums.js';
import { walkCardLedgersAsOf } from '../../ledger/walk.js';
import { type RefundGroup, refundableLeftCents, refundGroupsOf } from '../../ledger/references.js';
import type { Mirror } from '../../db/mirror.js';
import type { SheetSpec } from '../xlsx-writer.js';
import { money, type Keyed, NO_CELLS, exceptionsFirst, type FindingsOf, type LedgerSheetReads } from './rows.js';

/**
 * Refunds by reference: what was debited and refunded under each reference, the flagged first;
 * the references as the run's sync left them: as its walk kept them (`kept`), or else as a walk
 * of the ledger as of that sync groups them.
 */
export async function refundsSheet({
  mirror,
  syncRunId,
  kept,
  findingsOf,
  flagged,
}: LedgerSheetReads): Promise<SheetSpec> {
  return {
    name: 'Refunds by reference',
    header: [
      'gift card',
      'currency',
      'reference',
      'debits',
      'debited',
      'refunds',
      'refunded',
      'refundable left',
      'findings',
    ],
    fixedWidths: { 0: 20, 1: 8, 2: 24, 3: 8, 4: 13, 5: 8, 6: 13, 7: 13, 8: 25 },
    ...(await exceptionsFirst(
      'reference',
      (only, keysOnly) =>
        kept === null
          ? walkedRefundRows(mirror, syncRunId, findingsOf, only, keysOnly)
          : keptRefundRows(mirror, kept, findingsOf, only, keysOnly),
      flagged,
    )),
  };
}

/** Per card and reference with a refund, as the run's sync left them: a walk of the ledger as of that sync, grouped one card at a time by the ledger stage. */
async function* walkedRefundRows(
  mirror: Mirror,
  syncRunId: number,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  for await (const batch of walkCardLedgersAsOf(mirror, syncRunId, undefined, only ?? undefined))
    yield batch.flatMap(({ card, entries }) =>
      entries.some((e) => e.type === 'REFUND')
        ? refundGroupRows(
            card.giftCardId,
            card.currency,
            refundGroupsOf(entries.filter((e) => e.type === 'DEBIT' || e.type === 'REFUND')),
            findingsOf,
            keysOnly,
          )
        : [],
    );
}

/** Per card and reference with a refund, as the run's walk kept them: the cards' rows alone are read. */
async function* keptRefundRows(
  mirror: Mirror,
  kept: KeptCardSums,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  for await (const batch of cardsWithKeptRefunds(mirror, kept, only ?? undefined))
    yield batch.flatMap(({ giftCardId, currency, groups }) =>
      refundGroupRows(giftCardId, currency, groups, findingsOf, keysOnly),
    );
}

/** One card's rows of the Refunds by reference sheet, a row per reference with a refund. */
function refundGroupRows(
  card: string,
  currency: string,
  groups: readonly RefundGroup[],
  findingsOf: FindingsOf,
  keysOnly: boolean,
): Keyed[] {
  return groups.map((group): Keyed => {
    const key = `${card} ${group.referenceId}`;
    const findings = findingsOf(card, ...group.refundIds);
    if (keysOnly) return [key, NO_CELLS, findings !== '', card];
    const left = refundableLeftCents(group);
    return [
      key,
      [
        card,
        currency,
        group.referenceId,
        group.debits,
        money(group.debitedCents, currency),
        group.refunds,
        money(group.refundedCents, currency),
        // Re-performs itself: debited − refunded.
        left === null ? null : { formula: 'E{row}-G{row}', cents: left, currency },
        findings,
      ],
      findings !== '',
    ];
  });
}
