import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_CODES } from '../../src/checks/check.js';
import { CATALOGUE, CHECKS } from '../../src/checks/index.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const testSources = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => read(`./${f}`))
  .join('\n');
const readme = read('../../README.md');
const design = read('../../../shared/DESIGN.md');

describe('the check catalogue', () => {
  it('holds exactly the codes of DESIGN.md, each once, in its registry', () => {
    const designCodes = [...design.matchAll(/^\| ([A-Z]{2,4}_[A-Z_]+) \| (error|warning|info) \|/gm)].map((m) => [m[1], m[2]]);
    expect(Object.keys(CHECKS)).toEqual([...CHECK_CODES]);
    expect(CATALOGUE.map((c) => [c.code, c.severity]).sort()).toEqual(designCodes.sort());
  });

  it.each(CHECK_CODES)('%s has a file named after it, tests with a failing fixture and a passing one, and a README row', (code) => {
    const check = CHECKS[code];
    const file = `${code.toLowerCase().replace(/_/g, '-')}.ts`;
    expect(readdirSync(new URL('../../src/checks/', import.meta.url))).toContain(file);
    expect(check.title.length).toBeGreaterThan(5);
    expect(check.description.length).toBeGreaterThan(60);
    const block = testSources.split(`describe('${code}'`)[1]?.split(/\ndescribe\(/)[0] ?? '';
    expect(block, `tests of ${code}`).toMatch(/it\('flags /);
    expect(block, `look-alike of ${code}`).toMatch(/it\('(passes|forgets) /);
    expect(readme).toContain(`| \`${code}\` | ${check.severity} |`);
  });
});
