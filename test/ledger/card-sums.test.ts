import { deflateRawSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK_CARDS, CardSumsTally, KeptChunk } from '../../src/ledger/card-sums.js';
import { type RefundGroup, refundGroupsOf } from '../../src/ledger/references.js';
import type { CardSums } from '../../src/ledger/state.js';
import { cardReconciliation, cardSums, reconciliationOf } from '../../src/ledger/state.js';
import type { CardLedger } from '../../src/ledger/types.js';
import { cents, type Cents } from '../../src/money.js';
import { runs } from '../support/property.js';

const amount = fc.option(
  fc.integer({ min: 0, max: 2 ** 40 }).map((n) => cents(n)),
  { freq: 12, nil: null },
);
const entry = fc.record({
  type: fc.constantFrom('DEBIT', 'REFUND', 'VOID', 'EXPIRE'),
  amountCents: amount,
  // Few references, some not ASCII: groups of several debits and refunds, and texts of any UTF-8 length.
  referenceId: fc.constantFrom('ORD-1', 'ORD-2', 'Bestellung-ä€', ''),
});
const card = fc.record({
  id: fc.uuid(),
  initialCents: amount,
  remainingCents: amount,
  entries: fc.array(entry, { maxLength: 8 }),
});

/** A walked card of the given figures (the sums read only its ID, initial, remaining and entries' types and amounts). */
function ledgerOf(c: {
  id: string;
  initialCents: Cents | null;
  remainingCents: Cents | null;
  entries: { type: string; amountCents: Cents | null; referenceId?: string }[];
}): CardLedger {
  return {
    card: {
      giftCardId: c.id,
      merchantId: 'm',
      status: 'ACTIVE',
      currency: 'USD',
      programId: null,
      issuedAtMs: 0,
      initialCents: c.initialCents,
      remainingCents: c.remainingCents,
      expiresAtMs: 0,
      readAtMs: 0,
    },
    entries: c.entries.map((e, i) => ({
      transactionId: `${c.id}-t${i}`,
      type: e.type,
      amountCents: e.amountCents,
      beforeCents: null,
      afterCents: null,
      referenceId: e.referenceId ?? 'r',
      idempotencyKey: `k${i}`,
      createdAtMs: i,
      listOrder: i,
    })),
  };
}

/** The tally's kept chunks read back: the sums and references at a position, once the card's ID there is shown. */
function readBack(tally: CardSumsTally): {
  cards: number;
  at: (position: number, id: string) => CardSums;
  groupsAt: (position: number) => RefundGroup[];
} {
  const kept = tally.kept();
  const chunks = kept.chunks.map(({ record }) => KeptChunk.of(record)!);
  const chunkOf = (position: number): KeptChunk => chunks[Math.floor(position / CHUNK_CARDS)]!;
  return {
    cards: kept.cards,
    at: (position, id) => {
      if (!chunkOf(position).holds(position % CHUNK_CARDS, id)) throw new Error(`not ${id} at ${position}`);
      return chunkOf(position).at(position % CHUNK_CARDS);
    },
    groupsAt: (position) => chunkOf(position).refundGroupsAt(position % CHUNK_CARDS),
  };
}

describe("a run's kept card sums", () => {
  it('read back, card by card, the sums, the reconciliation and the references with a refund the ledger stage gives (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(card, { maxLength: 5_000, selector: (c) => c.id }), (cards) => {
        const tally = new CardSumsTally();
        const walked = cards.map(ledgerOf);
        for (const w of walked) tally.add(w);
        const kept = readBack(tally);
        expect(kept.cards).toBe(cards.length);
        cards.forEach((c, i) => {
          const sums = kept.at(i, c.id);
          expect(sums).toEqual(cardSums(c.entries));
          expect(reconciliationOf(c, sums)).toEqual(cardReconciliation(c, c.entries));
          expect(kept.groupsAt(i)).toEqual(refundGroupsOf(walked[i]!.entries));
        });
      }),
      runs(30),
    );
  });

  it('hold any number of cards, a chunk of 16,384 at a time', () => {
    const tally = new CardSumsTally();
    const n = 2 * CHUNK_CARDS + 5;
    for (let i = 0; i < n; i++)
      tally.add(
        ledgerOf({
          id: `card-${i}`,
          initialCents: cents(10_000),
          remainingCents: cents(10_000 - i),
          entries: [{ type: 'DEBIT', amountCents: cents(i) }],
        }),
      );
    const kept = readBack(tally);
    expect(kept.cards).toBe(n);
    expect(tally.kept().chunks.map((chunk) => chunk.cards)).toEqual([CHUNK_CARDS, CHUNK_CARDS, 5]);
    expect(tally.kept().chunks.map(({ record }) => KeptChunk.of(record)?.count)).toEqual([CHUNK_CARDS, CHUNK_CARDS, 5]);
    for (const i of [0, CHUNK_CARDS - 1, CHUNK_CARDS, 2 * CHUNK_CARDS, n - 1])
      expect(kept.at(i, `card-${i}`)).toEqual({ debitedCents: i, refundedCents: 0, unknownAmount: false, entries: 1 });
  });

  it("tell a card read back in another card's place, and refuse a record of another layout or length", () => {
    const tally = new CardSumsTally();
    tally.add(ledgerOf({ id: 'card-a', initialCents: cents(500), remainingCents: cents(500), entries: [] }));
    const record = tally.kept().chunks[0]?.record;
    const chunk = KeptChunk.of(record!)!;
    expect(chunk.holds(0, 'card-a')).toBe(true);
    expect(chunk.holds(0, 'card-b')).toBe(false);
    expect(chunk.holds(1, 'card-a')).toBe(false);
    const raw = inflateRawSync(record!);
    const otherLayout = Buffer.from(raw);
    otherLayout.writeUInt32LE(1, 0);
    expect(KeptChunk.of(deflateRawSync(otherLayout))).toBeNull();
    expect(KeptChunk.of(deflateRawSync(raw.subarray(0, raw.length - 1)))).toBeNull();
    expect(KeptChunk.of(record!.subarray(0, record!.length - 1))).toBeNull();
    expect(KeptChunk.of(Buffer.from('not deflated'))).toBeNull();
    expect(KeptChunk.of(Buffer.alloc(0))).toBeNull();
  });
});
