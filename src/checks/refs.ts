/** Small helpers the checks share to name records and money the same way everywhere. */
import { formatMoney } from '../money.js';
import type { Measure, RecordRef } from './check.js';

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

export { closes as closesCard, movesMoney, signedAmount } from '../ledger/state.js';

export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}
