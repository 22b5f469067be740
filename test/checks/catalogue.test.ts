import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cataloguePage } from '../../src/checks/catalogue-page.js';
import { BOOKS_CODES, CATALOGUE, CHECK_CODES, CHECKS } from '../../src/checks/index.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
/**
 * DESIGN.md's catalogue (../shared/DESIGN.md, beside this repository on a developer's machine,
 * absent from a clone alone): its table's codes and severities.
 */
const DESIGN = new URL('../../../shared/DESIGN.md', import.meta.url);
const designCatalogue = (): [string, string][] =>
  [...readFileSync(DESIGN, 'utf8').matchAll(/^\| ([A-Z]+(?:_[A-Z]+)+) \| (error|warning|info) \|/gm)].map((m) => [
    m[1]!,
    m[2]!,
  ]);
/**
 * Not in DESIGN.md's table: its text asks that a card in flight on several consecutive runs be
 * a finding of its own; issue #65 that listed cards the service cannot find be named.
 */
const BEYOND_DESIGN: [string, string][] = [
  [CHECKS.GC_STUCK_IN_FLIGHT.code, CHECKS.GC_STUCK_IN_FLIGHT.severity],
  [CHECKS.GC_LISTED_NOT_FOUND.code, CHECKS.GC_LISTED_NOT_FOUND.severity],
];

describe('the check catalogue', () => {
  it('holds each code once, in its registry', () => {
    expect(Object.keys(CHECKS)).toEqual([...CHECK_CODES]);
    expect(new Set(CHECK_CODES).size).toBe(CATALOGUE.length);
  });

  it.skipIf(!existsSync(DESIGN))('holds exactly the codes and severities of DESIGN.md', () => {
    expect(designCatalogue().length).toBeGreaterThan(40);
    expect(CATALOGUE.map((c) => [c.code, c.severity]).sort()).toEqual([...designCatalogue(), ...BEYOND_DESIGN].sort());
  });

  it('is the page docs/catalogue.md, generated from the checks’ metadata (npm run docs:catalogue writes it)', () => {
    expect(read('../../docs/catalogue.md')).toBe(cataloguePage());
  });

  it.each(CHECK_CODES)(
    '%s is its file, its registry line and its test file beside it: a failing fixture with its messages exactly, and a passing one',
    (code) => {
      const check = CHECKS[code];
      const name = code.toLowerCase().replace(/_/g, '-');
      expect(readdirSync(new URL('../../src/checks/', import.meta.url))).toContain(`${name}.ts`);
      expect(check.title.length).toBeGreaterThan(5);
      expect(check.description.length).toBeGreaterThan(60);
      const tests = read(`./${name}.test.ts`);
      expect(tests).toContain(`describe('${code}'`);
      const flags = tests.split(/\n {2}it\(/).filter((t) => t.startsWith("'flags "));
      expect(flags.length, `failing fixtures of ${code}`).toBeGreaterThan(0);
      for (const test of flags)
        expect(test, `messages of ${code}'s ${test.split('\n')[0]}`).toMatch(
          /expect\(messagesSaid\(\)\)\.toMatchInlineSnapshot\(`\s*\[\s*"/,
        );
      expect(tests, `look-alike of ${code}`).toMatch(/\n {2}it\('(passes|forgets) /);
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
