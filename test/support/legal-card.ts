/**
 * A legal gift card for the ledger's property tests: every entry links to the one before it, and
 * its snapshot holds its ledger's balance.
 */
import fc from 'fast-check';
import type { WalkedCard } from '../../src/ledger/walk.js';
import { cents } from '../../src/money.js';

/** One move of a card, `gapMs` after the one before it (or its issue). */
export type LegalOp =
  | { kind: 'DEBIT' | 'REFUND'; cents: number; gapMs: number }
  | { kind: 'VOID' | 'EXPIRE'; gapMs: number };

export interface LegalCardSpec {
  initial: number;
  issuedAtMs: number;
  currency: string;
  merchantId: string;
  programId: string | null;
  expiresAtMs: number;
  readAtMs: number;
  ops: readonly LegalOp[];
}

/** Card `index` (its ID `card-0007`): a debit takes at most the balance, a move of 0 is left out, nothing follows a VOID or EXPIRE. */
export function legalCard(index: number, spec: LegalCardSpec): WalkedCard {
  let balance = spec.initial;
  let at = spec.issuedAtMs;
  const entries: WalkedCard['entries'] = [];
  let closed = false;
  for (const [i, op] of spec.ops.entries()) {
    if (closed) break;
    at += op.gapMs;
    const before = balance;
    if (op.kind === 'DEBIT') balance -= Math.min(op.cents, balance);
    else if (op.kind === 'REFUND') balance += op.cents;
    else closed = true;
    const amount = op.kind === 'DEBIT' || op.kind === 'REFUND' ? Math.abs(balance - before) : 0;
    if ((op.kind === 'DEBIT' || op.kind === 'REFUND') && amount === 0) continue;
    entries.push({
      transactionId: `t${index}-${i}`,
      type: op.kind,
      amountCents: cents(amount),
      beforeCents: cents(before),
      afterCents: cents(balance),
      referenceId: `r${index}`,
      idempotencyKey: `k${index}-${i}`,
      createdAtMs: at,
      listOrder: i,
      firstSyncRunId: 1,
    });
  }
  return {
    card: {
      giftCardId: `card-${String(index).padStart(4, '0')}`,
      merchantId: spec.merchantId,
      status: closed ? 'INACTIVE' : 'ACTIVE',
      currency: spec.currency,
      programId: spec.programId,
      issuedAtMs: spec.issuedAtMs,
      initialCents: cents(spec.initial),
      remainingCents: cents(balance),
      expiresAtMs: spec.expiresAtMs,
      readAtMs: spec.readAtMs,
    },
    entries,
    firstSyncRunId: 1,
  };
}

/** A move `gap` units after the one before: DEBIT or REFUND `moveWeight` times as often as VOID or EXPIRE. */
export type GapOp = { kind: 'DEBIT' | 'REFUND'; cents: number; gap: number } | { kind: 'VOID' | 'EXPIRE'; gap: number };

/** Moves of a legal card: amounts of 0.01 to 50.00, gaps of 1 to `moveGap` (a VOID or EXPIRE: `closeGap`) units. */
export function legalOp(moveWeight: number, moveGap: number, closeGap: number): fc.Arbitrary<GapOp> {
  return fc.oneof(
    {
      weight: moveWeight,
      arbitrary: fc.record({
        kind: fc.constantFrom('DEBIT' as const, 'REFUND' as const),
        cents: fc.integer({ min: 1, max: 5_000 }),
        gap: fc.integer({ min: 1, max: moveGap }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constantFrom('VOID' as const, 'EXPIRE' as const),
        gap: fc.integer({ min: 1, max: closeGap }),
      }),
    },
  );
}
