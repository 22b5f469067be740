/** The Refunds by reference sheet: each card's debits and the refunds against them, grouped by reference. */
import { cardsWithKeptRefunds, type KeptCardSums } from '../../ledger/card-sums.js';
import {
  type ReferencedEntry,
  type RefundGroup,
  refundableLeftCents,
  refundGroupsOf,
} from '../../ledger/references.js';
import { storedCents } from '../../money.js';
import type { Mirror } from '../../db/mirror.js';
import type { ReportStore } from '../store.js';
import type { SheetSpec } from '../xlsx-writer.js';
import { money, type Keyed, NO_CELLS, exceptionsFirst, type FindingsOf, type LedgerSheetReads } from './rows.js';

/**
 * Refunds by reference: what was debited and refunded under each reference, the flagged first;
 * the references as the run's walk kept them (`kept`), or else as the ledger groups them now.
 */
export async function refundsSheet({ mirror, reads, kept, findingsOf, flagged }: LedgerSheetReads): Promise<SheetSpec> {
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
          ? refundRows(reads, findingsOf, only, keysOnly)
          : keptRefundRows(mirror, kept, findingsOf, only, keysOnly),
      flagged,
    )),
  };
}

/** Per card and reference with a refund: one pass over the ledger in card order, grouped one card at a time by the ledger stage. */
async function* refundRows(
  reads: ReportStore,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  let card = '';
  let currency = '';
  let entries: Array<ReferencedEntry & { transactionId: string }> = [];
  const flush = (): Keyed[] => refundGroupRows(card, currency, refundGroupsOf(entries), findingsOf, keysOnly);
  for await (const batch of reads.refundEntries(only)) {
    const rows: Keyed[] = [];
    for (const [id, c, referenceId, type, amountCents, transactionId] of batch) {
      if (id !== card) {
        rows.push(...flush());
        card = id;
        currency = c;
        entries = [];
      }
      entries.push({ type, referenceId, amountCents: storedCents(amountCents), transactionId });
    }
    yield rows;
  }
  yield flush();
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
