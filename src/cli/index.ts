/**
 * The `ledger-recon` program: each command's declaration (declarations.ts) wired to its
 * function, which lives in its own file, loaded when the command runs, so `--help` and
 * `--version` load no heavy module (exceljs, drizzle, undici, better-sqlite3).
 */
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { EXAMPLES } from './examples.js';
import { examples } from './options.js';
import * as declared from './declarations.js';

/**
 * The program: each command declared in declarations.ts, its function in its own file, loaded when it runs.
 * @returns the program, ready to parse.
 */
export function buildProgram(): CommandUnknownOpts {
  // Read once the environment (and any --settings file) is in place: main.ts loads that first.
  const shared = declared.sharedOptions();
  const program = declared.rootCommand();
  wireTheNight(program, shared);
  wireTheLooks(program, shared);
  for (const [path, lines] of Object.entries(EXAMPLES)) commandAt(program, path).addHelpText('after', examples(lines));
  return program;
}

type Program = ReturnType<typeof declared.rootCommand>;
type Shared = ReturnType<typeof declared.sharedOptions>;

/** The commands of the services and the night, in the order help lists them: the simulator, ping, doctor, sync, check, run, books, report, close, the liability. */
function wireTheNight(program: Program, shared: Shared): void {
  declared.declareSimulate(program).action(async (options) => (await import('./simulate.js')).simulate(options));
  declared.declarePing(program).action(async (options) => (await import('./ping.js')).ping(options));
  declared.declareDoctor(program, shared).action(async (options) => (await import('./doctor.js')).doctor(options));
  declared.declareSync(program, shared).action(async (options) => (await import('./sync.js')).sync(options));
  declared.declareCheck(program, shared).action(async (options) => (await import('./check.js')).check(options));
  declared.declareRun(program, shared).action(async (options) => (await import('./run.js')).run(options));
  declared
    .declareBooks(program, shared)
    .action(async (files, options) => (await import('./books.js')).booksImport(files, options));
  declared.declareReport(program, shared).action(async (options) => (await import('./report.js')).report(options));
  declared.declareClose(program, shared).action(async (options) => (await import('./close.js')).close(options));
  declared
    .declareLiability(program, shared)
    .action(async (options) => (await import('./liability.js')).liabilityCommand(options));
}

/** Then those that read what the nights left: SQL, verify, the exports, proofs, the witness, findings, history, the fleet, an acceptance, the demo, completion. */
function wireTheLooks(program: Program, shared: Shared): void {
  declared.declareSql(program, shared).action(async (words, options) => (await import('./sql.js')).sql(words, options));
  declared
    .declareVerify(program, shared)
    .action(async (folder, options, command) => (await import('./verify.js')).verify(folder, options, command));
  declared
    .declareExport(program, shared)
    .action(async (format, options) =>
      format === 'unclaimed'
        ? (await import('./liability.js')).exportUnclaimed(options)
        : (await import('./export.js')).exportCommand(format, options),
    );
  declared.declareProve(program, shared).action(async (options) => (await import('./prove.js')).prove(options));
  declared
    .declareWitness(program)
    .action(async (folder, options) => (await import('./witness.js')).witnessCommand(folder, options));
  declared
    .declareFindings(program, shared)
    .action(async (options) => (await import('./findings.js')).findingsList(options));
  declared.declareHistory(program, shared).action(async (options) => (await import('./history.js')).history(options));
  declared
    .declareFleet(program, shared)
    .action(async (mirrors, options) => (await import('./fleet.js')).fleetCommand(mirrors, options));
  declared
    .declareAccept(program, shared)
    .action(async (fingerprint, options) => (await import('./accept.js')).accept(fingerprint, options));
  declared.declareDemo(program, shared).action(async (options) => (await import('./demo.js')).demo(options));
  declared
    .declareCompletion(program)
    .action(async (shell) => (await import('./completion.js')).completion(shell, program));
}

/** The command a user types as `path` (`books import`). */
function commandAt(program: CommandUnknownOpts, path: string): CommandUnknownOpts {
  let command = program;
  for (const name of path.split(' ')) {
    const found = command.commands.find((c) => c.name() === name);
    if (!found) throw new Error(`no command ${path}`);
    command = found;
  }
  return command;
}
