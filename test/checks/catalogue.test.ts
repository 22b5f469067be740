import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BOOKS_CODES, CATALOGUE, CHECK_CODES, CHECKS } from '../../src/checks/index.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const testSources = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => read(`./${f}`))
  .join('\n');
/** The catalogue's page for people (docs/catalogue.md): one row per code. */
const readme = read('../../docs/catalogue.md');
/** DESIGN.md's catalogue (../shared/DESIGN.md, not in this repository): code and severity. */
const DESIGN_CATALOGUE: [string, string][] = [
  ['GC_BALANCE_MISMATCH', 'error'],
  ['GC_LEDGER_TAIL_MISMATCH', 'error'],
  ['GC_CHAIN_GAP', 'error'],
  ['GC_ENTRY_ARITHMETIC', 'error'],
  ['GC_REFUND_OVER_DEBIT', 'error'],
  ['GC_REFUND_WITHOUT_DEBIT', 'error'],
  ['GC_NEGATIVE_BALANCE', 'error'],
  ['GC_DUPLICATE_IDEMPOTENCY_KEY', 'error'],
  ['GC_ACTIVITY_AFTER_CLOSE', 'error'],
  ['GC_ACTIVITY_AFTER_EXPIRY', 'error'],
  ['GC_INVALID_AMOUNT', 'error'],
  ['GC_ORPHAN_ENTRY', 'error'],
  ['GC_FOREIGN_MERCHANT', 'error'],
  ['GC_LEDGER_REWRITTEN', 'error'],
  ['GC_SUSPECTED_DOUBLE_DEBIT', 'warning'],
  ['GC_STATUS_LEDGER_MISMATCH', 'warning'],
  ['GC_EXPIRY_OVERDUE', 'warning'],
  ['GC_IN_FLIGHT', 'info'],
  // Not in DESIGN.md's table: its text asks that a card in flight on several consecutive runs be a finding of its own.
  ['GC_STUCK_IN_FLIGHT', 'warning'],
  ['CV_OVER_REDEEMED', 'error'],
  ['CV_COUNTER_REGRESSED', 'error'],
  ['CV_FOREIGN_MERCHANT', 'error'],
  ['CV_STATUS_MISMATCH', 'warning'],
  ['CV_EXPIRED_BUT_ACTIVE', 'warning'],
  ['DP_ORDER_TOTAL_MISMATCH', 'error'],
  ['DP_LINE_ARITHMETIC', 'error'],
  ['DP_DUPLICATE_EXTERNAL_REF', 'error'],
  ['DP_DUPLICATE_VOUCHER', 'error'],
  ['DP_FULFILMENT_MISMATCH', 'error'],
  ['DP_WALLET_DRIFT', 'warning'],
  ['DP_VOUCHER_EXPIRED_ON_DELIVERY', 'warning'],
  ['DP_STUCK_ORDER', 'warning'],
  ['DP_FX_RATE_MISMATCH', 'warning'],
  ['BK_LEDGER_NOT_IN_BOOKS', 'error'],
  ['BK_BOOKS_NOT_IN_LEDGER', 'error'],
  ['BK_AMOUNT_MISMATCH', 'error'],
  ['BK_DUPLICATE', 'error'],
  ['BK_AMBIGUOUS', 'warning'],
  ['CV_USES_MISMATCH', 'error'],
  ['DP_ORDER_NOT_IN_BOOKS', 'error'],
  ['BK_PURCHASE_NOT_ORDERED', 'error'],
  ['DP_BOOKS_AMOUNT_MISMATCH', 'error'],
  ['BK_IN_TRANSIT', 'info'],
  ['SYNC_REJECTED_RECORD', 'error'],
];

describe('the check catalogue', () => {
  it('holds exactly the codes of DESIGN.md, each once, in its registry', () => {
    expect(Object.keys(CHECKS)).toEqual([...CHECK_CODES]);
    expect(CATALOGUE.map((c) => [c.code, c.severity]).sort()).toEqual([...DESIGN_CATALOGUE].sort());
  });

  it.each(CHECK_CODES)(
    '%s has a file named after it, tests with a failing fixture and a passing one, and a row in docs/catalogue.md',
    (code) => {
      const check = CHECKS[code];
      const file = `${code.toLowerCase().replace(/_/g, '-')}.ts`;
      expect(readdirSync(new URL('../../src/checks/', import.meta.url))).toContain(file);
      expect(check.title.length).toBeGreaterThan(5);
      expect(check.description.length).toBeGreaterThan(60);
      const block = testSources.split(`describe('${code}'`)[1]?.split(/\ndescribe\(/)[0] ?? '';
      expect(block, `tests of ${code}`).toMatch(/it\('flags /);
      expect(block, `look-alike of ${code}`).toMatch(/it\('(passes|forgets) /);
      expect(readme).toContain(`| \`${code}\` | ${check.severity} | ${check.lifecycle} |`);
    },
  );

  it("says which checks need the books: exactly those that read the matching's tables", () => {
    for (const check of CATALOGUE) {
      const source = read(`../../src/checks/${check.code.toLowerCase().replace(/_/g, '-')}.ts`);
      expect(check.needsBooks === true, check.code).toBe(
        /\bbooks_(match_rows|rows)\b|booksBreaks|books-breaks/.test(source),
      );
    }
    expect(BOOKS_CODES.length).toBe(10);
  });

  it("writes each code once in the product: in its check's file (the simulator names what it plants, as an oracle apart)", () => {
    const sources = readdirSync(new URL('../../src/', import.meta.url), { recursive: true, withFileTypes: false })
      .map(String)
      .filter((f) => f.endsWith('.ts') && !f.startsWith('sim/'));
    for (const code of CHECK_CODES) {
      const files = sources.filter((f) => read(`../../src/${f}`).includes(`'${code}'`));
      expect(files, code).toEqual([`checks/${code.toLowerCase().replace(/_/g, '-')}.ts`]);
    }
  });
});
