/**
 * The merchant's own exports, written from the services' records as a merchant's order system
 * would have booked them, bent where the books plan says: tenders and refunds (CSV with a
 * thousands separator), coupon uses, and DP purchases (semicolons and decimal commas), every
 * time in the merchant's zone, each file with the mapping file that reads it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BooksPlan } from './books-plants.js';
import type { CardWire, CouponWire, EntryWire } from './giftcard-world.js';
import type { OrderWire } from './dp-world.js';

export interface BooksSource {
  merchantId: string;
  giftCards: readonly CardWire[];
  transactions: readonly EntryWire[];
  coupons: readonly CouponWire[];
  orders: readonly OrderWire[];
  /** Plaintext codes by their SHA-256: the books know the codes they sold. */
  codes: ReadonlyMap<string, string>;
}

/** The merchant's zone: the books write local times. */
export const BOOKS_ZONE = 'Europe/Berlin';

/** Writes tenders.csv, coupon-uses.csv, dp-purchases.csv and their maps into `dir`. @returns the paths written. */
export function writeBooksExport(dir: string, source: BooksSource, plan: BooksPlan): string[] {
  mkdirSync(dir, { recursive: true });
  const files: Array<[string, string]> = [
    ['tenders.csv', tendersCsv(source, plan)],
    [
      'tenders.map.json',
      json({
        columns: {
          reference: 'Order No',
          type: 'Tender Type',
          amount: 'Tender Amount',
          currency: 'Currency',
          time: 'Posted At',
          cardCode: 'Gift Card Code',
        },
        types: { payment: ['SALE'], refund: ['RETURN'] },
        decimalSeparator: '.',
        timeFormats: ['dd.MM.yyyy HH:mm:ss'],
        timeZone: BOOKS_ZONE,
      }),
    ],
    ['coupon-uses.csv', couponUsesCsv(source, plan)],
    [
      'coupon-uses.map.json',
      json({
        columns: { reference: 'Order No', couponCode: 'Coupon Code', time: 'Used At' },
        timeFormats: ['dd.MM.yyyy HH:mm:ss'],
        timeZone: BOOKS_ZONE,
      }),
    ],
    ['dp-purchases.csv', purchasesCsv(source, plan)],
    [
      'dp-purchases.map.json',
      json({
        delimiter: ';',
        columns: { externalRef: 'PO Number', amount: 'Amount', currency: 'Currency', time: 'Booked At' },
        decimalSeparator: ',',
        timeFormats: ['dd.MM.yyyy HH:mm:ss'],
        timeZone: BOOKS_ZONE,
      }),
    ],
  ];
  return files.map(([name, text]) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  });
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

interface Tender {
  reference: string;
  type: 'DEBIT' | 'REFUND';
  cents: number;
  currency: string;
  atMs: number;
  code: string;
}

function tendersCsv(source: BooksSource, plan: BooksPlan): string {
  const cards = new Map(source.giftCards.map((c) => [c.giftCardId, c]));
  const merged = new Map<string, string[]>();
  for (const group of plan.merge) for (const id of group) merged.set(id, group);
  const byId = new Map(source.transactions.map((e) => [e.transactionId, e]));
  const tenders: Tender[] = [];
  const written = new Set<string>();
  for (const entry of source.transactions) {
    const card = cards.get(entry.giftCardId);
    const cents = centsOf(entry.amount);
    if (
      !card ||
      card.merchantId !== source.merchantId ||
      (entry.type !== 'DEBIT' && entry.type !== 'REFUND') ||
      cents === null ||
      cents <= 0
    )
      continue;
    if (plan.omit.has(entry.transactionId) || written.has(entry.transactionId)) continue;
    const type = entry.type;
    const group = merged.get(entry.transactionId);
    if (group) {
      const parts = group.map((id) => byId.get(id)).filter((e): e is EntryWire => e !== undefined);
      for (const part of parts) written.add(part.transactionId);
      tenders.push({
        reference: entry.referenceId,
        type,
        cents: parts.reduce((sum, e) => sum + (centsOf(e.amount) ?? 0), 0),
        currency: card.currency,
        atMs: Math.max(...parts.map((e) => Date.parse(e.createdAt))),
        code: '',
      });
      continue;
    }
    const posReference = plan.byCode.get(entry.transactionId);
    const tender: Tender = {
      reference: posReference ?? entry.referenceId,
      type,
      cents: cents + (plan.alter.get(entry.transactionId) ?? 0),
      currency: card.currency,
      atMs: Date.parse(entry.createdAt),
      code: posReference !== undefined ? (source.codes.get(card.codeHash) ?? '') : '',
    };
    tenders.push(tender);
    if (plan.duplicate.has(entry.transactionId)) tenders.push({ ...tender });
  }
  for (const extra of plan.extraTenders) tenders.push({ ...extra, code: '' });
  tenders.sort((a, b) => a.atMs - b.atMs);
  const rows = tenders.map((t) => [
    t.reference,
    t.type === 'DEBIT' ? 'SALE' : 'RETURN',
    decimal(t.cents, '.', ','),
    t.currency,
    localTime(t.atMs),
    t.code,
  ]);
  return csv(',', ['Order No', 'Tender Type', 'Tender Amount', 'Currency', 'Posted At', 'Gift Card Code'], rows);
}

function couponUsesCsv(source: BooksSource, plan: BooksPlan): string {
  const uses: Array<{ reference: string; code: string; atMs: number }> = [];
  for (const coupon of source.coupons) {
    if (coupon.merchantId !== source.merchantId || typeof coupon.redemptionCount !== 'number') continue;
    const code = source.codes.get(coupon.codeHash);
    if (code === undefined) continue;
    const count = coupon.redemptionCount - (plan.fewerUses.get(coupon.couponId) ?? 0);
    const from = Date.parse(coupon.createdAt);
    const span = Math.max(Date.parse(coupon.updatedAt) - from, 60_000);
    for (let k = 0; k < count; k += 1)
      uses.push({
        reference: `WEB-${coupon.couponId.slice(0, 8)}-${k + 1}`,
        code,
        atMs: from + Math.floor(((k + 1) * span) / (count + 1)),
      });
  }
  uses.sort((a, b) => a.atMs - b.atMs);
  return csv(
    ',',
    ['Order No', 'Coupon Code', 'Used At'],
    uses.map((u) => [u.reference, u.code, localTime(u.atMs)]),
  );
}

function purchasesCsv(source: BooksSource, plan: BooksPlan): string {
  const purchases: Array<{ externalRef: string; cents: number; currency: string; atMs: number }> = [];
  for (const order of source.orders) {
    const cents = centsOf(order.totalAmount);
    if (order.status === 'FAILED' || cents === null || plan.omitOrders.has(order.orderID)) continue;
    purchases.push({
      externalRef: order.externalRefID,
      cents: cents + (plan.alterOrders.get(order.orderID) ?? 0),
      currency: order.currency,
      atMs: Date.parse(order.createdAt),
    });
  }
  purchases.push(...plan.extraPurchases);
  purchases.sort((a, b) => a.atMs - b.atMs);
  return csv(
    ';',
    ['PO Number', 'Amount', 'Currency', 'Booked At'],
    purchases.map((p) => [p.externalRef, decimal(p.cents, ',', '.'), p.currency, localTime(p.atMs)]),
  );
}

/** A wire amount in cents, or null when it is not a number on the cent. */
function centsOf(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const cents = Math.round(value * 100);
  return Math.abs(value * 100 - cents) < 1e-6 ? cents : null;
}

/** Cents as the merchant's system writes them: 1,234.50 (or 1.234,50). */
function decimal(cents: number, separator: string, thousands: string): string {
  const units = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, thousands);
  return `${units}${separator}${String(cents % 100).padStart(2, '0')}`;
}

const LOCAL = new Intl.DateTimeFormat('en-GB', {
  timeZone: BOOKS_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** dd.MM.yyyy HH:mm:ss on the merchant's wall clock. */
function localTime(ms: number): string {
  const part = Object.fromEntries(LOCAL.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return `${part['day']}.${part['month']}.${part['year']} ${part['hour']}:${part['minute']}:${part['second']}`;
}

function csv(delimiter: string, header: string[], rows: string[][]): string {
  const field = (value: string): string =>
    value.includes(delimiter) || /["\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  return `${[header, ...rows].map((row) => row.map(field).join(delimiter)).join('\n')}\n`;
}
