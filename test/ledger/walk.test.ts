import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { orderByLinks, walkCardLedgers } from '../../src/ledger/walk.js';
import { DEFAULT_CHECK_OPTIONS, type CardCheck, type CardLedger } from '../../src/checks/check.js';
import { CATALOGUE, type CheckCode } from '../../src/checks/index.js';
import { cardLedger, FixtureMirror, MERCHANT, T0, type Op } from '../support/fixtures.js';
import { mirrorAt } from '../support/test-db.js';
import { cents } from '../../src/money.js';
import { runs } from '../support/property.js';

const CARD_CHECKS = CATALOGUE.filter((c): c is CardCheck<CheckCode> => c.kind === 'card');
const breaksOf = (ledger: CardLedger) =>
  CARD_CHECKS.flatMap((check) =>
    check
      .inspect(ledger, { options: DEFAULT_CHECK_OPTIONS, merchantId: MERCHANT })
      .map((f) => ({ code: check.code, severity: check.severity, ...f })),
  );

/** Every card a walk hands out, in order. */
async function walked_<T>(batches: AsyncIterable<T[]>): Promise<T[]> {
  const all: T[] = [];
  for await (const batch of batches) all.push(...batch);
  return all;
}

describe('the card walk', () => {
  let dir: string;
  let fx: FixtureMirror;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-walk-'));
    fx = await FixtureMirror.open(mirrorAt(dir));
  });
  afterEach(async () => {
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('yields every card with its own entries oldest first, skipping orphans and vanished entries', async () => {
    const named = (ledger: CardLedger, prefix: string): CardLedger => ({
      ...ledger,
      entries: ledger.entries.map((e) => ({ ...e, transactionId: `${prefix}-${e.transactionId}` })),
    });
    fx.ledger(
      named(
        cardLedger(
          1_000,
          [
            { type: 'DEBIT', amount: 100 },
            { type: 'DEBIT', amount: 200 },
          ],
          { giftCardId: 'b' },
        ),
        'b',
      ),
    );
    fx.ledger(cardLedger(500, [], { giftCardId: 'a' }));
    fx.entry('0-orphan', named(cardLedger(1, [{ type: 'DEBIT', amount: 1 }]), 'o').entries[0]!);
    fx.ledger(named(cardLedger(900, [{ type: 'DEBIT', amount: 1 }], { giftCardId: 'c' }), 'c'));
    fx.run("UPDATE gift_card_transactions SET vanished_sync_run_id = 1 WHERE gift_card_id = 'c'");
    const orphans: string[] = [];
    const walked = (await walked_(walkCardLedgers(fx.mirror, (id) => orphans.push(id)))).map((l) => [
      l.card.giftCardId,
      l.entries.map((e) => e.transactionId),
    ]);
    expect(walked).toEqual([
      ['a', []],
      ['b', ['b-entry-1', 'b-entry-2']],
      ['c', []],
    ]);
    expect(orphans).toEqual(['0-orphan']);
  });

  it('orders equal createdAt by list order, never by ID', async () => {
    const ledger = cardLedger(5_000, [
      { type: 'DEBIT', amount: 500, at: T0 },
      { type: 'DEBIT', amount: 700, at: T0 },
    ]);
    ledger.entries[0]!.transactionId = 'zzz';
    ledger.entries[1]!.transactionId = 'aaa';
    fx.ledger(ledger);
    const [walked] = await walked_(walkCardLedgers(fx.mirror));
    expect(walked?.entries.map((e) => e.transactionId)).toEqual(['zzz', 'aaa']);
    expect(breaksOf(walked!)).toEqual([]);
  });
});

describe('ordering by the chain’s links', () => {
  it('mends equal timestamps whose list order disagrees with the chain', () => {
    const ledger = cardLedger(1_000, [
      { type: 'DEBIT', amount: 300, at: T0 },
      { type: 'REFUND', amount: 300, ref: 'ORD-1', at: T0 },
      { type: 'DEBIT', amount: 200, at: T0 },
    ]);
    const scrambled = [ledger.entries[2]!, ledger.entries[0]!, ledger.entries[1]!];
    expect(orderByLinks(scrambled, 1_000).map((e) => e.transactionId)).toEqual(['entry-1', 'entry-2', 'entry-3']);
  });

  it('keeps list order when no order links up (a real gap stays visible)', () => {
    const ledger = cardLedger(1_000, [
      { type: 'DEBIT', amount: 300, at: T0 },
      { type: 'DEBIT', amount: 200, at: T0 },
    ]);
    ledger.entries[1]!.beforeCents = cents(650);
    expect(orderByLinks(ledger.entries, 1_000).map((e) => e.transactionId)).toEqual(['entry-1', 'entry-2']);
  });
});

/** Ledgers by the spec's rules: debits within the balance, refunds only against earlier debits under their reference, nothing after a VOID or EXPIRE. */
const legalLedger = fc
  .record({
    initial: fc.integer({ min: 0, max: 100_000 }),
    steps: fc.array(
      fc.record({
        kind: fc.constantFrom('debit', 'refund'),
        fraction: fc.double({ min: 0, max: 1, noNaN: true }),
        pick: fc.nat(),
        gapMs: fc.constantFrom(0, 0, 1, 1_000, 60_000, 86_400_000),
      }),
      { maxLength: 25 },
    ),
    close: fc.constantFrom(null, 'VOID', 'EXPIRE'),
  })
  .map(({ initial, steps, close }) => {
    let balance = initial;
    let at = T0;
    const refundable: Array<{ ref: string; left: number }> = [];
    const ops: Op[] = [];
    steps.forEach((step, i) => {
      at += step.gapMs;
      if (step.kind === 'debit' && balance > 0) {
        const amount = Math.max(1, Math.floor(balance * step.fraction));
        const ref = `ORD-${i}`;
        ops.push({ type: 'DEBIT', amount, ref, at });
        refundable.push({ ref, left: amount });
        balance -= amount;
      } else if (step.kind === 'refund') {
        const open = refundable.filter((r) => r.left > 0);
        const target = open[step.pick % Math.max(open.length, 1)];
        if (!target) return;
        const amount = Math.max(1, Math.floor(target.left * step.fraction));
        ops.push({ type: 'REFUND', amount, ref: target.ref, at });
        target.left -= amount;
        balance += amount;
      }
    });
    if (close) ops.push({ type: close, at: at + 1 });
    return cardLedger(initial, ops);
  });

describe('properties of the card checks', () => {
  it('find no error or warning in a ledger built by the spec’s rules, in whatever list order equal timestamps come', () => {
    fc.assert(
      fc.property(legalLedger, fc.nat(), (ledger, seed) => {
        // The service may list entries of one millisecond in any order: scramble them.
        const scrambled = [...ledger.entries].sort(
          (a, b) =>
            a.createdAtMs - b.createdAtMs || ((a.listOrder * 7919 + seed) % 13) - ((b.listOrder * 7919 + seed) % 13),
        );
        const walked = { card: ledger.card, entries: orderByLinks(scrambled, ledger.card.initialCents) };
        expect(breaksOf(walked).filter((f) => f.severity !== 'info')).toEqual([]);
      }),
      runs(300),
    );
  });

  it('find a random planted break on the record where it was planted', () => {
    const planted = legalLedger
      .filter((l) => l.entries.length >= 2)
      .chain((ledger) =>
        fc.record({
          ledger: fc.constant(ledger),
          kind: fc.constantFrom('remove-entry', 'alter-after', 'alter-remaining'),
          index: fc.nat({ max: ledger.entries.length - 1 }),
          by: fc.integer({ min: 1, max: 5_000 }),
        }),
      );
    fc.assert(
      fc.property(planted, ({ ledger, kind, index, by }) => {
        const entries = ledger.entries.map((e) => ({ ...e }));
        const card = { ...ledger.card };
        let expected: { code: CheckCode; entityId: string };
        const target = entries[index]!;
        if (kind === 'remove-entry') {
          fc.pre(target.type === 'DEBIT' || target.type === 'REFUND');
          entries.splice(index, 1);
          const next = entries[index];
          expected = next
            ? { code: 'GC_CHAIN_GAP', entityId: next.transactionId }
            : { code: 'GC_BALANCE_MISMATCH', entityId: card.giftCardId };
        } else if (kind === 'alter-after') {
          target.afterCents = cents((target.afterCents ?? 0) + by);
          expected = { code: 'GC_ENTRY_ARITHMETIC', entityId: target.transactionId };
        } else {
          card.remainingCents = cents((card.remainingCents ?? 0) + by);
          expected = { code: 'GC_BALANCE_MISMATCH', entityId: card.giftCardId };
        }
        const found = breaksOf({ card, entries }).map((f) => ({ code: f.code, entityId: f.entityId }));
        expect(found).toContainEqual(expected);
      }),
      runs(300),
    );
  });
});
