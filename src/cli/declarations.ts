/**
 * The `ledger-recon` program's declarations: the root and its global options, and a function per
 * command declaring its arguments and options (its function is wired in index.ts). A command's
 * function takes `FlagsOf<typeof declareX>`: what its declaration names, typed from it.
 */
import { createRequire } from 'node:module';
import { Command, type CommandUnknownOpts, Option, type OptionValues } from '@commander-js/extra-typings';
import { FAULT_KINDS } from '../sim/faults.js';
import { SIZE_PRESETS } from '../sim/generator.js';
import { FAIL_ON } from '../findings/verdict.js';
import { type CheckOptions, DEFAULT_CHECK_OPTIONS } from '../checks/check.js';
import { addServiceOptions } from './service-options.js';
import { SQL_FORMATS } from '../sql-formats.js';
import { DEFAULT_STATEMENT_BOUNDS } from '../db/types.js';
import { LOG_LEVELS } from '../log.js';
import { shownDb } from '../db/location.js';
import { defaultLocations } from '../locations.js';
import { releaseSignals } from './held-signals.js';
import { SETTABLE_KEYS } from '../app/settings.js';
import { amounts, examples, fromEnv, httpUrl, int, materiality, oneOf, parsed, rate, repeated } from './options.js';

/** The commands that take SIGINT and SIGTERM themselves (onInterrupt): a signal held while the process loaded is theirs. */
const TAKES_SIGNALS: ReadonlySet<string> = new Set(['sync', 'run', 'books import', 'close']);

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The program, with the options every command takes. */
type Program = ReturnType<typeof rootCommand>;

/**
 * What a command's function is given: the options its declaration below names, typed from it
 * (a flag added there is in the type; one removed is a type error where it was read), and
 * --quiet, which the global option hands every command (handGlobals).
 */
export type FlagsOf<Declare extends (...args: never[]) => { opts(): OptionValues }> = ReturnType<
  ReturnType<Declare>['opts']
> & { quiet?: boolean };

/** Options several commands take with the same words. */
const preparer = (help = 'fills "Prepared by" in the workbook\'s sign-off block') =>
  new Option('--preparer <name>', help);
const merchantName = () =>
  fromEnv(
    '--merchant-name <name>',
    "the merchant's name for the workbook's title, footer and page 1 (or LEDGER_RECON_MERCHANT_NAME; default: its ID)",
    'LEDGER_RECON_MERCHANT_NAME',
  );
const materialityOption = () =>
  parsed(
    '--materiality <list>',
    'money at stake per currency at or above which a finding is material, e.g. USD=100.00,EUR=100.00',
    materiality,
  );
const init = () =>
  new Option('--init', 'make a new mirror at --db even in a folder holding other files, or under folders not made yet');
const rebind = () =>
  new Option(
    '--rebind',
    'move a mirror bound to other services (another base URL or client ID) to these ones, on purpose',
  );
const concurrency = () =>
  int(
    '--concurrency <n>',
    'requests in flight per service: list walks (read at the same time) and by-ID reads together',
    1,
    8,
  );
const runId = (help = 'the check run') => int('--run <id>', help, 1);

/** The ways of naming a period: a month, or two days, in a time zone. */
function addPeriodOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
  scope = '',
) {
  return command
    .option(
      '--period <month>',
      `${scope}${scope ? 'the month whose end is the cut-off' : 'the month to close'}, YYYY-MM`,
    )
    .option('--from <date>', `${scope}first day of the period, YYYY-MM-DD (with --to)`)
    .option('--to <date>', `${scope}last day of the period, YYYY-MM-DD, included`);
}

/**
 * What several commands share, as options made afresh for each (commander keeps an option's
 * state), their defaults read once the environment (and any --settings file) is in place.
 */
export function sharedOptions() {
  const locations = defaultLocations();
  return {
    /** The mirror: a file or a PostgreSQL schema; help shows a URL's default without its password. */
    db: () =>
      new Option(
        '--db <path|url>',
        'the mirror: a SQLite file, or postgres://user@host:port/db?schema=name (or LEDGER_RECON_DB)',
      ).default(locations.db, shownDb(locations.db)),
    /** Where the reports go. */
    out: (help: string) => new Option('--out <dir>', help).default(locations.reports),
    /** The key signing a seal: its path only, read by the command that seals (never stored). */
    // Named, never shown: help prints no value of the variable (a key put there by mistake stays unprinted).
    signKey: () =>
      fromEnv(
        '--sign-key <file>',
        'sign the evidence manifest with the Ed25519 private key (PEM) in this file, only you can read it: …-evidence.dsse.json',
        'LEDGER_RECON_SIGN_KEY',
      ),
    /** Where the log's checkpoints are published after each seal. */
    checkpoints: () =>
      fromEnv(
        '--checkpoints <dir|url>',
        "after the seal, publish the log's checkpoint outside the mirror: into this folder (a write-once bucket's mount, an auditor's share) or to an https:// endpoint that receives it (or LEDGER_RECON_CHECKPOINTS)",
        'LEDGER_RECON_CHECKPOINTS',
      ),
    /** What shapes breakage and unclaimed property: a JSON file (docs/liability.md). */
    liability: () =>
      fromEnv(
        '--liability <file>',
        'the liability settings (JSON: standard, maturity, haircut, breakage rates per program, jurisdictions and their dormancy; docs/liability.md); the documented defaults otherwise (or LEDGER_RECON_LIABILITY)',
        'LEDGER_RECON_LIABILITY',
      ),
    locations,
  };
}
type Shared = ReturnType<typeof sharedOptions>;

/** The program itself: its description, global options, and the hook that hands them to every command. */
export function rootCommand() {
  return addGlobalOptions(
    new Command('ledger-recon')
      // Before any subcommand is declared, so each inherits it: usage errors become exit 2.
      .exitOverride()
      .description(
        'Reconciles a gift card service and a delivery partner service to the cent: mirrors both into SQLite or PostgreSQL, ' +
          'runs the check catalogue, tracks findings across runs, and writes reports for auditors.',
      )
      .version(version, '-V, --version', 'print the version')
      .helpOption('-h, --help', 'show help for a command')
      // Each command's help lists the options every command takes (--settings, --timeout, --umask, --verbose).
      .configureHelp({ showGlobalOptions: true })
      .hook('preAction', handGlobals)
      // A usage error is one line, as every other failure is: `ledger-recon: …`, with where to look.
      .configureOutput({
        outputError: (text, write) =>
          write(
            `ledger-recon: ${text
              .trim()
              .replace(/^error: /, '')
              .replace(/\.$/, '')} (--help shows the usage)\n`,
          ),
      })
      .addHelpText('after', ROOT_HELP),
  );
}

/** What the program's help says after its commands: the exit codes and where the configuration comes from. */
const ROOT_HELP =
  '\nExit codes: 0 reconciled, 1 breaks at or above --fail-on, 2 could not complete\n' +
  '(configuration, credentials, service unreachable, lock held), 130 / 143\n' +
  'stopped by Ctrl-C / SIGTERM (the next run resumes).\n\n' +
  'Configuration comes from GIFTCARD_API_URL, GIFTCARD_CLIENT_ID,\n' +
  'GIFTCARD_CLIENT_SECRET, DP_API_URL, DP_CLIENT_ID and DP_CLIENT_SECRET; each\n' +
  'has a flag that overrides it. LEDGER_RECON_DB and LEDGER_RECON_OUT set the\n' +
  'default --db and --out; --settings FILE reads any of them from a file.';

/** The options every command takes: settings, time-out, file mask, how much it says. */
function addGlobalOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command
    .option(
      '--settings <file>',
      'read settings from this file (KEY=value lines); the environment and flags take precedence',
    )
    .option(
      '--timeout <seconds>',
      'how long one request may take before it is retried (default 30; env LEDGER_RECON_TIMEOUT)',
    )
    .option('--umask <mask>', 'file-creation mask for the mirror and the reports (default 077: the owner alone)')
    .option('--verbose', 'the stack of an unexpected error')
    .option('--quiet', 'errors only: no progress, no summary (rows and --json still print; the exit code tells)')
    .addOption(
      oneOf(
        '--log-level <level>',
        'the talk with the services on stderr: info each retry, debug every request',
        LOG_LEVELS,
        'warn',
      ),
    )
    .option('-v', 'log each retry of a request with its cause (--log-level info)');
}

/**
 * The global options reach every command: --quiet as the command's own option, the log level
 * through the environment the service clients read; the signals held while the process loaded
 * go to a command that takes them, else back to Node's defaults.
 */
function handGlobals(root: CommandUnknownOpts, command: CommandUnknownOpts): void {
  const path =
    command.parent && command.parent !== root ? `${command.parent.name()} ${command.name()}` : command.name();
  if (!TAKES_SIGNALS.has(path)) releaseSignals();
  const globals = command.optsWithGlobals();
  if (globals['quiet'] === true) command.setOptionValue('quiet', true);
  const level =
    root.getOptionValueSource('logLevel') === 'default' && globals['v'] === true ? 'info' : globals['logLevel'];
  process.env['LEDGER_RECON_LOG_LEVEL'] = String(level);
}

/** `simulate`: both services, generated, on 127.0.0.1. */
export function declareSimulate(program: Program) {
  return program
    .command('simulate')
    .description('serve simulators of both services on 127.0.0.1, for demos, tests and benchmarks')
    .addOption(int('--seed <n>', 'seed of the generated data', 0, 1))
    .addOption(int('--port <port>', 'port of the gift card service', 0, 4010))
    .addOption(int('--dp-port <port>', 'port of the delivery partner service', 0, 4020))
    .addOption(oneOf('--size <preset>', 'data size', Object.keys(SIZE_PRESETS), 'small'))
    .addOption(int('--cards <n>', 'gift cards (overrides the preset)', 0))
    .addOption(int('--entries-per-card <n>', 'mean ledger entries per card', 0))
    .addOption(int('--coupons <n>', 'coupons', 0))
    .addOption(int('--products <n>', 'DP products (at least 2)', 2))
    .addOption(int('--orders <n>', 'DP orders', 0))
    .option('--plant', 'plant every break one sync can reveal, and the legal look-alikes')
    .option('--manifest <file>', 'write the planted breaks as JSON (code and records of each)')
    .option(
      '--books <dir>',
      "also write the merchant's own exports of this world (tenders, coupon uses, DP purchases, with their maps) into this folder",
    )
    .addOption(oneOf('--card-list <shape>', 'element shape of GET /v1/giftCards', ['full', 'minimal'], 'full'))
    .addOption(parsed('--faults <rate>', 'probability of a fault per request, 0 to 1', rate))
    .option('--fault-kinds <list>', `comma-separated subset of: ${FAULT_KINDS.join(', ')}`)
    .addOption(int('--retry-after <seconds>', 'Retry-After of injected 429s', 0))
    .addOption(int('--slow-ms <ms>', 'delay of a slow response', 0))
    .addOption(int('--max-in-flight <n>', 'answer 429 above this many requests in flight', 1))
    .addOption(int('--live <ms>', 'apply one legal debit, refund, order or fulfilment every <ms>', 1))
    .addOption(int('--latency <ms>', 'delay every answer by <ms>, like a network round trip', 0))
    .option('--control', 'read "activity N" (apply N legal operations) and "latency MS" lines on stdin (benchmarks)');
}

/** `ping`: both services answer and take the credentials. */
export function declarePing(program: Program) {
  return addServiceOptions(
    program
      .command('ping')
      .description('check the configuration and that both services accept the credentials (reads one record each)')
      .option('--json', 'print one object: {ok, giftcard, dp}'),
  );
}

/** `doctor`: everything a night needs, one line each. */
export function declareDoctor(program: Program, { db, out }: Shared) {
  return addServiceOptions(
    program
      .command('doctor')
      .description(
        'check everything a night needs, one line each with ok or the fix: settings, both services, the mirror, disk, --out',
      )
      .addOption(db())
      .addOption(out('where the reports go (or LEDGER_RECON_OUT)'))
      .option('--json', 'print one JSON object: {ok, checks: [{ok, subject, text}]}'),
  );
}

/** `sync`: both services into the mirror. */
export function declareSync(program: Program, { db }: Shared) {
  return addServiceOptions(
    program
      .command('sync')
      .description('mirror both services into the mirror (the first run, or --full, reads everything)')
      .addOption(db())
      .option(
        '--full',
        'a complete pass: re-read the whole ledger, report entries that changed or vanished (run weekly)',
      )
      .option('--json', 'print one summary object on stdout instead of progress')
      .addOption(init())
      .addOption(rebind())
      .addOption(
        int('--overlap-minutes <n>', 'incremental ledger reads go this far below the newest mirrored entry', 0, 60),
      )
      .addOption(concurrency()),
  );
}

/** The checker's exit policy, merchant and exception SLAs, then its thresholds: shared by `check` and `run`. */
function addCheckOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  const withPolicy = command
    .addOption(
      oneOf('--fail-on <severity>', 'exit 1 when a finding at or above this severity is open', FAIL_ON, 'error'),
    )
    .addOption(
      new Option(
        '--merchant-id <id>',
        'our merchant (or LEDGER_RECON_MERCHANT_ID; default: what the credentials resolve to by a lookup by ID, else the one the last run checked for)',
      ).default(process.env['LEDGER_RECON_MERCHANT_ID'] || undefined),
    )
    .addOption(
      fromEnv(
        '--sla <file>',
        'exception SLA rules (JSON: by severity, amount at stake and age, the time a finding may stay open; docs/checking.md#exception-slas); the documented defaults otherwise (or LEDGER_RECON_SLA)',
        'LEDGER_RECON_SLA',
      ),
    );
  return addBooksThresholds(addThresholds(withPolicy)).addHelpText(
    'after',
    '\nExit codes: 0 no open finding at or above --fail-on, 1 there are,\n2 the run is INCOMPLETE or could not run, 130 / 143 stopped by Ctrl-C / SIGTERM.\n',
  );
}

/** The card and order checks' thresholds. */
function addThresholds<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>) {
  const d = DEFAULT_CHECK_OPTIONS;
  const at = <U extends string>(flags: U, help: string, value: number) => int(flags, help, 0, value);
  return command
    .addOption(
      at('--expiry-grace-minutes <n>', 'how long past expiry a card or coupon may stay ACTIVE', d.expiryGraceMinutes),
    )
    .addOption(
      at(
        '--stuck-order-sla-hours <n>',
        'how long an order may stay short of COMPLETED or FAILED',
        d.stuckOrderSlaHours,
      ),
    )
    .addOption(
      at(
        '--double-debit-window-seconds <n>',
        'two equal debits under one reference this close look doubled',
        d.doubleDebitWindowSeconds,
      ),
    );
}

/** The books matching's thresholds. */
function addBooksThresholds<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  const d = DEFAULT_CHECK_OPTIONS;
  const at = <U extends string>(flags: U, help: string, value: number) => int(flags, help, 0, value);
  return command
    .addOption(
      parsed(
        '--books-tolerance <list>',
        'matching the books: how far amounts may differ per currency, e.g. USD=0.05,EUR=0.05 (default 0.00)',
        amounts,
      ),
    )
    .addOption(
      at(
        '--books-window-hours <n>',
        'matching the books: how far apart in time a books row and its entry may be (tolerance and code-hash rules)',
        d.booksWindowHours,
      ),
    )
    .addOption(
      at(
        '--books-cutoff-minutes <n>',
        'matching the books: unmatched within this of the end of the data is in transit',
        d.booksCutoffMinutes,
      ),
    );
}

/** The check's options of the flags addThresholds and addBooksThresholds declare (`--books-tolerance` in cents per currency). */
export function checkOptionsOf(
  options: Partial<CheckOptions> & { booksTolerance?: Record<string, number> },
): Partial<CheckOptions> {
  return {
    ...(options.expiryGraceMinutes !== undefined ? { expiryGraceMinutes: options.expiryGraceMinutes } : {}),
    ...(options.stuckOrderSlaHours !== undefined ? { stuckOrderSlaHours: options.stuckOrderSlaHours } : {}),
    ...(options.doubleDebitWindowSeconds !== undefined
      ? { doubleDebitWindowSeconds: options.doubleDebitWindowSeconds }
      : {}),
    ...(options.booksTolerance !== undefined ? { booksToleranceCents: options.booksTolerance } : {}),
    ...(options.booksWindowHours !== undefined ? { booksWindowHours: options.booksWindowHours } : {}),
    ...(options.booksCutoffMinutes !== undefined ? { booksCutoffMinutes: options.booksCutoffMinutes } : {}),
  };
}

/** `check`: the night's judging alone. */
export function declareCheck(program: Program, { db }: Shared) {
  return addCheckOptions(
    program
      .command('check')
      .description("run the check catalogue over the mirror's newest sync; findings are kept across runs")
      .addOption(db())
      .option('--json', 'print one summary object on stdout')
      .option('--findings-json <file>', "write the run's findings as a JSON array")
      .option('--dry-run', 'judge the newest sync and record nothing: no run in history, no finding new or resolved'),
  );
}

/** `run`: the night. */
export function declareRun(program: Program, { db, out, signKey, checkpoints }: Shared) {
  const run = program
    .command('run')
    .description(
      'the nightly job: sync, check, confirm each gift card error against the service, and write the reports, under one lock',
    )
    .addOption(db())
    .addOption(out('where the workbook, CSV, JSON and page go (or LEDGER_RECON_OUT)'))
    .option('--full', 'a complete sync pass (run weekly)')
    .option('--json', 'print one summary object on stdout (run id, verdict, counts, report paths)')
    .addOption(init())
    .addOption(rebind())
    .addOption(concurrency())
    .option(
      '--books <dir>',
      "import the merchant's books in this folder (tenders*.csv, coupon-uses*.csv, dp-purchases*.csv, each with <kind>.map.json) before checking",
    )
    .addOption(preparer())
    .addOption(merchantName())
    .addOption(materialityOption())
    .addOption(
      parsed(
        '--push-metrics <url>',
        "push the night's metrics to a Prometheus Pushgateway, e.g. http://pushgateway:9091 (grouped by job and mirror)",
        httpUrl('--push-metrics'),
      ),
    )
    .addOption(signKey())
    .addOption(checkpoints())
    .option(
      '--metrics-file <file>',
      "write the night's metrics in Prometheus' text format, e.g. for node_exporter's textfile collector (- for stdout)",
    );
  return addCheckOptions(addServiceOptions(run));
}

/** `books import`: the merchant's own books. */
export function declareBooks(program: Program, { db }: Shared) {
  return program
    .command('books')
    .description("the merchant's own books, matched against the services at every check")
    .command('import')
    .description(
      "read exports of the merchant's books (CSV or JSON Lines) into the mirror: the same file again adds nothing, a changed one withdraws the rows it dropped",
    )
    .argument('<file...>', 'tenders, coupon uses or DP purchases')
    .addOption(
      oneOf('--kind <kind>', 'what the files hold (default: from the name, e.g. tenders-2026-10.csv)', [
        'tenders',
        'coupon-uses',
        'dp-purchases',
      ]),
    )
    .option(
      '--map <file>',
      'the mapping file: columns, payment/refund values, decimal separator, time formats and zone (default: <kind>.map.json beside the file, else columns named after the fields)',
    )
    .option(
      '--source <name>',
      'what the file is a version of (default: its name); a new version replaces the previous one of its source',
    )
    .option(
      '--replace',
      "let a version withdraw most of the rows of the previous one (refused by default: it looks like another period's file)",
    )
    .addOption(db())
    .option('--json', 'print one object per file')
    .addHelpText(
      'after',
      '\nExit codes: 0 imported (rows that failed are listed on stderr as\nfile:line: reason), 2 nothing could be imported. See docs/books.md for the\nmapping file.\n',
    );
}

/** `report`: a run's files written again from the mirror. */
export function declareReport(program: Program, { db, out, signKey, checkpoints }: Shared) {
  return program
    .command('report')
    .description('write the workbook, CSV, JSON and page of a check run (the newest by default) from the mirror')
    .addOption(db())
    .addOption(out('where the files go (or LEDGER_RECON_OUT)'))
    .addOption(runId())
    .option('--json', 'print one object: {runId, workbook, csv, json, page, evidence}')
    .addOption(signKey())
    .addOption(checkpoints())
    .addOption(preparer())
    .addOption(merchantName())
    .addOption(materialityOption());
}

/** `close`: a period's roll-forward and its workpapers. */
export function declareClose(program: Program, { db, out, signKey, checkpoints, liability }: Shared) {
  return addPeriodOptions(
    program
      .command('close')
      .description(
        "close a period: the gift card liability roll-forward per currency and program from the mirrored ledger, tied out against every card's balance at the cut-off (and the service's, for a period that ends now); writes its workpapers",
      ),
  )
    .option('--tz <zone>', "the merchant's time zone for the cut-offs, as Area/City (default UTC)")
    .addOption(preparer('fills "Prepared by" in the sign-off block'))
    .option('--json', 'print one object: the period, whether it ties out, each roll-forward and the files')
    .addOption(liability())
    .addOption(signKey())
    .addOption(checkpoints())
    .addOption(db())
    .addOption(out('where the files go (or LEDGER_RECON_OUT)'))
    .addHelpText('after', '\nExit codes: 0 every roll-forward ties out, 1 one does not, 2 it could not run.\n');
}

/** `liability`: the liability at the end of a day. */
export function declareLiability(program: Program, { db, liability }: Shared) {
  return program
    .command('liability')
    .description(
      "the gift card liability as finance closes it, at the end of a day: per currency the card balances less breakage recognised less escheat payable (the contract liability), each program's breakage rate, the escheat candidates; the close writes the full workpaper",
    )
    .requiredOption(
      '--as-of <date>',
      "the day, YYYY-MM-DD: the liability at its end (or the mirror's data edge, if earlier)",
    )
    .option('--tz <zone>', "the merchant's time zone for the day's end, as Area/City (default UTC)")
    .option('--json', 'print one object: the split, vintages, bands, rates, breakage and escheat candidates')
    .addOption(liability())
    .addOption(db());
}

/** `sql`: one read-only statement of the investigator's, bounded. */
export function declareSql(program: Program, { db }: Shared) {
  const sql = program
    .command('sql')
    .description(
      'run one read-only SQL statement against the mirror (views: card_ledger, card_reconciliation, refunds_by_reference, open_findings, order_lines_fx, coupon_redemption_history, wallet_balance_history, liability_by_vintage, liability_dormancy)',
    )
    .argument('[statement...]', 'one SELECT statement, in quotes')
    .option('--file <file>', 'read the statement from a file')
    .addOption(db())
    .addOption(
      oneOf(
        '--format <format>',
        'output: a table (default on a terminal), CSV (default otherwise) or JSON',
        SQL_FORMATS,
      ),
    );
  return addStatementBounds(sql).addHelpText('after', `${examples(SQL_QUOTING)}\n`);
}

/** How a statement reaches `sql` whole: quoted, or from a file. */
const SQL_QUOTING: readonly (readonly [string, string])[] = [
  ['sql "select * from card_reconciliation limit 20"', 'a statement in quotes: the shell passes it as one argument'],
  ['sql --file query.sql --format csv > rows.csv', 'a statement from a file, its rows as CSV'],
];

/** A statement's bounds: rows, megabytes and seconds. */
function addStatementBounds<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  const bounds = DEFAULT_STATEMENT_BOUNDS;
  return command
    .addOption(int('--max-rows <n>', 'stop a statement that returns more rows than this', 1, bounds.maxRows))
    .addOption(
      int(
        '--max-mb <n>',
        'stop a statement whose rows come to more megabytes than this',
        1,
        bounds.maxBytes / (1024 * 1024),
      ),
    )
    .addOption(int('--max-seconds <n>', 'stop a statement that runs longer than this', 1, bounds.timeoutMs / 1000));
}

/** `verify`: a folder offline, a card's proof, or a past night or close re-performed. */
export function declareVerify(program: Program, { db, locations }: Shared) {
  const verify = program
    .command('verify')
    .description(
      'check every evidence manifest in a folder of outputs, the files each seals (SHA-256) and the chain between them, offline (no mirror, no services); with --run or --close, re-perform a past night or close from the mirror; one line per problem, exit 1 when anything does not hold',
    )
    .argument('[folder]', 'the folder of outputs (the same as --dir)')
    .option(
      '--dir <folder>',
      'the folder of outputs and their …-evidence.json (or LEDGER_RECON_OUT)',
      locations.reports,
    )
    .option('--json', 'print one object: {ok, dir, manifests, files, signed, problems}');
  return addHeldOptions(verify)
    .option('--proof <file>', "instead, with --checkpoint: check a card's proof (ledger-recon prove) with no mirror")
    .addOption(
      runId(
        "instead, with the mirror: re-perform this past check run's ledger population from the mirror's history and compare it with what it sealed",
      ),
    )
    .option(
      '--close <period>',
      "instead, with the mirror: re-perform this period's close (2026-10) over the mirror's history at the sync it read, against what it sealed",
    )
    .addOption(
      repeated(
        '--set <key=value>',
        `with --run: what would change under another setting (${SETTABLE_KEYS.join(', ')}); repeatable`,
      ),
    )
    .addOption(db());
}

/** What verify holds a folder to: a public key, the checkpoints the auditor holds, a witness's key. */
function addHeldOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command
    .option(
      '--public-key <file>',
      'an Ed25519 public key (PEM): every manifest must be signed by it (its …-evidence.dsse.json), and every checkpoint',
    )
    .addOption(
      repeated(
        '--checkpoint <file|dir>',
        "a checkpoint of the log you hold (or the log's folder of them): every seal up to its size must be in the folder and give its root; repeat it with an older one to prove the log only grew",
      ),
    )
    .option(
      '--witness-key <file>',
      "a witness's Ed25519 public key (PEM): the newest checkpoint must be cosigned by it",
    );
}

/** `export`: the ledger for hledger, or the holder report of unclaimed property. */
export function declareExport(program: Program, { db, liability }: Shared) {
  return addPeriodOptions(
    program
      .command('export')
      .description(
        "export the gift card ledger for an independent cross-check: hledger (a journal with a balance assertion per entry, at a check run's cut-off: hledger balance giftcards:<currency> is that run's liability)",
      )
      .argument(
        '<format>',
        'hledger, or unclaimed (the holder report of the balances past their dormancy period, a CSV with NAUPA property fields)',
      )
      .requiredOption('--out <file>', 'the file to write (-: standard output)')
      .option(
        '--json',
        'print one object: {format, out, cards, entries, cutOff} (unclaimed: {format, out, properties, cutOff})',
      )
      .addOption(runId('hledger: the check run whose cut-off and merchant it takes (default: the newest)')),
    'unclaimed: ',
  )
    .option('--tz <zone>', "unclaimed: the merchant's time zone for the cut-off (default UTC)")
    .addOption(liability())
    .addOption(db());
}

/** `prove`: one card's proof, for sampling. */
export function declareProve(program: Program, { db }: Shared) {
  return program
    .command('prove')
    .description(
      "for sampling: write the proof that one card, as a night sealed it, is in that night's population and the night's manifest in the log, for an auditor to check offline with `verify --proof FILE --checkpoint FILE`",
    )
    .addOption(runId().makeOptionMandatory())
    .requiredOption('--card <id>', 'the gift card')
    .option(
      '--checkpoint <file|dir>',
      'a checkpoint the auditor holds: the proof is of the log at its size (default: the whole log)',
    )
    .option('--out <file>', 'where the proof goes (- for standard output)', '-')
    .addOption(db());
}

/** `witness`: a checkpoint cosigned when the log only grew. */
export function declareWitness(program: Program) {
  return program
    .command('witness')
    .description(
      "as a witness (the auditor, a second team): cosign the newest checkpoint in a log's folder when the log only grew since the one this witness cosigned last; exit 1 when it did not",
    )
    .argument('<log-folder>', "the log's folder under the job's --checkpoints place")
    .requiredOption('--key <file>', "the witness's Ed25519 private key (PEM), which the job never holds")
    .requiredOption('--name <name>', "the witness's name in its cosignature, e.g. auditor.example/witness")
    .requiredOption(
      '--state <file>',
      'where the witness keeps the checkpoint it cosigned last (somewhere the job cannot write)',
    )
    .option('--log-key <file>', "the log's Ed25519 public key (PEM): every checkpoint must be signed by it")
    .option('--json', 'print one object: {ok, origin, size, since, cosigned} or {ok, problem}');
}

/** `findings list`: the newest complete run's findings. */
export function declareFindings(program: Program, { db }: Shared) {
  return program
    .command('findings')
    .description('the findings of the newest complete run')
    .command('list')
    .description(
      "list the newest complete run's findings (new, open, accepted), worst and oldest first, with the fingerprint accept takes; records no run",
    )
    .addOption(db())
    .option('--code <code>', "only this check's findings (e.g. GC_BALANCE_MISMATCH)")
    .option('--severity <severity>', 'only findings of this severity: error, warning or info')
    .addOption(int('--min-age <days>', 'only findings at least this many days old', 0))
    .option(
      '--overdue',
      "only findings past their due time by the run's exception SLA rules (overdue ones lead the list anyway)",
    )
    .option('--json', 'print a JSON array, the fields of the findings file');
}

/** `history`: past runs, newest first. */
export function declareHistory(program: Program, { db }: Shared) {
  return program
    .command('history')
    .description('past check runs with times, verdicts and finding totals, newest first')
    .addOption(db())
    .option('--json', 'print a JSON array')
    .addOption(int('--limit <n>', 'how many runs', 1, 30));
}

/** `fleet`: every merchant at once, from their mirrors. */
export function declareFleet(program: Program, { out }: Shared) {
  return program
    .command('fleet')
    .description(
      "every merchant at once, read from their mirrors (never the services): each one's last night and when it ran, open breaks by age with the money in each, the oldest, the overdue, money at stake and the liability; worst first, as lines, a page and JSON; exit 1 when any failed, is late, cannot be read or has an overdue break",
    )
    .argument('[mirror...]', 'mirrors to read: SQLite files, or postgres://…?schema=name')
    .addOption(
      repeated(
        '--server <url>',
        'a PostgreSQL database (postgres://user@host/db): every schema in it holding a mirror; repeatable',
      ),
    )
    .addOption(int('--late-after-hours <n>', 'a merchant whose last night started longer ago than this is late', 1, 26))
    .addOption(out('where the page and the JSON go (or LEDGER_RECON_OUT)'))
    .option('--json', 'print the fleet as one JSON object (what the JSON file holds, and the files)');
}

/** `accept`: a known break that no longer fails runs. */
export function declareAccept(program: Program, { db }: Shared) {
  return program
    .command('accept')
    .description(
      'accept a known break: it stays in reports but does not fail runs until --until passes or the break changes',
    )
    .argument('<fingerprint>', "the finding's fingerprint (findings JSON, report)")
    .option('--note <text>', 'why it is accepted: the justification auditors read (required)')
    .option('--by <name>', 'who accepts (default: the operating-system user)')
    .option('--until <date>', 'the acceptance lapses after this UTC day (YYYY-MM-DD)')
    .option('--json', 'print one object: {accepted, code, fingerprint, by, until, note}')
    .addOption(db());
}

/** `demo`: the night against the built-in simulator. */
export function declareDemo(program: Program, { locations }: Shared) {
  return program
    .command('demo')
    .description(
      'the nightly job against the built-in simulator, with every planted break and look-alike (what npm start runs)',
    )
    .addOption(int('--seed <n>', 'seed of the generated data', 0, 1))
    .option(
      '--db <path|url>',
      "the demo's mirror, a file or postgres://…?schema=name (made afresh; never one the demo did not make)",
      locations.demoDb,
    )
    .option(
      '--out <dir>',
      `where the demo's reports go (default: ${locations.demoReports}, or ${locations.demoReports}-postgres for a PostgreSQL --db, so neither replaces the other's)`,
    );
}

/** `completion`: a shell's completion script. */
export function declareCompletion(program: Program) {
  return program
    .command('completion')
    .description('print a completion script for bash or zsh, made from these very commands and options')
    .argument('<shell>', 'bash or zsh');
}
