/**
 * The stages' import directions (DESIGN.md, STYLE.md): api → sync → db on the way in, checks →
 * findings → report on the way out, cli on top wiring them, sim beside. A stage may import
 * the stages before it, never one after it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

type Stage = 'shared' | 'api' | 'db' | 'sync' | 'books' | 'checks' | 'findings' | 'report' | 'sim' | 'cli';

/** What each stage may import besides itself. */
const MAY_IMPORT: Record<Stage, readonly Stage[]> = {
  shared: [],
  api: ['shared'],
  db: ['shared'],
  sync: ['api', 'db', 'shared'],
  // The merchant's books come in beside the sync: they write their own tables of the mirror.
  books: ['db', 'shared'],
  checks: ['books', 'db', 'shared'],
  findings: ['checks', 'books', 'db', 'shared'],
  report: ['findings', 'checks', 'books', 'db', 'shared'],
  sim: ['shared'],
  cli: ['api', 'db', 'sync', 'books', 'checks', 'findings', 'report', 'sim', 'shared'],
};

/** Type-only imports allowed across the flow: the findings stage judges what the sync re-read. */
const TYPE_ONLY: readonly [Stage, Stage][] = [['findings', 'sync']];

function stageOf(file: string): Stage {
  const [first, second] = relative(SRC, file).split(/[\\/]/);
  return second === undefined ? 'shared' : (first as Stage);
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gms)) {
    found.push({ from: file, to: resolve(dirname(file), match[3]!), typeOnly: match[2] !== undefined });
  }
  for (const match of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)) found.push({ from: file, to: resolve(dirname(file), match[1]!), typeOnly: false });
  return found;
}

describe('the stages’ import directions', () => {
  const imports = [...sources(SRC)].flatMap(importsOf);

  it('reads the imports it checks', () => {
    expect(imports.length).toBeGreaterThan(100);
    expect(imports.some((i) => stageOf(i.from) === 'findings' && stageOf(i.to) === 'checks')).toBe(true);
  });

  it('never runs backwards: each stage imports only the stages before it', () => {
    const backwards = imports
      .filter((i) => {
        const from = stageOf(i.from);
        const to = stageOf(i.to);
        if (from === to || MAY_IMPORT[from].includes(to)) return false;
        return !(i.typeOnly && TYPE_ONLY.some(([a, b]) => a === from && b === to));
      })
      .map((i) => `${relative(SRC, i.from)} → ${relative(SRC, i.to)}`);
    expect(backwards).toEqual([]);
  });

  it('keeps the sync free of the checks and the findings', () => {
    expect(imports.filter((i) => stageOf(i.from) === 'sync' && ['checks', 'findings'].includes(stageOf(i.to)))).toEqual([]);
  });

  it('leaves the books tables to the books stage: nothing else writes them', () => {
    const writes = /\b(INTO|UPDATE|DELETE\s+FROM)\s+books_\w+/i;
    const elsewhere = [...sources(SRC)].filter((file) => stageOf(file) !== 'books' && writes.test(readFileSync(file, 'utf8')));
    expect(elsewhere.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('leaves the findings tables to the findings stage: no SQL on them anywhere else', () => {
    const tables = /\b(FROM|JOIN|INTO|UPDATE)\s+(check_runs|findings|held_findings|resolved_findings|finding_acceptances|liability_rollforward)\b/i;
    const elsewhere = [...sources(SRC)].filter((file) => stageOf(file) !== 'findings' && !file.endsWith(join('db', 'schema.ts')) && tables.test(readFileSync(file, 'utf8')));
    expect(elsewhere.map((file) => relative(SRC, file))).toEqual([]);
  });
});

describe('the seam to the mirror', () => {
  /** Stages whose store speaks only the typed, async query layer: no driver, no hand-prepared SQL. */
  const TYPED = ['findings'] as const;

  it.each(TYPED)('keeps the driver out of the %s stage: it reaches its tables through its typed store alone', (stage) => {
    const files = [...sources(join(SRC, stage))];
    expect(files.length).toBeGreaterThan(3);
    const raw = files.filter((file) => /from 'better-sqlite3'|\.prepare\(|Database\.Database/.test(readFileSync(file, 'utf8')));
    expect(raw.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('keeps a two-halves check off the connection: its reads are the checks\' store\'s, its decision pure', () => {
    const checks = [...sources(join(SRC, 'checks'))].filter((file) => /rowsCheck\(\{/.test(readFileSync(file, 'utf8')));
    expect(checks.length).toBeGreaterThanOrEqual(24);
    const raw = checks.filter((file) => /\bsqlite\b|\.prepare\(|from 'drizzle-orm/.test(readFileSync(file, 'utf8')));
    expect(raw.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('leaves the dialect to its folder: only src/db/sqlite/ makes the typed query layer', () => {
    const makers = [...sources(SRC)].filter((file) => /new Kysely|SqliteDialect/.test(readFileSync(file, 'utf8')));
    expect(makers.map((file) => relative(SRC, file))).toEqual([join('db', 'sqlite', 'queries.ts')]);
  });
});
