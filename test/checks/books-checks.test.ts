import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importBooksFile } from '../../src/books/import-books.js';
import { matchBooks } from '../../src/books/matching.js';
import type { BooksKind } from '../../src/books/books-map.js';
import {
  DEFAULT_CHECK_OPTIONS,
  type CardLedger,
  type CheckContext,
  type CheckOptions,
  type FindingDraft,
  type RowsCheck,
} from '../../src/checks/check.js';
import { checksStore } from '../../src/checks/store.js';
import { BOOKS_CODES, CHECKS } from '../../src/checks/index.js';
import { booksMatchOptions } from '../../src/checks/run-checks.js';
import { sha256 } from '../../src/sync/rows.js';
import { cardLedger, FixtureMirror, MERCHANT, T0 } from '../support/fixtures.js';
import { mirrorAt } from '../support/test-db.js';

let dir: string;
let fx: FixtureMirror;
let files = 0;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-books-checks-'));
  fx = await FixtureMirror.open(mirrorAt(dir));
  files = 0;
});
afterEach(async () => {
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (ms: number): string => new Date(ms).toISOString();

/** Writes rows as a CSV export of `kind` and imports it, as `ledger-recon books import` would. */
async function books(kind: BooksKind, rows: Array<Record<string, string>>): Promise<void> {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const path = join(dir, `${kind}-${(files += 1)}.csv`);
  writeFileSync(path, [columns.join(','), ...rows.map((r) => columns.map((c) => r[c] ?? '').join(','))].join('\n'));
  const result = await importBooksFile(fx.mirror, path, { kind });
  expect(result.problems).toEqual([]);
}

const tender = (
  reference: string,
  amount: string,
  minutes: number,
  extra: Record<string, string> = {},
): Record<string, string> => ({
  reference,
  amount,
  currency: 'USD',
  time: at(T0 + minutes * MINUTE),
  type: 'payment',
  ...extra,
});

type BooksCode = (typeof BOOKS_CODES)[number];

/** A books check as the runner runs it: its groups read through the checks' store, then its pure decision. */
async function readAndDecide(code: BooksCode, context: CheckContext): Promise<FindingDraft[]> {
  const check = CHECKS[code] as RowsCheck;
  return check.decide(await check.read(checksStore(context), context), context);
}

/** Matches the books and runs one check, as a check run does. */
async function run(code: BooksCode, options: Partial<CheckOptions> = {}): Promise<FindingDraft[]> {
  const context = fx.context({ options: { ...DEFAULT_CHECK_OPTIONS, ...options } });
  await matchBooks(fx.mirror, {
    asOfMs: context.asOfMs,
    merchantId: MERCHANT,
    options: booksMatchOptions(context.options),
  });
  return readAndDecide(code, context);
}

/** Every books code's findings after one matching: a look-alike must raise none of them. */
async function allBooksFindings(options: Partial<CheckOptions> = {}) {
  await run('BK_IN_TRANSIT', options);
  const context = fx.context({ options: { ...DEFAULT_CHECK_OPTIONS, ...options } });
  const found = [];
  for (const code of BOOKS_CODES) found.push(...(await readAndDecide(code, context)).map((f) => ({ code, ...f })));
  return found;
}

/** A second card's ledger, its entries named after it so that they do not collide with card-1's. */
const secondCard = (ledger: CardLedger): CardLedger => ({
  ...ledger,
  entries: ledger.entries.map((e) => ({ ...e, transactionId: `${ledger.card.giftCardId}-${e.transactionId}` })),
});

/** A late row so that the end of the books data lies well after the rows under test. */
const LATE = { reference: 'ORD-LATE', amount: '1.00', currency: 'USD', time: at(T0 + 47 * HOUR), type: 'payment' };

describe('BK_LEDGER_NOT_IN_BOOKS', () => {
  it('flags a debit the books do not hold, naming the entry and its card', async () => {
    fx.ledger(
      cardLedger(10_000, [
        { type: 'DEBIT', amount: 1_000, ref: 'ORD-1' },
        { type: 'DEBIT', amount: 500, ref: 'ORD-2' },
      ]),
    );
    await books('tenders', [tender('ORD-1', '10.00', 1), LATE]);
    const [finding, ...rest] = await run('BK_LEDGER_NOT_IN_BOOKS');
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      entityType: 'giftCardTransaction',
      entityId: 'entry-2',
      giftCardId: 'card-1',
      referenceId: 'ORD-2',
      currency: 'USD',
      atStakeCents: 500,
    });
    expect(finding?.records).toEqual([
      { type: 'giftCard', id: 'card-1' },
      { type: 'giftCardTransaction', id: 'entry-2' },
    ]);
    expect(finding?.message).toContain('USD 5.00');
  });

  it('passes a tender split across two cards (one-to-many)', async () => {
    fx.ledger(cardLedger(2_000, [{ type: 'DEBIT', amount: 2_000, ref: 'ORD-1' }]));
    fx.ledger(
      secondCard(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }], { giftCardId: 'card-2' })),
    );
    await books('tenders', [tender('ORD-1', '30.00', 1), LATE]);
    expect((await allBooksFindings()).filter((f) => f.referenceId !== 'ORD-LATE')).toEqual([]);
    expect(await fx.column("SELECT DISTINCT rule FROM books_matches WHERE reference = 'ORD-1'")).toEqual([
      'one-to-many',
    ]);
  });
});

describe('BK_BOOKS_NOT_IN_LEDGER', () => {
  it('flags a books payment with no entry, naming its file and line', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.00', 1), tender('ORD-9', '12.34', 5), LATE]);
    const findings = await run('BK_BOOKS_NOT_IN_LEDGER');
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ entityType: 'booksRow', referenceId: 'ORD-9', atStakeCents: 1_234 });
    expect(findings[0]?.message).toMatch(/^tenders-1\.csv line 3: payment of USD 12\.34 under reference ORD-9/);
  });

  it('passes a refund in three parts on the ledger booked as one refund a day later', async () => {
    fx.ledger(
      cardLedger(10_000, [
        { type: 'DEBIT', amount: 6_000, ref: 'ORD-1' },
        { type: 'REFUND', amount: 1_000, ref: 'ORD-1', at: T0 + 24 * HOUR },
        { type: 'REFUND', amount: 2_000, ref: 'ORD-1', at: T0 + 24 * HOUR + MINUTE },
        { type: 'REFUND', amount: 500, ref: 'ORD-1', at: T0 + 24 * HOUR + 2 * MINUTE },
      ]),
    );
    await books('tenders', [
      tender('ORD-1', '60.00', 1),
      { ...tender('ORD-1', '35.00', 24 * 60 + 3), type: 'refund' },
      LATE,
    ]);
    expect((await allBooksFindings()).filter((f) => f.referenceId !== 'ORD-LATE')).toEqual([]);
  });
});

describe('BK_AMOUNT_MISMATCH', () => {
  it('flags a payment whose amount differs from its debit, with both sides', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.50', 1), LATE]);
    const [finding] = await run('BK_AMOUNT_MISMATCH');
    expect(finding).toMatchObject({
      entityType: 'booksRow',
      referenceId: 'ORD-1',
      measure: { unit: 'cents', expected: 1_000, actual: 1_050 },
      atStakeCents: 50,
    });
    expect(finding?.records.map((r) => r.type)).toEqual(['booksRow', 'giftCard', 'giftCardTransaction']);
    expect(await run('BK_LEDGER_NOT_IN_BOOKS')).toEqual([]);
  });

  it('passes the same difference within a tolerance of 0.50 for USD, and names the rule', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.50', 1), LATE]);
    expect(
      (await allBooksFindings({ booksToleranceCents: { USD: 50 } })).filter((f) => f.referenceId !== 'ORD-LATE'),
    ).toEqual([]);
    expect(await fx.column("SELECT DISTINCT rule FROM books_matches WHERE reference = 'ORD-1'")).toEqual(['tolerance']);
  });
});

describe('BK_DUPLICATE', () => {
  it('flags a payment the books hold twice (in two files), matched once', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.00', 1), LATE]);
    await books('tenders', [tender('ORD-1', '10.00', 1)]);
    const findings = await run('BK_DUPLICATE');
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ entityType: 'booksRow', referenceId: 'ORD-1', atStakeCents: 1_000 });
    expect(findings[0]?.message).toContain('tenders-2.csv line 2');
    expect(findings[0]?.records).toContainEqual({ type: 'giftCardTransaction', id: 'entry-1' });
  });

  it('passes two equal payments under one reference on two cards the books name', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }]));
    fx.ledger(
      secondCard(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }], { giftCardId: 'card-2' })),
    );
    await books('tenders', [
      tender('ORD-1', '15.00', 1, { giftCardId: 'card-2' }),
      tender('ORD-1', '15.00', 1, { giftCardId: 'card-1' }),
      LATE,
    ]);
    expect((await allBooksFindings()).filter((f) => f.referenceId !== 'ORD-LATE')).toEqual([]);
  });
});

describe('BK_AMBIGUOUS', () => {
  it('flags two equal payments and two equal debits under one reference with no card named, matching neither', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }]));
    fx.ledger(
      secondCard(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }], { giftCardId: 'card-2' })),
    );
    await books('tenders', [tender('ORD-1', '15.00', 1), tender('ORD-1', '15.00', 2), LATE]);
    expect(CHECKS.BK_AMBIGUOUS.severity).toBe('warning');
    const [finding, ...rest] = await run('BK_AMBIGUOUS');
    expect(rest).toEqual([]);
    expect(finding?.records).toHaveLength(6);
    expect(finding?.message).toContain('could pair more than one way');
  });

  it('passes a tender that names its card only by the code, matched by its hash whatever the reference', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_500, ref: 'ORD-1' }]));
    fx.run(
      "UPDATE gift_cards SET raw_json = ? WHERE gift_card_id = 'card-1'",
      JSON.stringify({ codeHash: sha256('GIFT-CODE-1') }),
    );
    await books('tenders', [tender('WEB-77', '15.00', 1, { cardCode: 'GIFT-CODE-1' }), LATE]);
    expect((await allBooksFindings()).filter((f) => f.referenceId !== 'ORD-LATE')).toEqual([]);
    expect(await fx.column("SELECT DISTINCT rule FROM books_matches WHERE reference = 'WEB-77'")).toEqual([
      'code-hash',
    ]);
    expect((await fx.column('SELECT raw_json FROM books_rows')).join()).not.toContain('GIFT-CODE-1');
  });
});

/** A coupon of ours with a code, created at T0. */
function coupon(code: string, redemptionCount: number): string {
  const id = fx.coupon({ redemptionCount, usageLimitTotal: 5 });
  fx.run('UPDATE coupons SET raw_json = ? WHERE coupon_id = ?', JSON.stringify({ codeHash: sha256(code) }), id);
  return id;
}
const use = (code: string, hours: number): Record<string, string> => ({
  couponCode: code,
  reference: `ORD-C${hours}`,
  time: at(T0 + hours * HOUR),
});

describe('CV_USES_MISMATCH', () => {
  it('flags a coupon used once in the books that the service counts twice', async () => {
    const id = coupon('SAVE10', 2);
    coupon('LATER', 1);
    await books('coupon-uses', [use('SAVE10', 1), use('LATER', 40)]);
    expect(await run('CV_USES_MISMATCH')).toMatchObject([
      { entityType: 'coupon', entityId: id, measure: { unit: 'count', expected: 2, actual: 1 } },
    ]);
  });

  it('passes a coupon with as many uses in the books as redemptions', async () => {
    coupon('SAVE10', 2);
    coupon('LATER', 1);
    await books('coupon-uses', [use('SAVE10', 1), use('SAVE10', 3), use('LATER', 40)]);
    expect(await allBooksFindings()).toEqual([]);
  });
});

const purchase = (externalRef: string, amount: string, hours: number): Record<string, string> => ({
  externalRef,
  amount,
  currency: 'USD',
  time: at(T0 + hours * HOUR),
});

describe('DP_ORDER_NOT_IN_BOOKS', () => {
  it('flags an order with no purchase in the books', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    fx.order({ id: 'order-2', externalRefId: 'PO-2', createdAtMs: T0 + 2 * HOUR });
    await books('dp-purchases', [purchase('PO-1', '10.00', 1), purchase('PO-LATE', '10.00', 40)]);
    fx.order({ id: 'order-late', externalRefId: 'PO-LATE', createdAtMs: T0 + 40 * HOUR });
    expect(await run('DP_ORDER_NOT_IN_BOOKS')).toMatchObject([
      { entityType: 'dpOrder', entityId: 'order-2', referenceId: 'PO-2', atStakeCents: 1_000 },
    ]);
  });

  it('passes a FAILED order the books never bought', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    fx.order({ id: 'order-2', externalRefId: 'PO-2', createdAtMs: T0 + 2 * HOUR, status: 'FAILED' });
    await books('dp-purchases', [purchase('PO-1', '10.00', 1)]);
    expect(await allBooksFindings()).toEqual([]);
  });
});

describe('BK_PURCHASE_NOT_ORDERED', () => {
  it('flags a purchase with no order under its reference', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    await books('dp-purchases', [
      purchase('PO-1', '10.00', 1),
      purchase('PO-GHOST', '25.00', 2),
      purchase('PO-LATE', '10.00', 40),
    ]);
    fx.order({ id: 'order-late', externalRefId: 'PO-LATE', createdAtMs: T0 + 40 * HOUR });
    expect(await run('BK_PURCHASE_NOT_ORDERED')).toMatchObject([
      { entityType: 'booksRow', referenceId: 'PO-GHOST', atStakeCents: 2_500 },
    ]);
  });

  it('passes purchases of two orders under one reference (each bought once)', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    fx.order({ id: 'order-2', externalRefId: 'PO-1', createdAtMs: T0 + 2 * HOUR });
    await books('dp-purchases', [purchase('PO-1', '10.00', 1), purchase('PO-1', '10.00', 2)]);
    expect(await allBooksFindings()).toEqual([]);
  });
});

describe('DP_BOOKS_AMOUNT_MISMATCH', () => {
  it('flags an order whose total differs from the purchase in the books', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR });
    await books('dp-purchases', [purchase('PO-1', '9.00', 1)]);
    expect(await run('DP_BOOKS_AMOUNT_MISMATCH')).toMatchObject([
      { entityType: 'dpOrder', entityId: 'order-1', measure: { expected: 1_000, actual: 900 }, atStakeCents: 100 },
    ]);
  });

  it('passes an order and its purchase for the same total, written "1,000.00"-style', async () => {
    fx.order({ id: 'order-1', externalRefId: 'PO-1', createdAtMs: T0 + HOUR, lines: [{ priceCents: 100_000 }] });
    await books('dp-purchases', [{ ...purchase('PO-1', '"1,000.00"', 1) }]);
    expect(await allBooksFindings()).toEqual([]);
  });
});

describe('BK_IN_TRANSIT', () => {
  it('flags as info a payment within the cut-off of the end of the data that has no entry yet', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1' }]));
    await books('tenders', [tender('ORD-1', '10.00', 1), tender('ORD-NEW', '5.00', 47 * 60 + 30)]);
    expect(CHECKS.BK_IN_TRANSIT.severity).toBe('info');
    expect(await run('BK_IN_TRANSIT')).toMatchObject([{ entityType: 'booksRow', referenceId: 'ORD-NEW' }]);
    expect(await run('BK_BOOKS_NOT_IN_LEDGER')).toEqual([]);
  });

  it('passes a payment within the cut-off that has its entry', async () => {
    fx.ledger(cardLedger(10_000, [{ type: 'DEBIT', amount: 1_000, ref: 'ORD-1', at: T0 + 47 * HOUR }]));
    await books('tenders', [tender('ORD-1', '10.00', 47 * 60)]);
    expect(await allBooksFindings()).toEqual([]);
  });
});
