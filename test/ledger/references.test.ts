import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byReference, type ReferencedEntry, refundGroupsOf } from '../../src/ledger/references.js';
import { type Cents, cents } from '../../src/money.js';

const entry = fc.record({
  type: fc.constantFrom('DEBIT', 'REFUND', 'VOID', 'EXPIRE'),
  referenceId: fc.constantFrom('ORD-1', 'ORD-2', 'ORD-3'),
  amountCents: fc.option(
    fc.integer({ min: 0, max: 100_000 }).map((n) => cents(n)),
    { freq: 10, nil: null },
  ),
});

/** The groups worked out by hand, without the ledger stage. */
function expected(
  entries: readonly ReferencedEntry[],
): Map<string, { debited: Cents | null; refunded: Cents | null; n: number }> {
  const out = new Map<string, { debited: Cents | null; refunded: Cents | null; n: number }>();
  for (const e of entries) {
    if (e.type !== 'DEBIT' && e.type !== 'REFUND') continue;
    const g = out.get(e.referenceId) ?? { debited: cents(0), refunded: cents(0), n: 0 };
    const key = e.type === 'DEBIT' ? 'debited' : 'refunded';
    g[key] = g[key] === null || e.amountCents === null ? null : cents(g[key] + e.amountCents);
    g.n += 1;
    out.set(e.referenceId, g);
  }
  return out;
}

describe('refunds by reference', () => {
  it("group each card's entries by reference, whichever cards came before it, and hand the same groups to each caller of that card (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.array(entry, { maxLength: 12 }), { maxLength: 20 }), (cards) => {
        for (const entries of cards) {
          const groups = byReference(entries);
          // The walk's next callers of the same card: the same groups, not grouped again.
          expect(byReference(entries)).toBe(groups);
          const want = expected(entries);
          expect([...groups.keys()]).toEqual([...want.keys()]);
          for (const [reference, group] of groups) {
            expect(group.debitedCents).toBe(want.get(reference)!.debited);
            expect(group.refundedCents).toBe(want.get(reference)!.refunded);
            expect(group.debits.length + group.refunds.length).toBe(want.get(reference)!.n);
          }
          // An equal card's entries in another array are grouped afresh, to the same figures.
          expect(byReference([...entries])).not.toBe(groups);
          expect(byReference([...entries])).toEqual(groups);
        }
      }),
    );
  });

  it("list a reference with a refund with its refunds' IDs, in ledger order", () => {
    const entries = [
      { type: 'DEBIT', referenceId: 'A', amountCents: cents(500), transactionId: 't1' },
      { type: 'REFUND', referenceId: 'B', amountCents: cents(100), transactionId: 't2' },
      { type: 'REFUND', referenceId: 'A', amountCents: cents(200), transactionId: 't3' },
      { type: 'DEBIT', referenceId: 'C', amountCents: cents(50), transactionId: 't4' },
      { type: 'REFUND', referenceId: 'A', amountCents: null, transactionId: 't5' },
    ];
    expect(refundGroupsOf(entries)).toEqual([
      { referenceId: 'A', debits: 1, refunds: 2, debitedCents: 500, refundedCents: null, refundIds: ['t3', 't5'] },
      { referenceId: 'B', debits: 0, refunds: 1, debitedCents: 0, refundedCents: 100, refundIds: ['t2'] },
    ]);
  });
});
