/**
 * What each check's own test file (test/checks/<code>.test.ts) runs a check with, as the runner
 * runs it: a card check over one card's ledger, a query check over a real mirror on the file's
 * backend, a books check after a books import and a matching. Every finding a test's checks
 * return is kept, so that a test can state the messages it said exactly (`messagesSaid()`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { BooksKind } from '../../src/books/books-map.js';
import { importBooksFile } from '../../src/books/import-books.js';
import { matchBooks } from '../../src/books/matching.js';
import {
  type CardCheck,
  type CardLedger,
  type CheckContext,
  type CheckOptions,
  DEFAULT_CHECK_OPTIONS,
  type FindingDraft,
  type RowsCheck,
} from '../../src/checks/check.js';
import { BOOKS_CODES, CATALOGUE, CHECKS, type CheckCode } from '../../src/checks/index.js';
import { booksMatchOptions } from '../../src/checks/run-checks.js';
import { checksStore } from '../../src/checks/store.js';
import { sha256Hex as sha256 } from '../../src/hash.js';
import { FixtureMirror, MERCHANT, T0 } from './fixtures.js';
import { mirrorAt } from './test-db.js';
import { testNow } from './test-clock.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const at = (ms: number): string => new Date(ms).toISOString();

/** The test running now, by its file and name. */
const currentTest = (): string => {
  const { testPath, currentTestName } = expect.getState();
  return `${testPath ?? ''}\0${currentTestName ?? ''}`;
};

/**
 * What the running test's checks returned, tied to that test rather than emptied by a hook:
 * a worker that runs several files in turn (the quick tier) loads this module once for all of them.
 */
let said: { test: string; findings: FindingDraft[] } = { test: '', findings: [] };

const keep = (findings: FindingDraft[]): FindingDraft[] => {
  const test = currentTest();
  if (said.test !== test) said = { test, findings: [] };
  said.findings.push(...findings);
  return findings;
};

/** The messages of every finding the test's checks returned, in the order they were returned. */
export const messagesSaid = (): string[] => (said.test === currentTest() ? said.findings : []).map((f) => f.message);

/** A card check over one card's ledger, with the catalogue's default options and our merchant. */
export const inspect = (check: CardCheck, ledger: CardLedger): FindingDraft[] =>
  keep(check.inspect(ledger, { options: DEFAULT_CHECK_OPTIONS, merchantId: MERCHANT }));

/** Every card check of the catalogue. */
export const CARD_CHECKS = CATALOGUE.filter((c): c is CardCheck<CheckCode> => c.kind === 'card');

/** The test's mirror and its folder, fresh for each test once `useFixtureMirror()` is called. */
export let fx: FixtureMirror;
export let dir: string;
let files = 0;

/** Opens a fresh mirror before each test of the calling file and removes it after. */
export function useFixtureMirror(): void {
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-recon-checks-'));
    fx = await FixtureMirror.open(mirrorAt(dir));
    files = 0;
  });
  afterEach(async () => {
    await fx.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** A two-halves check as the runner runs it: its rows read through the checks' store, then its pure decision. */
export async function readAndDecide<R>(check: RowsCheck<string, R>, context: CheckContext): Promise<FindingDraft[]> {
  return keep(check.decide(await check.read(checksStore(context), context), context));
}

/** Writes rows as a CSV export of `kind` and imports it, as `ledger-recon books import` would. */
export async function books(kind: BooksKind, rows: Array<Record<string, string>>): Promise<void> {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const path = join(dir, `${kind}-${(files += 1)}.csv`);
  writeFileSync(path, [columns.join(','), ...rows.map((r) => columns.map((c) => r[c] ?? '').join(','))].join('\n'));
  const result = await importBooksFile(fx.mirror, path, { nowMs: testNow(), kind });
  expect(result.problems).toEqual([]);
}

/** A payment row of the books, `minutes` after T0. */
export const tender = (
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

const readAndDecideCode = (code: BooksCode, context: CheckContext): Promise<FindingDraft[]> =>
  readAndDecide(CHECKS[code] as RowsCheck, context);

/** Matches the books and runs one books check, as a check run does. */
export async function run(code: BooksCode, options: Partial<CheckOptions> = {}): Promise<FindingDraft[]> {
  const context = fx.context({ options: { ...DEFAULT_CHECK_OPTIONS, ...options } });
  await matchBooks(fx.mirror, {
    nowMs: testNow(),
    asOfMs: context.asOfMs,
    merchantId: MERCHANT,
    options: booksMatchOptions(context.options),
  });
  return readAndDecideCode(code, context);
}

/** Every books code's findings after one matching: a look-alike must raise none of them. */
export async function allBooksFindings(options: Partial<CheckOptions> = {}) {
  await run('BK_IN_TRANSIT', options);
  const context = fx.context({ options: { ...DEFAULT_CHECK_OPTIONS, ...options } });
  const found = [];
  for (const code of BOOKS_CODES) found.push(...(await readAndDecideCode(code, context)).map((f) => ({ code, ...f })));
  return found;
}

/** A second card's ledger, its entries named after it so that they do not collide with card-1's. */
export const secondCard = (ledger: CardLedger): CardLedger => ({
  ...ledger,
  entries: ledger.entries.map((e) => ({ ...e, transactionId: `${ledger.card.giftCardId}-${e.transactionId}` })),
});

/** A late row so that the end of the books data lies well after the rows under test. */
export const LATE = {
  reference: 'ORD-LATE',
  amount: '1.00',
  currency: 'USD',
  time: at(T0 + 47 * HOUR),
  type: 'payment',
};

/** A coupon of ours with a code, created at T0. */
export function couponWithCode(code: string, redemptionCount: number): string {
  const id = fx.coupon({ redemptionCount, usageLimitTotal: 5 });
  fx.run('UPDATE coupons SET raw_json = ? WHERE coupon_id = ?', JSON.stringify({ codeHash: sha256(code) }), id);
  return id;
}

/** A coupon use in the books, `hours` after T0. */
export const use = (code: string, hours: number): Record<string, string> => ({
  couponCode: code,
  reference: `ORD-C${hours}`,
  time: at(T0 + hours * HOUR),
});

/** A purchase of DP vouchers in the books, `hours` after T0. */
export const purchase = (externalRef: string, amount: string, hours: number): Record<string, string> => ({
  externalRef,
  amount,
  currency: 'USD',
  time: at(T0 + hours * HOUR),
});
