/**
 * The row types the stores declare for their hand-written SQL (`read<Row>`, `readRaw<Row>`,
 * `pluck<V>`), checked against what SQLite says each statement yields. TypeScript cannot see
 * into a SQL string, so a store's `read<CardBefore>(sql)` is a promise nothing else checks:
 * this test finds every such declaration in src with the TypeScript compiler, runs the real CLI
 * through a night, a report, a close, a verify and the investigator's commands with every
 * statement SQLite prepares recorded (test/support/sql-recorder.mjs), and holds each
 * declaration to the statements its SQL became: the declared keys are exactly the columns the
 * SELECT names, a tuple has as many elements as there are columns, a plucked value is one
 * column. A declaration no command prepared fails too, so a new one is covered or named.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/sim/simulator.js';
import { type Backend, BACKENDS } from '../support/backends.js';
import { cleanEnv, runCli, simulatorEnv } from '../support/cli.js';
import { plantedMonth } from '../support/simulator.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECORDER = fileURLToPath(new URL('../support/sql-recorder.mjs', import.meta.url));

type Method = 'read' | 'readRaw' | 'pluck';

/** One declaration of a statement's row type in src. */
interface Declared {
  where: string;
  method: Method;
  type: string;
  /** What its SQL becomes, the interpolated parts any text; null when the SQL is not written at the call. */
  pattern: RegExp | null;
  /** read: the declared keys; readRaw: the tuple's length; pluck: nothing. */
  keys?: string[];
  length?: number;
  /** The SQL itself, when it is written whole (no interpolation) at the declaration or in its constant. */
  literal?: string;
  /** Typed from the schema's own columns (db/typed-rows.ts), so checked by construction. */
  fromSchema: boolean;
}

/** A literal piece of SQL as a pattern: its placeholders (`?`, `@name`) as the driver may number them (`$1`). */
const sqlPattern = (text: string) =>
  text
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\\\?/g, '(?:\\?|\\$\\d+)')
    .replace(/@(\w+)/g, '(?:@$1|\\$\\d+)');

/** The SQL a template or string becomes: its literal text in order, anything where it interpolates. */
function patternOf(node: ts.Expression, checker: ts.TypeChecker): RegExp | null {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return new RegExp(`^${sqlPattern(node.text)}$`);
  if (ts.isTemplateExpression(node))
    return new RegExp(
      `^${sqlPattern(node.head.text)}${node.templateSpans.map((s) => `[\\s\\S]*?${sqlPattern(s.literal.text)}`).join('')}$`,
    );
  // A constant written elsewhere (a name, an object's property) or a function returning a template.
  const symbol = checker.getSymbolAtLocation(ts.isCallExpression(node) ? node.expression : node);
  const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
  if (
    declaration &&
    (ts.isVariableDeclaration(declaration) || ts.isPropertyAssignment(declaration)) &&
    declaration.initializer &&
    !ts.isArrowFunction(declaration.initializer)
  )
    return patternOf(declaration.initializer, checker);
  const returned = returnedBy(declaration);
  return returned ? patternOf(returned, checker) : null;
}

/** What a function (declared, or an arrow assigned to a constant) returns, when it is one expression. */
function returnedBy(declaration: ts.Declaration | undefined): ts.Expression | undefined {
  const fn =
    declaration && ts.isVariableDeclaration(declaration) && declaration.initializer
      ? declaration.initializer
      : declaration;
  if (!fn || !(ts.isFunctionDeclaration(fn) || ts.isArrowFunction(fn) || ts.isFunctionExpression(fn))) return undefined;
  if (!fn.body) return undefined;
  if (!ts.isBlock(fn.body)) return fn.body;
  return fn.body.statements.find(ts.isReturnStatement)?.expression;
}

/** The SQL when it is written whole: a string, a template without interpolation, or a constant holding one. */
function literalOf(node: ts.Expression, checker: ts.TypeChecker): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (!ts.isIdentifier(node) && !ts.isPropertyAccessExpression(node)) return undefined;
  const declaration = checker.getSymbolAtLocation(node)?.valueDeclaration;
  return declaration &&
    (ts.isVariableDeclaration(declaration) || ts.isPropertyAssignment(declaration)) &&
    declaration.initializer
    ? literalOf(declaration.initializer, checker)
    : undefined;
}

/** Every `read<Row>(sql)`, `readRaw<Row>(sql)` and `pluck<V>(sql)` in src, with what it declares. */
function declarations(): Declared[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  if (!config) throw new Error('tsconfig.build.json did not parse');
  const program = ts.createProgram(config.fileNames, config.options);
  const checker = program.getTypeChecker();
  const found: Declared[] = [];
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(join(ROOT, 'src'))) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.typeArguments?.length === 1) {
        const callee = node.expression;
        const name = ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : ts.isIdentifier(callee)
            ? callee.text
            : '';
        if (name === 'read' || name === 'readRaw' || name === 'pluck') {
          const typeNode = node.typeArguments[0]!;
          const type = checker.getTypeFromTypeNode(typeNode);
          // The SQL is the last argument, or the one before options given as an object ({ onAThread }).
          const last = node.arguments.length - 1;
          const sql = node.arguments[ts.isObjectLiteralExpression(node.arguments[last]!) ? last - 1 : last]!;
          const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          found.push({
            where: `${relative(ROOT, file.fileName)}:${line}`,
            method: name,
            type: typeNode.getText(),
            pattern: patternOf(sql, checker),
            literal: literalOf(sql, checker),
            keys: name === 'read' ? type.getProperties().map((p) => p.name) : undefined,
            length:
              name === 'readRaw' && checker.isTupleType(type)
                ? (type as ts.TupleTypeReference).target.fixedLength
                : undefined,
            fromSchema: /\bRowOf</.test(`${typeNode.getText()} ${checker.typeToString(type)}`),
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

interface Prepared {
  backend: 'sqlite' | 'postgres';
  sql: string;
  columns: string[];
}

const opened: Array<() => Promise<void>> = [];
let prepared: Prepared[] = [];
/** The SQLite mirror the commands made, where a statement written whole is prepared if no command did. */
let sqliteMirror = '';

/**
 * The real CLI, on `backend`, through the commands that read the mirror: the demo's night with
 * its books, its report written again, verified, a close, the investigator's commands, and two
 * nights of `run` on a second mirror (the second one incremental, with no merchant named) and
 * an earlier night's report written again after the second (its sheets walk the ledger), and
 * `doctor` over it.
 */
async function prepareOn(backend: Backend, record: string): Promise<void> {
  const at = () => {
    const { db, cleanup } = backend.location();
    opened.push(cleanup);
    return db;
  };
  const [db, second] = [at(), at()];
  const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-row-types-'));
  opened.push(async () => rmSync(dir, { recursive: true, force: true }));
  if (backend.name === 'sqlite') sqliteMirror = db;
  // The PostgreSQL demo writes its books under LEDGER_RECON_HOME: this test's folder.
  const recorded = { NODE_OPTIONS: `--import ${RECORDER}`, LEDGER_RECON_SQL_RECORD: record, LEDGER_RECON_HOME: dir };
  const commands = [
    ['demo', '--db', db, '--out', join(dir, 'reports'), '--quiet'],
    ['report', '--db', db, '--run', '1', '--out', join(dir, 'again')],
    ['verify', '--db', db, '--run', '1'],
    // The month the demo's planted breaks begin in: it has data whatever the test clock's day.
    ['close', '--db', db, '--period', plantedMonth(), '--out', join(dir, 'close')],
    ['history', '--db', db],
    ['findings', 'list', '--db', db],
    ['export', 'hledger', '--db', db, '--out', join(dir, 'ledger.journal')],
    ['sql', '--db', db, 'SELECT COUNT(*) FROM card_reconciliation'],
  ];
  for (const args of commands) {
    const result = await runCli(args, cleanEnv(recorded));
    expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBeLessThan(2);
  }
  const sim = await startSimulator({ seed: 7 });
  try {
    for (const init of [['--init'], []]) {
      const args = ['run', '--db', second, '--out', join(dir, 'nights'), '--quiet', ...init];
      const result = await runCli(args, { ...simulatorEnv(sim), ...recorded });
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBeLessThan(2);
    }
    // The first night's report again, written after the second night: an earlier run's sheets
    // walk the ledger (the newest run's are written from what its walk kept).
    const earlier = await runCli(['report', '--db', second, '--run', '1', '--out', join(dir, 'earlier')], recorded);
    expect(earlier.status, earlier.stderr).toBe(0);
    const doctor = await runCli(['doctor', '--db', second, '--out', join(dir, 'nights')], {
      ...simulatorEnv(sim),
      ...recorded,
    });
    expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0);
  } finally {
    await sim.close();
  }
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-row-types-'));
  opened.push(async () => rmSync(dir, { recursive: true, force: true }));
  const record = join(dir, 'prepared.jsonl');
  for (const backend of BACKENDS.filter((b) => b.available)) await prepareOn(backend, record);
  prepared = readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Prepared);
}, 600_000);
afterAll(async () => {
  for (const cleanup of opened.splice(0)) await cleanup();
});

/** A statement written whole at its declaration that no command prepared, prepared on the SQLite mirror. */
function preparedHere(sql: string): Prepared | undefined {
  const sqlite = new Database(sqliteMirror, { readonly: true });
  try {
    return {
      backend: 'sqlite',
      sql,
      columns: sqlite
        .prepare(sql)
        .columns()
        .map((c) => c.name),
    };
  } catch {
    return undefined;
  } finally {
    sqlite.close();
  }
}

describe("the stores' hand-written statements", () => {
  it('declare exactly the columns their SQL yields', () => {
    const problems: string[] = [];
    const never: string[] = [];
    for (const d of declarations()) {
      // Typed from the schema's columns, or promising nothing of the value it reads.
      if (d.fromSchema || d.type === 'unknown') continue;
      const statements = d.pattern ? prepared.filter((p) => d.pattern!.test(p.sql)) : [];
      const whole = statements.length === 0 && d.literal !== undefined ? preparedHere(d.literal) : undefined;
      if (whole) statements.push(whole);
      if (statements.length === 0) never.push(`${d.where} ${d.method}<${d.type}>`);
      for (const { backend, sql, columns } of statements) {
        const said =
          d.method === 'read'
            ? JSON.stringify([...d.keys!].sort()) === JSON.stringify([...columns].sort())
            : d.method === 'readRaw'
              ? d.length === columns.length
              : columns.length === 1;
        if (!said)
          problems.push(
            `${d.where} ${d.method}<${d.type}> declares on ${backend} ${JSON.stringify(d.keys ?? d.length ?? 'one column')} but yields ${JSON.stringify(columns)}: ${sql.slice(0, 120)}`,
          );
      }
    }
    // Where PostgreSQL is not installed its own statements cannot be prepared (CI installs it).
    const everywhere = BACKENDS.every((b) => b.available);
    expect({ problems, never: everywhere ? never : [] }).toEqual({ problems: [], never: [] });
  });
});
