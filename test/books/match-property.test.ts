/**
 * The matching rules as properties: books written from a legal ledger match it completely, and
 * one row dropped, doubled or changed on either side gives exactly the break for that row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MATCH_OPTIONS,
  matchTenders,
  type BooksTender,
  type LedgerTender,
  type TenderGroup,
} from '../../src/books/match.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-10-01T00:00:00Z');

/** An order: a payment on one card or split over two (different amounts), perhaps a refund later. */
const order = fc.record({
  parts: fc.uniqueArray(fc.integer({ min: 1, max: 500_000 }), { minLength: 1, maxLength: 2 }),
  refund: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
  atMinutes: fc.integer({ min: 0, max: 30 * 24 * 60 }),
  currency: fc.constantFrom('USD', 'EUR', 'INR'),
});

interface Order {
  parts: number[];
  refund: number | undefined;
  atMinutes: number;
  currency: string;
}

/** A legal ledger from orders, each under its own reference, and the books a faithful merchant keeps of it. */
function worldOf(orders: Order[]): { ledger: LedgerTender[]; books: BooksTender[] } {
  const ledger: LedgerTender[] = [];
  orders.forEach((o, i) => {
    const reference = `ORD-${i}`;
    const atMs = T0 + o.atMinutes * 60_000;
    for (const [p, cents] of o.parts.entries())
      ledger.push({
        transactionId: `e-${i}-${p}`,
        giftCardId: `card-${i}-${p}`,
        type: 'DEBIT',
        amountCents: cents,
        currency: o.currency,
        reference,
        atMs: atMs + p,
      });
    // A refund of part of the first card's debit, a day later.
    if (o.refund !== undefined)
      ledger.push({
        transactionId: `e-${i}-r`,
        giftCardId: `card-${i}-0`,
        type: 'REFUND',
        amountCents: Math.max(1, Math.floor((o.parts[0]! * o.refund) / 100)),
        currency: o.currency,
        reference,
        atMs: atMs + DAY,
      });
  });
  const books = ledger.map(
    (e, n): BooksTender => ({
      rowId: n + 1,
      reference: e.reference,
      type: e.type,
      amountCents: e.amountCents,
      currency: e.currency,
      atMs: e.atMs + 1_000,
      giftCardId: null,
    }),
  );
  return { ledger, books };
}

const match = (books: BooksTender[], ledger: LedgerTender[]): TenderGroup[] =>
  matchTenders(books, ledger, DEFAULT_MATCH_OPTIONS, T0 + 60 * DAY);
const breaks = (groups: TenderGroup[]) => groups.filter((g) => g.status !== 'matched');
const orders = fc.array(order, { minLength: 1, maxLength: 25 });

describe('matching the books, as properties', () => {
  it('matches books written from a legal world completely, each books row and entry once', () => {
    fc.assert(
      fc.property(orders, (os) => {
        const { ledger, books } = worldOf(os);
        const groups = match(books, ledger);
        expect(breaks(groups)).toEqual([]);
        expect(groups.flatMap((g) => g.books).length).toBe(books.length);
        expect(groups.flatMap((g) => g.ledger).length).toBe(ledger.length);
      }),
    );
  });

  it('gives exactly the break for one books row dropped, doubled or changed', () => {
    fc.assert(
      fc.property(
        orders,
        fc.nat(),
        fc.constantFrom('drop', 'double', 'change'),
        fc.integer({ min: 1, max: 999 }),
        (os, pick, change, delta) => {
          const { ledger, books } = worldOf(os);
          const at = pick % books.length;
          const row = books[at]!;
          const entry = ledger[at]!;
          let changed = books;
          if (change === 'drop') changed = books.filter((_, i) => i !== at);
          if (change === 'double') changed = [...books, { ...row, rowId: books.length + 1 }];
          // Changed to an amount no other row of the reference and type has.
          const others = new Set(
            books.filter((b) => b.reference === row.reference && b.type === row.type).map((b) => b.amountCents),
          );
          let amount = row.amountCents + delta;
          while (others.has(amount)) amount += 1;
          if (change === 'change') changed = books.map((b, i) => (i === at ? { ...b, amountCents: amount } : b));
          const found = breaks(match(changed, ledger));
          expect(found).toHaveLength(1);
          const expected = { drop: 'unmatched', double: 'duplicate', change: 'amount-mismatch' }[change];
          expect(found[0]?.status).toBe(expected);
          expect(found[0]?.ledger.map((e) => e.transactionId)).toEqual([entry.transactionId]);
          if (change !== 'drop')
            expect(found[0]?.books.map((b) => b.amountCents)).toEqual([change === 'change' ? amount : row.amountCents]);
        },
      ),
    );
  });

  it('gives exactly the break for one ledger entry dropped, doubled or changed', () => {
    fc.assert(
      fc.property(
        orders,
        fc.nat(),
        fc.constantFrom('drop', 'double', 'change'),
        fc.integer({ min: 1, max: 999 }),
        (os, pick, change, delta) => {
          const { ledger, books } = worldOf(os);
          const at = pick % ledger.length;
          const entry = ledger[at]!;
          let changed = ledger;
          if (change === 'drop') changed = ledger.filter((_, i) => i !== at);
          if (change === 'double')
            changed = [
              ...ledger,
              { ...entry, transactionId: `${entry.transactionId}-again`, atMs: entry.atMs + 5_000 },
            ];
          const others = new Set(
            ledger.filter((e) => e.reference === entry.reference && e.type === entry.type).map((e) => e.amountCents),
          );
          let amount = entry.amountCents + delta;
          while (others.has(amount)) amount += 1;
          if (change === 'change') changed = ledger.map((e, i) => (i === at ? { ...e, amountCents: amount } : e));
          const found = breaks(match(books, changed));
          expect(found).toHaveLength(1);
          expect(found[0]?.status).toBe({ drop: 'unmatched', double: 'unmatched', change: 'amount-mismatch' }[change]);
          if (change === 'drop') expect(found[0]?.books.map((b) => b.rowId)).toEqual([books[at]!.rowId]);
          if (change === 'double')
            expect(found[0]?.ledger.map((e) => e.transactionId)).toEqual([`${entry.transactionId}-again`]);
          if (change === 'change') expect(found[0]?.ledger.map((e) => e.amountCents)).toEqual([amount]);
        },
      ),
    );
  });
});
