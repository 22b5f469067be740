/**
 * The stages' import directions (DESIGN.md, STYLE.md): api → sync → db on the way in, checks →
 * findings → report on the way out, cli on top wiring them, sim beside. A stage may import
 * the stages before it, never one after it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

const DOC = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8');

/** docs/architecture.md's "Who may import whom": per stage, what it may import, and what by type alone. */
function documentedImports(): Map<string, { may: string[]; typeOnly: string[] }> {
  const section = DOC.slice(DOC.indexOf('### Who may import whom'));
  const names = (cell: string): string[] => [...cell.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
  const rows = [...section.matchAll(/^\| `(\w+)` \|([^|]*)\|([^|]*)\|/gm)];
  return new Map(rows.map((m) => [m[1]!, { may: names(m[2]!), typeOnly: names(m[3]!) }]));
}
const DOCUMENTED = documentedImports();

/** A folder of src/, or 'shared' for the files at its root. */
type Stage = string;

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
  for (const match of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g))
    found.push({ from: file, to: resolve(dirname(file), match[1]!), typeOnly: false });
  return found;
}

describe('the stages’ import directions', () => {
  const imports = [...sources(SRC)].flatMap(importsOf);

  it('reads the imports it checks', () => {
    expect(imports.length).toBeGreaterThan(100);
    expect(imports.some((i) => stageOf(i.from) === 'findings' && stageOf(i.to) === 'checks')).toBe(true);
  });

  it("documents every stage: docs/architecture.md's table names exactly the folders of src/", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect([...DOCUMENTED.keys()].sort()).toEqual([...folders, 'shared'].sort());
  });

  it('never runs backwards: each stage imports only what docs/architecture.md lets it', () => {
    const backwards = imports
      .filter((i) => {
        const from = stageOf(i.from);
        const to = stageOf(i.to);
        const rule = DOCUMENTED.get(from);
        if (from === to || rule?.may.includes(to)) return false;
        return !(i.typeOnly && rule?.typeOnly.includes(to));
      })
      .map((i) => `${relative(SRC, i.from)} → ${relative(SRC, i.to)}`);
    expect(backwards).toEqual([]);
  });

  it('allows nothing the code does not do: every import the document lists is made (type-only ones by type alone)', () => {
    const made = new Set(imports.map((i) => `${stageOf(i.from)} ${stageOf(i.to)} ${i.typeOnly ? 'type' : 'value'}`));
    const unused: string[] = [];
    for (const [from, rule] of DOCUMENTED) {
      for (const to of rule.may)
        if (!made.has(`${from} ${to} value`) && !made.has(`${from} ${to} type`)) unused.push(`${from} → ${to}`);
      for (const to of rule.typeOnly)
        if (!made.has(`${from} ${to} type`) || made.has(`${from} ${to} value`))
          unused.push(`${from} → ${to} (type-only)`);
    }
    expect(unused).toEqual([]);
  });

  it("has no circle of imports, type-only imports included: a check's types never import the registry back", () => {
    const edges = new Map<string, string[]>();
    for (const i of imports) edges.set(i.from, [...(edges.get(i.from) ?? []), i.to.replace(/\.js$/, '.ts')]);
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of edges.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('keeps the sync free of the checks and the findings', () => {
    expect(imports.filter((i) => stageOf(i.from) === 'sync' && ['checks', 'findings'].includes(stageOf(i.to)))).toEqual(
      [],
    );
  });

  it('leaves the books tables to the books stage: nothing else writes them', () => {
    const writes = /\b(INTO|UPDATE|DELETE\s+FROM)\s+books_\w+/i;
    const elsewhere = [...sources(SRC)].filter(
      (file) => stageOf(file) !== 'books' && writes.test(readFileSync(file, 'utf8')),
    );
    expect(elsewhere.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('leaves the findings tables to the findings stage: no SQL on them anywhere else', () => {
    const tables =
      /\b(FROM|JOIN|INTO|UPDATE)\s+(check_runs|findings|held_findings|resolved_findings|finding_acceptances|finding_acceptance_history|liability_rollforward)\b/i;
    const elsewhere = [...sources(SRC)].filter(
      (file) =>
        stageOf(file) !== 'findings' &&
        !file.endsWith(join('db', 'schema.ts')) &&
        tables.test(readFileSync(file, 'utf8')),
    );
    expect(elsewhere.map((file) => relative(SRC, file))).toEqual([]);
  });
});

describe('the seam to the mirror', () => {
  /** A dialect's folder: the only code that holds a driver. */
  const inDialect = (file: string): boolean => /^db[\\/](sqlite|pg)[\\/]/.test(relative(SRC, file));
  /** The driver, its statements, its handle, or the mirror's raw connection read. */
  const RAW =
    /from 'better-sqlite3'|from 'pg'|from 'pg-cursor'|\.prepare\(|Database\.Database|\w\.sqlite\b(?!['-])|\.pragma\(|from 'drizzle-orm\/(better-sqlite3|node-postgres)/;

  it('keeps the driver in the dialect folder: no store or other module imports it, prepares SQL on it, or reads the raw connection', () => {
    const raw = [...sources(SRC)].filter((file) => !inDialect(file) && RAW.test(readFileSync(file, 'utf8')));
    expect(raw.map((file) => relative(SRC, file))).toEqual([]);
  });

  it("hands the stores' SQL connection to the stores alone: no other stage module executes SQL", () => {
    const stores = [
      join('sync', 'store.ts'),
      join('books', 'store.ts'),
      join('ledger', 'store.ts'),
      join('checks', 'store.ts'),
      join('findings', 'store.ts'),
      join('report', 'store.ts'),
      join('evidence', 'store.ts'),
    ];
    const files = [...sources(SRC)].filter((file) => !relative(SRC, file).startsWith(`db${sep}`));
    expect(files.map((file) => relative(SRC, file))).toEqual(expect.arrayContaining(stores));
    // A store may be split by concern into parts beside it (sync/store-cards.ts, …): each is a store.
    const isStore = (file: string): boolean =>
      stores.includes(relative(SRC, file)) || /^store-[a-z]+\.ts$/.test(basename(file));
    const executing = files.filter(
      (file) =>
        !isStore(file) &&
        /\.connection\b|\bqueries\.(selectFrom|insertInto|updateTable|deleteFrom)|\.queries\b/.test(
          readFileSync(file, 'utf8'),
        ),
    );
    expect(executing.map((file) => relative(SRC, file))).toEqual([]);
  });

  it("keeps the findings stage typed end to end: its stores speak the typed, async query layer, but for the report's raw reads typed from the schema's columns", () => {
    const files = [...sources(join(SRC, 'findings'))];
    expect(files.length).toBeGreaterThan(3);
    const raw = files.filter((file) =>
      /from 'better-sqlite3'|\.prepare\(|Database\.Database|\.connection\b/.test(readFileSync(file, 'utf8')),
    );
    // store-whole.ts reads a run's findings whole on a second thread: each row type is RowOf the schema's columns.
    expect(raw.map((file) => relative(SRC, file))).toEqual([join('findings', 'store-whole.ts')]);
    const whole = readFileSync(join(SRC, 'findings', 'store-whole.ts'), 'utf8');
    const reads = whole.match(/\.readRaw<[^>]*>/g) ?? [];
    expect(reads.length).toBe(3);
    for (const read of reads) expect(read).toMatch(/^\.readRaw<RowOf<typeof [A-Z_]+_COLUMNS>$/);
    expect(whole).not.toMatch(/\.(read|pluck|write|exec)\(|\.read</);
  });

  it('casts no query result outside the typed statements: a read declares its row type where it is prepared', () => {
    const cast = /\.(get|all|iterate|execute|executeTakeFirst)\([^)]*\)\s+as\s/;
    const casting = [...sources(SRC)].filter((file) => !inDialect(file) && cast.test(readFileSync(file, 'utf8')));
    expect(casting.map((file) => relative(SRC, file))).toEqual([]);
  });

  it("gives every query check two halves: its reads are the checks' store's, its decision pure", () => {
    const checks = [...sources(join(SRC, 'checks'))].filter((file) => /rowsCheck\(\{/.test(readFileSync(file, 'utf8')));
    expect(checks.length).toBeGreaterThanOrEqual(30);
    expect(
      [...sources(join(SRC, 'checks'))].filter((file) => /queryCheck\(\{/.test(readFileSync(file, 'utf8'))),
    ).toEqual([]);
    const raw = checks.filter((file) => /\bsqlite\b|\.prepare\(|from 'drizzle-orm/.test(readFileSync(file, 'utf8')));
    expect(raw.map((file) => relative(SRC, file))).toEqual([]);
  });

  it("writes the stores' SQL so both databases read it: what is SQLite's alone comes from the dialect (mirror.dialect)", () => {
    const sqliteOnly =
      /json_each|json_extract|->>\s*'\$|INDEXED BY|GROUP_CONCAT|\btemp\.|OR IGNORE|OR REPLACE|\.pragma\(|SUM\(\w+ = /;
    const stores = [...sources(SRC)].filter((file) => /^store(-[a-z]+)?\.ts$/.test(basename(file)));
    expect(stores.length).toBe(24);
    expect(
      stores.filter((file) => sqliteOnly.test(readFileSync(file, 'utf8'))).map((file) => relative(SRC, file)),
    ).toEqual([]);
  });

  it('leaves the dialect to its folder: only a dialect folder makes the typed query layer', () => {
    const makers = [...sources(SRC)].filter((file) =>
      /new Kysely|SqliteDialect|PostgresDialect/.test(readFileSync(file, 'utf8')),
    );
    expect(makers.filter((file) => !inDialect(file)).map((file) => relative(SRC, file))).toEqual([]);
    expect(makers.map((file) => relative(SRC, file))).toContain(join('db', 'sqlite', 'queries.ts'));
  });
});

describe('one truth per figure: balances and the liability are the ledger stage’s', () => {
  /** Ways of computing a balance, a flow or a roll-forward by hand. */
  const SECOND_DEFINITIONS: readonly [string, RegExp][] = [
    // Cents keep their brand through money.ts's plusCents and minusCents (defined there, used in the ledger stage alone).
    [
      'sums an amount or a figure in cents',
      /\+=\s*[\w.]*\b(amount\w*|\w*Cents)\b|\b\w*Cents\s*[-+]=|(?<!function )\b(plus|minus)Cents\(/,
    ],
    ['rolls a liability forward', /[iI]ssued\w*\s*[-+]\s*[\w.]*[dD]ebited/],
    ['decides which entry closes a card', /type\s*===\s*'(VOID|EXPIRE)'/],
    [
      'moves a balance by hand',
      /(before|after|initial|remaining)\w*Cents\s*[-+]\s*[\w.(]|(?<!function )\bminusCents\([\w.]*(before|after|initial|remaining)/i,
    ],
    ['sums balances or ledger amounts in SQL', /SUM\([^)]*\b(\w*balance\w*|t\.amount_cents)\b/i],
  ];
  const secondDefinitions = (file: string): string[] => {
    const text = readFileSync(file, 'utf8');
    return SECOND_DEFINITIONS.filter(([, pattern]) => pattern.test(text)).map(
      ([what]) => `${relative(SRC, file)} ${what}`,
    );
  };

  it('finds them in the ledger stage, where they belong (the guard sees what it guards)', () => {
    const found = [...sources(join(SRC, 'ledger'))].flatMap(secondDefinitions);
    for (const [what] of SECOND_DEFINITIONS.slice(0, 4)) expect(found.join('\n')).toContain(what);
  });

  it('finds none outside src/ledger/ (the simulator, which plays the services, aside)', () => {
    const outside = [...sources(SRC)].filter((file) => !['ledger', 'sim'].includes(stageOf(file)));
    expect(outside.flatMap(secondDefinitions)).toEqual([]);
  });
});

describe('one view of the night, four writers', () => {
  /** The night's outputs: the workbook's Summary and Findings sheets, the CSV and JSON (write-report.ts), the page. */
  const WRITERS = [
    join('report', 'sheets', 'summary.ts'),
    join('report', 'sheets', 'findings.ts'),
    join('report', 'write-report.ts'),
    join('report', 'night-page.ts'),
  ];
  /** Computing a figure of the night, or reading one from a store. */
  const COMPUTES =
    /\b(moneyAtStakeCents|isMaterial|dueOf|isOverdue|standingOf|exportFinding|nightAgainstMonth|breaksByAge|waterfallOf|slaOfRun|findingsOfNight)\(|\.(stakesOf|findingsOf|largestOf|rollForwardOf|matchRates|counts|count|previousCompleteRun|completedThrough)\(/g;
  const computing = (file: string): string[] =>
    [...readFileSync(join(SRC, file), 'utf8').matchAll(COMPUTES)].map((m) => `${file}: ${m[0]}`);

  it('computes the view in one place, which the guard sees (night-view.ts and night-findings.ts)', () => {
    const found = [join('report', 'night-view.ts'), join('report', 'night-findings.ts')].flatMap(computing).join('\n');
    for (const what of ['standingOf(', 'moneyAtStakeCents(', 'nightAgainstMonth(', '.largestOf(', '.stakesOf('])
      expect(found).toContain(what);
  });

  it('lets no writer compute a figure or read one from a store: each writes the view', () => {
    expect(WRITERS.flatMap(computing)).toEqual([]);
    // And each is handed the view: the Summary and the page take it whole.
    expect(readFileSync(join(SRC, 'report', 'sheets', 'summary.ts'), 'utf8')).toMatch(/summaryRows\(view: NightView/);
    expect(readFileSync(join(SRC, 'report', 'night-page.ts'), 'utf8')).toMatch(/nightPage\(view: NightAtAGlance/);
  });

  it("keeps the nightly report clear of the close's writer", () => {
    const nightly = [...sources(join(SRC, 'report'))].filter(
      (file) => !/(write-close|liability-sheets|close|hledger-export|roll-forward-sheet)\.ts$/.test(file),
    );
    const closeWriters = [...sources(SRC)]
      .flatMap(importsOf)
      .filter((i) => nightly.includes(i.from) && /(write-close|liability-sheets)(\.js)?$/.test(i.to));
    expect(closeWriters.map((i) => relative(SRC, i.from))).toEqual([]);
  });
});
