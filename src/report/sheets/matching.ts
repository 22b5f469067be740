/** The Matching sheet: the merchant's books and the service records they matched, side by side. */
import type { BooksStore } from '../../books/store.js';
import type { SheetSpec } from '../xlsx-writer.js';
import { money, date, PRINTED_EXCEPTIONS } from './rows.js';

const MATCHING_HEADER = [
  'status',
  'rule',
  'books',
  'side',
  'record',
  'reference',
  'type',
  'currency',
  'amount',
  'time (UTC)',
  'books file',
  'line',
  'gift card',
  'uses in books',
  'redemption count',
  'group',
  'findings',
];

/**
 * The latest matching of the merchant's books, a row per record: books rows and the service
 * records they matched side by side in groups (with the rule that matched them), and every
 * record that found no partner or matched only in part, listed (and printed) first.
 */
export async function matchingSheet(
  books: BooksStore,
  findingsOf: (...ids: (string | null)[]) => string,
): Promise<SheetSpec> {
  const exceptions = await books.unmatchedCount();
  const printed = Math.min(exceptions, PRINTED_EXCEPTIONS);
  return {
    name: 'Matching',
    header: MATCHING_HEADER,
    // One page wide at just over 70 %: what a row is, what it is about, where it is.
    fixedWidths: { 0: 16, 1: 11, 2: 12, 3: 8, 4: 19, 5: 18, 6: 8, 7: 9, 8: 13, 9: 19, 10: 16, 11: 5 },
    printColumns: 12,
    printRows: Math.max(printed, 1),
    printNote:
      exceptions === 0
        ? 'Printed: every record of the books and the services found its partner; the pairs are listed on screen'
        : `Printed: the ${printed.toLocaleString('en-US')} record${printed === 1 ? '' : 's'} without a partner, or matched only in part${exceptions > printed ? ` (of ${exceptions.toLocaleString('en-US')})` : ''}; the matched pairs follow on screen`,
    rows: (async function* () {
      for await (const r of books.matchRows()) {
        yield [
          r.status,
          r.rule,
          r.kind,
          r.side,
          r.recordId,
          r.reference,
          r.entryType,
          r.currency,
          money(r.amountCents, r.currency),
          date(r.atMs),
          r.file,
          r.line,
          r.giftCardId,
          r.booksCount,
          r.serviceCount,
          r.groupId,
          findingsOf(r.recordId),
        ];
      }
    })(),
  };
}
