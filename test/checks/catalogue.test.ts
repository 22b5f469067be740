import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cataloguePage } from '../../src/checks/catalogue-page.js';
import { BOOKS_CODES, CATALOGUE, CHECK_CODES, CHECKS } from '../../src/checks/index.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const testSources = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => read(`./${f}`))
  .join('\n');
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
/** Not in DESIGN.md's table: its text asks that a card in flight on several consecutive runs be a finding of its own. */
const BEYOND_DESIGN: [string, string][] = [[CHECKS.GC_STUCK_IN_FLIGHT.code, CHECKS.GC_STUCK_IN_FLIGHT.severity]];

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

  it.each(CHECK_CODES)('%s has a file named after it, tests with a failing fixture and a passing one', (code) => {
    const check = CHECKS[code];
    const file = `${code.toLowerCase().replace(/_/g, '-')}.ts`;
    expect(readdirSync(new URL('../../src/checks/', import.meta.url))).toContain(file);
    expect(check.title.length).toBeGreaterThan(5);
    expect(check.description.length).toBeGreaterThan(60);
    const block = testSources.split(`describe('${code}'`)[1]?.split(/\ndescribe\(/)[0] ?? '';
    expect(block, `tests of ${code}`).toMatch(/it\('flags /);
    expect(block, `look-alike of ${code}`).toMatch(/it\('(passes|forgets) /);
  });

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
