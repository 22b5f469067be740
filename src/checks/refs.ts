/** Small helpers the checks share to name records and money the same way everywhere. */
import { formatMoney } from '../money.js';
import type { CardLedger, LedgerEntry, Measure, RecordRef } from './check.js';

export const cardRef = (id: string): RecordRef => ({ type: 'giftCard', id });
export const entryRef = (id: string): RecordRef => ({ type: 'giftCardTransaction', id });
export const couponRef = (id: string): RecordRef => ({ type: 'coupon', id });
export const orderRef = (id: string): RecordRef => ({ type: 'dpOrder', id });
export const walletRef = (id: string): RecordRef => ({ type: 'dpWallet', id });

export const money = formatMoney;

/**
 * The stake key of a card's balance: the balance, tail, chain and entry arithmetic breaks of
 * one card point at the same missing or surplus money, which counts once.
 */
export const cardBalanceStake = (giftCardId: string): string => `balance of card ${giftCardId}`;

/** The stake key of an order's amounts: a wrong line and the order total it feeds count once. */
export const orderAmountStake = (orderId: string): string => `amounts of order ${orderId}`;

export function cents(expected: number, actual: number): Measure {
  return { unit: 'cents', expected, actual };
}

export function count(expected: number, actual: number): Measure {
  return { unit: 'count', expected, actual };
}

/** The entries that move money: DEBIT and REFUND (VOID and EXPIRE ignore their amount). */
export function movesMoney(entry: LedgerEntry): boolean {
  return entry.type === 'DEBIT' || entry.type === 'REFUND';
}

export function closesCard(entry: LedgerEntry): boolean {
  return entry.type === 'VOID' || entry.type === 'EXPIRE';
}

/** Σ DEBIT and Σ REFUND amounts of a card, or null when an amount is off the cent. */
export function ledgerSums(ledger: CardLedger): { debits: number; refunds: number } | null {
  let debits = 0;
  let refunds = 0;
  for (const entry of ledger.entries) {
    if (!movesMoney(entry)) continue;
    if (entry.amountCents === null) return null;
    if (entry.type === 'DEBIT') debits += entry.amountCents;
    else refunds += entry.amountCents;
  }
  return { debits, refunds };
}

/** The cents a DEBIT or REFUND should move the balance by: −amount, +amount; 0 otherwise. */
export function signedAmount(entry: LedgerEntry): number | null {
  if (entry.type === 'DEBIT') return entry.amountCents === null ? null : -entry.amountCents;
  if (entry.type === 'REFUND') return entry.amountCents;
  return 0;
}

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}
