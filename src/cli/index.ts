import { createRequire } from 'node:module';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../errors.js';
import { FAULT_KINDS } from '../sim/faults.js';
import { SIZE_PRESETS } from '../sim/generator.js';
import { FAIL_ON } from '../findings/verdict.js';
import { DEFAULT_CHECK_OPTIONS } from '../checks/check.js';
import { addServiceOptions } from './service-options.js';
import { SQL_FORMATS } from '../sql-formats.js';
import { DEFAULT_STATEMENT_BOUNDS } from '../db/types.js';
import { LOG_LEVELS } from '../log.js';
import { shownDb } from '../db/location.js';
import { defaultLocations, type Locations } from '../locations.js';
import { releaseSignals } from './held-signals.js';
import { amountsPerCurrency, SETTABLE_KEYS } from '../app/settings.js';

/** The commands that take SIGINT and SIGTERM themselves (onInterrupt): a signal held while the process loaded is theirs. */
const TAKES_SIGNALS: ReadonlySet<string> = new Set(['sync', 'run', 'books import', 'close']);

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const integer =
  (name: string, min: number) =>
  (value: string): number => {
    if (!/^-?\d+$/.test(value) || Number(value) < min)
      throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return Number(value);
  };
/** `USD=100.00,EUR=100` → cents per currency, read exactly from the decimal text; a usage error saying why not. */
const materiality = (value: string): Map<string, number> => {
  try {
    return amountsPerCurrency(value);
  } catch (error) {
    throw new InvalidArgumentError(`It takes ${(error as Error).message}.`);
  }
};
/** The same, as the JSON-friendly record the check options keep. */
const amounts = (value: string): Record<string, number> => Object.fromEntries(materiality(value));
/** A help's examples, as gh and hledger show them: what each does (`# …`), then the command line. */
export function examples(lines: readonly (readonly [string, string])[]): string {
  return `\nExamples:\n${lines.map(([command, comment]) => `  # ${comment}\n  ledger-recon ${command}`).join('\n\n')}`;
}

/** An http(s) URL, or a usage error naming the flag. */
const httpUrl =
  (flag: string) =>
  (value: string): string => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new InvalidArgumentError(`${flag} needs an http:// or https:// URL, e.g. http://pushgateway:9091`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new InvalidArgumentError(`${flag} needs an http:// or https:// URL, e.g. http://pushgateway:9091`);
    return value;
  };

const rate = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
};

/** The checker's thresholds and exit policy, shared by `check` and `run`. */
function addCheckOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--fail-on <severity>', 'exit 1 when a finding at or above this severity is open')
        .choices(FAIL_ON)
        .default('error'),
    )
    .option(
      '--merchant-id <id>',
      'our merchant (or LEDGER_RECON_MERCHANT_ID; default: what the credentials resolve to by a lookup by ID, else the one the last run checked for)',
      process.env['LEDGER_RECON_MERCHANT_ID'] || undefined,
    )
    .addOption(
      new Option(
        '--sla <file>',
        'exception SLA rules (JSON: by severity, amount at stake and age, the time a finding may stay open; docs/checking.md#exception-slas); the documented defaults otherwise (or LEDGER_RECON_SLA)',
      ).env('LEDGER_RECON_SLA'),
    )
    .addOption(
      new Option('--expiry-grace-minutes <n>', 'how long past expiry a card or coupon may stay ACTIVE')
        .default(DEFAULT_CHECK_OPTIONS.expiryGraceMinutes)
        .argParser(integer('--expiry-grace-minutes', 0)),
    )
    .addOption(
      new Option('--stuck-order-sla-hours <n>', 'how long an order may stay short of COMPLETED or FAILED')
        .default(DEFAULT_CHECK_OPTIONS.stuckOrderSlaHours)
        .argParser(integer('--stuck-order-sla-hours', 0)),
    )
    .addOption(
      new Option('--double-debit-window-seconds <n>', 'two equal debits under one reference this close look doubled')
        .default(DEFAULT_CHECK_OPTIONS.doubleDebitWindowSeconds)
        .argParser(integer('--double-debit-window-seconds', 0)),
    )
    .addOption(
      new Option(
        '--books-tolerance <list>',
        'matching the books: how far amounts may differ per currency, e.g. USD=0.05,EUR=0.05 (default 0.00)',
      ).argParser(amounts),
    )
    .addOption(
      new Option(
        '--books-window-hours <n>',
        'matching the books: how far apart in time a books row and its entry may be (tolerance and code-hash rules)',
      )
        .default(DEFAULT_CHECK_OPTIONS.booksWindowHours)
        .argParser(integer('--books-window-hours', 0)),
    )
    .addOption(
      new Option(
        '--books-cutoff-minutes <n>',
        'matching the books: unmatched within this of the end of the data is in transit',
      )
        .default(DEFAULT_CHECK_OPTIONS.booksCutoffMinutes)
        .argParser(integer('--books-cutoff-minutes', 0)),
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 no open finding at or above --fail-on, 1 there are,\n2 the run is INCOMPLETE or could not run, 130 / 143 stopped by Ctrl-C / SIGTERM.\n',
    );
}

/** What several commands share: the mirror, the reports folder and the signing key, as options. */
interface SharedOptions {
  /** The mirror: a file or a PostgreSQL schema; help shows a URL's default without its password. */
  db: () => Option;
  /** The key signing a seal: its path only, read by the command that seals (never stored). */
  signKey: () => Option;
  /** Where the log's checkpoints are published after each seal. */
  checkpoints: () => Option;
  /** What shapes breakage and unclaimed property: a JSON file (docs/liability.md). */
  liability: () => Option;
  outFolder: string;
}

/**
 * The `ledger-recon` program: declarations only; each command lives in its own file, loaded
 * when the command runs, so `--help` and `--version` load no heavy module (exceljs, drizzle,
 * undici, better-sqlite3).
 */
export function buildProgram(): Command {
  // Read once the environment (and any --settings file) is in place: main.ts loads that first.
  const locations = defaultLocations();
  const shared: SharedOptions = {
    db: () =>
      new Option(
        '--db <path|url>',
        'the mirror: a SQLite file, or postgres://user@host:port/db?schema=name (or LEDGER_RECON_DB)',
      ).default(locations.db, shownDb(locations.db)),
    signKey: () =>
      new Option(
        '--sign-key <file>',
        'sign the evidence manifest with the Ed25519 private key (PEM) in this file, only you can read it: …-evidence.dsse.json',
        // Named, never shown: help prints no value of the variable (a key put there by mistake stays unprinted).
      ).env('LEDGER_RECON_SIGN_KEY'),
    checkpoints: () =>
      new Option(
        '--checkpoints <dir|url>',
        "after the seal, publish the log's checkpoint outside the mirror: into this folder (a write-once bucket's mount, an auditor's share) or to an https:// endpoint that receives it (or LEDGER_RECON_CHECKPOINTS)",
      ).env('LEDGER_RECON_CHECKPOINTS'),
    liability: () =>
      new Option(
        '--liability <file>',
        'the liability settings (JSON: standard, maturity, haircut, breakage rates per program, jurisdictions and their dormancy; docs/liability.md); the documented defaults otherwise (or LEDGER_RECON_LIABILITY)',
      ).env('LEDGER_RECON_LIABILITY'),
    outFolder: locations.reports,
  };
  const program = rootCommand();
  addSimulate(program);
  addServiceCommands(program, shared);
  addNightCommands(program, shared);
  addBooksCommands(program, shared);
  addOutputCommands(program, shared);
  addEvidenceCommands(program, shared);
  addLogCommands(program, shared);
  addMirrorCommands(program, shared, locations);
  for (const [path, lines] of Object.entries(EXAMPLES)) commandAt(program, path).addHelpText('after', examples(lines));
  return program;
}

/** The program itself: its description, global options, and the hook that hands them to every command. */
function rootCommand(): Command {
  return (
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
        new Option('--log-level <level>', 'the talk with the services on stderr: info each retry, debug every request')
          .choices(LOG_LEVELS)
          .default('warn'),
      )
      .option('-v', 'log each retry of a request with its cause (--log-level info)')
      // The global options reach every command: --quiet as the command's own option, the log level
      // through the environment the service clients read.
      .hook('preAction', (root, command) => {
        // A command that works for a while takes the signals held while the process loaded; the others give them back.
        const path =
          command.parent && command.parent !== root ? `${command.parent.name()} ${command.name()}` : command.name();
        if (!TAKES_SIGNALS.has(path)) releaseSignals();
        const globals = command.optsWithGlobals();
        if (globals['quiet'] === true) command.setOptionValue('quiet', true);
        const level =
          root.getOptionValueSource('logLevel') === 'default' && globals['v'] === true ? 'info' : globals['logLevel'];
        process.env['LEDGER_RECON_LOG_LEVEL'] = String(level);
      })
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
      .addHelpText(
        'after',
        '\nExit codes: 0 reconciled, 1 breaks at or above --fail-on, 2 could not complete\n' +
          '(configuration, credentials, service unreachable, lock held), 130 / 143\n' +
          'stopped by Ctrl-C / SIGTERM (the next run resumes).\n\n' +
          'Configuration comes from GIFTCARD_API_URL, GIFTCARD_CLIENT_ID,\n' +
          'GIFTCARD_CLIENT_SECRET, DP_API_URL, DP_CLIENT_ID and DP_CLIENT_SECRET; each\n' +
          'has a flag that overrides it. LEDGER_RECON_DB and LEDGER_RECON_OUT set the\n' +
          'default --db and --out; --settings FILE reads any of them from a file.',
      )
  );
}

/** `simulate`: both services, generated, on 127.0.0.1. */
function addSimulate(program: Command): void {
  program
    .command('simulate')
    .description('serve simulators of both services on 127.0.0.1, for demos, tests and benchmarks')
    .addOption(new Option('--seed <n>', 'seed of the generated data').default(1).argParser(integer('--seed', 0)))
    .addOption(
      new Option('--port <port>', 'port of the gift card service').default(4010).argParser(integer('--port', 0)),
    )
    .addOption(
      new Option('--dp-port <port>', 'port of the delivery partner service')
        .default(4020)
        .argParser(integer('--dp-port', 0)),
    )
    .addOption(new Option('--size <preset>', 'data size').choices(Object.keys(SIZE_PRESETS)).default('small'))
    .addOption(new Option('--cards <n>', 'gift cards (overrides the preset)').argParser(integer('--cards', 0)))
    .addOption(
      new Option('--entries-per-card <n>', 'mean ledger entries per card').argParser(integer('--entries-per-card', 0)),
    )
    .addOption(new Option('--coupons <n>', 'coupons').argParser(integer('--coupons', 0)))
    .addOption(new Option('--products <n>', 'DP products (at least 2)').argParser(integer('--products', 2)))
    .addOption(new Option('--orders <n>', 'DP orders').argParser(integer('--orders', 0)))
    .option('--plant', 'plant every break one sync can reveal, and the legal look-alikes')
    .option('--manifest <file>', 'write the planted breaks as JSON (code and records of each)')
    .option(
      '--books <dir>',
      "also write the merchant's own exports of this world (tenders, coupon uses, DP purchases, with their maps) into this folder",
    )
    .addOption(
      new Option('--card-list <shape>', 'element shape of GET /v1/giftCards')
        .choices(['full', 'minimal'])
        .default('full'),
    )
    .addOption(new Option('--faults <rate>', 'probability of a fault per request, 0 to 1').argParser(rate))
    .option('--fault-kinds <list>', `comma-separated subset of: ${FAULT_KINDS.join(', ')}`)
    .addOption(
      new Option('--retry-after <seconds>', 'Retry-After of injected 429s').argParser(integer('--retry-after', 0)),
    )
    .addOption(new Option('--slow-ms <ms>', 'delay of a slow response').argParser(integer('--slow-ms', 0)))
    .addOption(
      new Option('--max-in-flight <n>', 'answer 429 above this many requests in flight').argParser(
        integer('--max-in-flight', 1),
      ),
    )
    .addOption(
      new Option('--live <ms>', 'apply one legal debit, refund, order or fulfilment every <ms>').argParser(
        integer('--live', 1),
      ),
    )
    .addOption(
      new Option('--latency <ms>', 'delay every answer by <ms>, like a network round trip').argParser(
        integer('--latency', 0),
      ),
    )
    .option('--control', 'read "activity N" (apply N legal operations) and "latency MS" lines on stdin (benchmarks)')

    .action(async (options) => (await import('./simulate.js')).simulate(options));
}

/** `ping`, `doctor` and `sync`: the commands that talk to the services. */
function addServiceCommands(program: Command, { db, outFolder }: SharedOptions): void {
  addServiceOptions(
    program
      .command('ping')
      .description('check the configuration and that both services accept the credentials (reads one record each)')
      .option('--json', 'print one object: {ok, giftcard, dp}'),
  ).action(async (options) => (await import('./ping.js')).ping(options));

  addServiceOptions(
    program
      .command('doctor')
      .description(
        'check everything a night needs, one line each with ok or the fix: settings, both services, the mirror, disk, --out',
      )
      .addOption(db())
      .option('--out <dir>', 'where the reports go (or LEDGER_RECON_OUT)', outFolder)
      .option('--json', 'print one JSON object: {ok, checks: [{ok, subject, text}]}'),
  ).action(async (options) => {
    await (await import('./doctor.js')).doctor(options);
  });

  addServiceOptions(
    program
      .command('sync')
      .description('mirror both services into the mirror (the first run, or --full, reads everything)')
      .addOption(db())
      .option(
        '--full',
        'a complete pass: re-read the whole ledger, report entries that changed or vanished (run weekly)',
      )
      .option('--json', 'print one summary object on stdout instead of progress')
      .option('--init', 'make a new mirror at --db even in a folder holding other files, or under folders not made yet')
      .option(
        '--rebind',
        'move a mirror bound to other services (another base URL or client ID) to these ones, on purpose',
      )
      .addOption(
        new Option('--overlap-minutes <n>', 'incremental ledger reads go this far below the newest mirrored entry')
          .default(60)
          .argParser(integer('--overlap-minutes', 0)),
      )
      .addOption(
        new Option(
          '--concurrency <n>',
          'requests in flight per service: list walks (read at the same time) and by-ID reads together',
        )
          .default(8)
          .argParser(integer('--concurrency', 1)),
      ),
  ).action(async (options) => {
    await (await import('./sync.js')).sync(options);
  });
}

/** `check` and `run`: the night, and its judging alone. */
function addNightCommands(program: Command, { db, outFolder, signKey, checkpoints }: SharedOptions): void {
  addCheckOptions(
    program
      .command('check')
      .description("run the check catalogue over the mirror's newest sync; findings are kept across runs")
      .addOption(db())
      .option('--json', 'print one summary object on stdout')
      .option('--findings-json <file>', "write the run's findings as a JSON array")
      .option('--dry-run', 'judge the newest sync and record nothing: no run in history, no finding new or resolved'),
  ).action(async (options) => {
    await (await import('./check.js')).check(options);
  });

  addCheckOptions(
    addServiceOptions(
      program
        .command('run')
        .description(
          'the nightly job: sync, check, confirm each gift card error against the service, and write the reports, under one lock',
        )
        .addOption(db())
        .option('--out <dir>', 'where the workbook, CSV and JSON go (or LEDGER_RECON_OUT)', outFolder)
        .option('--full', 'a complete sync pass (run weekly)')
        .option('--json', 'print one summary object on stdout (run id, verdict, counts, report paths)')
        .option(
          '--init',
          'make a new mirror at --db even in a folder holding other files, or under folders not made yet',
        )
        .option(
          '--rebind',
          'move a mirror bound to other services (another base URL or client ID) to these ones, on purpose',
        )
        .addOption(
          new Option(
            '--concurrency <n>',
            'requests in flight per service: list walks (read at the same time) and by-ID reads together',
          )
            .default(8)
            .argParser(integer('--concurrency', 1)),
        )
        .option(
          '--books <dir>',
          "import the merchant's books in this folder (tenders*.csv, coupon-uses*.csv, dp-purchases*.csv, each with <kind>.map.json) before checking",
        )
        .option('--preparer <name>', 'fills "Prepared by" in the workbook\'s sign-off block')
        .addOption(
          new Option(
            '--merchant-name <name>',
            "the merchant's name for the workbook's title, footer and page 1 (or LEDGER_RECON_MERCHANT_NAME; default: its ID)",
          ).env('LEDGER_RECON_MERCHANT_NAME'),
        )
        .addOption(
          new Option(
            '--materiality <list>',
            'money at stake per currency at or above which a finding is material, e.g. USD=100.00,EUR=100.00',
          ).argParser(materiality),
        )
        .addOption(
          new Option(
            '--push-metrics <url>',
            "push the night's metrics to a Prometheus Pushgateway, e.g. http://pushgateway:9091 (grouped by job and mirror)",
          ).argParser(httpUrl('--push-metrics')),
        )
        .addOption(signKey())
        .addOption(checkpoints())
        .option(
          '--metrics-file <file>',
          "write the night's metrics in Prometheus' text format, e.g. for node_exporter's textfile collector (- for stdout)",
        ),
    ),
  ).action(async (options) => {
    await (await import('./run.js')).run(options);
  });
}

/** `books import`: the merchant's own books. */
function addBooksCommands(program: Command, { db }: SharedOptions): void {
  const books = program
    .command('books')
    .description("the merchant's own books, matched against the services at every check");
  books
    .command('import')
    .description(
      "read exports of the merchant's books (CSV or JSON Lines) into the mirror: the same file again adds nothing, a changed one withdraws the rows it dropped",
    )
    .argument('<file...>', 'tenders, coupon uses or DP purchases')
    .addOption(
      new Option('--kind <kind>', 'what the files hold (default: from the name, e.g. tenders-2026-10.csv)').choices([
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
    )
    .action(async (files: string[], options) => {
      await (await import('./books.js')).booksImport(files, options);
    });
}

/** `report`, `close` and `sql`: what the mirror says, written or asked. */
function addOutputCommands(program: Command, { db, outFolder, signKey, checkpoints, liability }: SharedOptions): void {
  program
    .command('report')
    .description('write the workbook, CSV and JSON of a check run (the newest by default) from the mirror')
    .addOption(db())
    .option('--out <dir>', 'where the files go (or LEDGER_RECON_OUT)', outFolder)
    .addOption(new Option('--run <id>', 'the check run').argParser(integer('--run', 1)))
    .option('--json', 'print one object: {runId, workbook, csv, json, evidence}')
    .addOption(signKey())
    .addOption(checkpoints())
    .option('--preparer <name>', 'fills "Prepared by" in the workbook\'s sign-off block')
    .addOption(
      new Option(
        '--merchant-name <name>',
        "the merchant's name for the workbook's title, footer and page 1 (or LEDGER_RECON_MERCHANT_NAME; default: its ID)",
      ).env('LEDGER_RECON_MERCHANT_NAME'),
    )
    .addOption(
      new Option(
        '--materiality <list>',
        'money at stake per currency at or above which a finding is material, e.g. USD=100.00,EUR=100.00',
      ).argParser(materiality),
    )
    .action(async (options) => {
      await (await import('./report.js')).report(options);
    });

  program
    .command('close')
    .description(
      "close a period: the gift card liability roll-forward per currency and program from the mirrored ledger, tied out against every card's balance at the cut-off (and the service's, for a period that ends now); writes its workpapers",
    )
    .option('--period <month>', 'the month to close, YYYY-MM')
    .option('--from <date>', 'first day of the period, YYYY-MM-DD (with --to)')
    .option('--to <date>', 'last day of the period, YYYY-MM-DD, included')
    .option('--tz <zone>', "the merchant's time zone for the cut-offs, as Area/City (default UTC)")
    .option('--preparer <name>', 'fills "Prepared by" in the sign-off block')
    .option('--json', 'print one object: the period, whether it ties out, each roll-forward and the files')
    .addOption(liability())
    .addOption(signKey())
    .addOption(checkpoints())
    .addOption(db())
    .option('--out <dir>', 'where the files go (or LEDGER_RECON_OUT)', outFolder)
    .addHelpText('after', '\nExit codes: 0 every roll-forward ties out, 1 one does not, 2 it could not run.\n')
    .action(async (options) => {
      await (await import('./close.js')).close(options);
    });

  program
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
    .addOption(db())
    .action(async (options) => {
      await (await import('./liability.js')).liabilityCommand(options);
    });

  addSqlCommand(program, db);
}

/** `sql`: one read-only statement of the investigator's, bounded. */
function addSqlCommand(program: Command, db: SharedOptions['db']): void {
  program
    .command('sql')
    .description(
      'run one read-only SQL statement against the mirror (views: card_ledger, card_reconciliation, refunds_by_reference, open_findings, order_lines_fx, coupon_redemption_history, wallet_balance_history, liability_by_vintage, liability_dormancy)',
    )
    .argument('[statement...]', 'one SELECT statement, in quotes')
    .option('--file <file>', 'read the statement from a file')
    .addOption(db())
    .addOption(
      new Option(
        '--format <format>',
        'output: a table (default on a terminal), CSV (default otherwise) or JSON',
      ).choices(SQL_FORMATS),
    )
    .addOption(
      new Option('--max-rows <n>', 'stop a statement that returns more rows than this')
        .default(DEFAULT_STATEMENT_BOUNDS.maxRows)
        .argParser(integer('--max-rows', 1)),
    )
    .addOption(
      new Option('--max-mb <n>', 'stop a statement whose rows come to more megabytes than this')
        .default(DEFAULT_STATEMENT_BOUNDS.maxBytes / (1024 * 1024))
        .argParser(integer('--max-mb', 1)),
    )
    .addOption(
      new Option('--max-seconds <n>', 'stop a statement that runs longer than this')
        .default(DEFAULT_STATEMENT_BOUNDS.timeoutMs / 1000)
        .argParser(integer('--max-seconds', 1)),
    )
    .addHelpText(
      'after',
      `${examples([
        [
          'sql "select * from card_reconciliation limit 20"',
          'a statement in quotes: the shell passes it as one argument',
        ],
        ['sql --file query.sql --format csv > rows.csv', 'a statement from a file, its rows as CSV'],
      ])}\n`,
    )
    .action(async (words: string[], options) => {
      // `sql select 1` reaches here as two words (and `*` as the shell's file names): one statement, quoted, is asked for.
      if (words.length > 1)
        throw new ConfigError(
          'statement',
          `the statement came as ${words.length} arguments, and sql takes one: put it in quotes, e.g. ledger-recon sql "SELECT count(*) FROM gift_cards"`,
        );
      await (await import('./sql.js')).sql(words[0], options);
    });
}

/** `verify` and `export`: what lets someone else check the figures. */
function addEvidenceCommands(program: Command, { db, outFolder, liability }: SharedOptions): void {
  program
    .command('verify')
    .description(
      'check every evidence manifest in a folder of outputs, the files each seals (SHA-256) and the chain between them, offline (no mirror, no services); with --run or --close, re-perform a past night or close from the mirror; one line per problem, exit 1 when anything does not hold',
    )
    .argument('[folder]', 'the folder of outputs (the same as --dir)')
    .option('--dir <folder>', 'the folder of outputs and their …-evidence.json (or LEDGER_RECON_OUT)', outFolder)
    .option('--json', 'print one object: {ok, dir, manifests, files, signed, problems}')
    .option(
      '--public-key <file>',
      'an Ed25519 public key (PEM): every manifest must be signed by it (its …-evidence.dsse.json), and every checkpoint',
    )
    .option(
      '--checkpoint <file|dir>',
      "a checkpoint of the log you hold (or the log's folder of them): every seal up to its size must be in the folder and give its root; repeat it with an older one to prove the log only grew",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--witness-key <file>',
      "a witness's Ed25519 public key (PEM): the newest checkpoint must be cosigned by it",
    )
    .option('--proof <file>', "instead, with --checkpoint: check a card's proof (ledger-recon prove) with no mirror")
    .addOption(
      new Option(
        '--run <id>',
        "instead, with the mirror: re-perform this past check run's ledger population from the mirror's history and compare it with what it sealed",
      ).argParser(integer('--run', 1)),
    )
    .option(
      '--close <period>',
      "instead, with the mirror: re-perform this period's close (2026-10) over the mirror's history at the sync it read, against what it sealed",
    )
    .option(
      '--set <key=value>',
      `with --run: what would change under another setting (${SETTABLE_KEYS.join(', ')}); repeatable`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .addOption(db())
    .action(async (folder: string | undefined, options, command: Command) => {
      if (folder !== undefined) {
        if (command.getOptionValueSource('dir') === 'cli' && options.dir !== folder)
          throw new ConfigError('--dir', `verify was given two folders, ${folder} and --dir ${options.dir}: give one`);
        options.dir = folder;
      }
      // A folder named (not the default reports folder) is one --run and --close hold the mirror's seals to.
      options.dirNamed = folder !== undefined || command.getOptionValueSource('dir') === 'cli';
      await (await import('./verify.js')).verify(options);
    });

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
    .addOption(
      new Option(
        '--run <id>',
        'hledger: the check run whose cut-off and merchant it takes (default: the newest)',
      ).argParser(integer('--run', 1)),
    )
    .option('--period <month>', 'unclaimed: the month whose end is the cut-off, YYYY-MM')
    .option('--from <date>', 'unclaimed: first day of the period, YYYY-MM-DD (with --to)')
    .option('--to <date>', 'unclaimed: last day of the period, YYYY-MM-DD, included')
    .option('--tz <zone>', "unclaimed: the merchant's time zone for the cut-off (default UTC)")
    .addOption(liability())
    .addOption(db())
    .action(async (format: string, options) => {
      if (format === 'unclaimed') await (await import('./liability.js')).exportUnclaimed(options);
      else await (await import('./export.js')).exportCommand(format, options);
    });
}

/** The log's commands: `prove` a card for sampling, and `witness` a checkpoint. */
function addLogCommands(program: Command, { db }: SharedOptions): void {
  program
    .command('prove')
    .description(
      "for sampling: write the proof that one card, as a night sealed it, is in that night's population and the night's manifest in the log, for an auditor to check offline with `verify --proof FILE --checkpoint FILE`",
    )
    .addOption(new Option('--run <id>', 'the check run').argParser(integer('--run', 1)).makeOptionMandatory())
    .requiredOption('--card <id>', 'the gift card')
    .option(
      '--checkpoint <file|dir>',
      'a checkpoint the auditor holds: the proof is of the log at its size (default: the whole log)',
    )
    .option('--out <file>', 'where the proof goes (- for standard output)', '-')
    .addOption(db())
    .action(async (options) => {
      await (await import('./prove.js')).prove(options);
    });

  program
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
    .option('--json', 'print one object: {ok, origin, size, since, cosigned} or {ok, problem}')
    .action(async (logFolder: string, options) => {
      await (await import('./witness.js')).witnessCommand(logFolder, options);
    });
}

/** `findings list`, `history`, `accept`, `demo` and `completion`. */
function addMirrorCommands(program: Command, { db }: SharedOptions, locations: Locations): void {
  program
    .command('findings')
    .description('the findings of the newest complete run')
    .command('list')
    .description(
      "list the newest complete run's findings (new, open, accepted), worst and oldest first, with the fingerprint accept takes; records no run",
    )
    .addOption(db())
    .option('--code <code>', "only this check's findings (e.g. GC_BALANCE_MISMATCH)")
    .option('--severity <severity>', 'only findings of this severity: error, warning or info')
    .addOption(
      new Option('--min-age <days>', 'only findings at least this many days old').argParser(integer('--min-age', 0)),
    )
    .option(
      '--overdue',
      "only findings past their due time by the run's exception SLA rules (overdue ones lead the list anyway)",
    )
    .option('--json', 'print a JSON array, the fields of the findings file')

    .action(async (options) => {
      await (await import('./findings.js')).findingsList(options);
    });

  program
    .command('history')
    .description('past check runs with times, verdicts and finding totals, newest first')
    .addOption(db())
    .option('--json', 'print a JSON array')
    .addOption(new Option('--limit <n>', 'how many runs').default(30).argParser(integer('--limit', 1)))
    .action(async (options) => {
      await (await import('./history.js')).history(options);
    });

  program
    .command('accept')
    .description(
      'accept a known break: it stays in reports but does not fail runs until --until passes or the break changes',
    )
    .argument('<fingerprint>', "the finding's fingerprint (findings JSON, report)")
    .option('--note <text>', 'why it is accepted: the justification auditors read (required)')
    .option('--by <name>', 'who accepts (default: the operating-system user)')
    .option('--until <date>', 'the acceptance lapses after this UTC day (YYYY-MM-DD)')
    .option('--json', 'print one object: {accepted, code, fingerprint, by, until, note}')
    .addOption(db())
    .action(async (fingerprint: string, options) => {
      // Asked for after the fingerprint (commander checks required options first): what is missing first is named first.
      if (options.note === undefined)
        throw new ConfigError(
          '--note',
          'accept needs --note "why": the justification auditors read beside the finding',
        );
      await (await import('./accept.js')).accept(fingerprint, options);
    });

  program
    .command('demo')
    .description(
      'the nightly job against the built-in simulator, with every planted break and look-alike (what npm start runs)',
    )
    .addOption(new Option('--seed <n>', 'seed of the generated data').default(1).argParser(integer('--seed', 0)))
    .option(
      '--db <path|url>',
      "the demo's mirror, a file or postgres://…?schema=name (made afresh; never one the demo did not make)",
      locations.demoDb,
    )
    .option(
      '--out <dir>',
      `where the demo's reports go (default: ${locations.demoReports}, or ${locations.demoReports}-postgres for a PostgreSQL --db, so neither replaces the other's)`,
    )
    .action(async (options) => (await import('./demo.js')).demo(options));

  program
    .command('completion')
    .description('print a completion script for bash or zsh, made from these very commands and options')
    .argument('<shell>', 'bash or zsh')

    .action(async (shell: string) => (await import('./completion.js')).completion(shell, program));
}

/** The command a user types as `path` (`books import`). */
function commandAt(program: Command, path: string): Command {
  let command = program;
  for (const name of path.split(' ')) {
    const found = command.commands.find((c) => c.name() === name);
    if (!found) throw new Error(`no command ${path}`);
    command = found;
  }
  return command;
}

/** Each command's examples, shown at the end of its help (a test keeps one per command). */
const EXAMPLES: Record<string, readonly (readonly [string, string])[]> = {
  simulate: [
    ['simulate', 'both services on 127.0.0.1:4010 and :4020'],
    ['simulate --plant --manifest data/manifest.json', 'every break, and where'],
    ['simulate --faults 0.1 --live 500', 'faults, and activity twice a second'],
    ['simulate --quiet > sim.env', 'the six export lines alone'],
  ],
  ping: [
    ['ping', 'both services answer and accept the credentials'],
    ['--settings /etc/ledger-recon.env ping --json', 'for a monitor'],
  ],
  doctor: [
    ['doctor', 'everything a night needs, one line each'],
    ['doctor --quiet', 'the failures alone'],
  ],
  sync: [
    ['sync', 'the first full sync, then incremental ones'],
    ['sync --full', 'weekly: re-read the whole ledger'],
    ['sync -v', 'each retry with its cause'],
  ],
  check: [
    ['check', 'judge the newest sync, record the run'],
    ['check --dry-run --fail-on warning', 'look, record nothing'],
    ['check --json --findings-json findings.json', 'for a script'],
  ],
  run: [
    ['run', 'the nightly job: quiet on success'],
    ['run --json >> nights.jsonl', 'one JSON record a night, failed too'],
    ['run --full', 'weekly: re-read the whole ledger'],
    ['run --books /srv/exports', "match the merchant's books too"],
    ['run --push-metrics http://pushgateway:9091', 'metrics for the monitor'],
  ],
  'books import': [
    ['books import exports/tenders-2026-11.csv', 'the kind from the name'],
    ['books import pos.csv --kind tenders --map pos.map.json', 'a mapping of your own'],
  ],
  report: [
    ['report', "the newest run's workbook, CSV and JSON again"],
    ['report --run 7 --preparer "A. Auditor"', 'a past run, signed off'],
  ],
  close: [
    ['close --period 2026-10', 'October, UTC cut-offs'],
    ['close --period 2026-10 --tz America/New_York', "the merchant's midnight"],
  ],
  sql: [
    ['sql "SELECT * FROM open_findings"', 'CSV unless on a terminal'],
    ['sql --format json --file query.sql', 'a statement kept in a file'],
  ],
  verify: [
    ['verify', 'every manifest and file in the reports folder'],
    ['verify --run 7', "re-perform night 7's ledger population from the mirror"],
    ['verify --run 7 --set expiry-grace-minutes=0 --set fail-on=warning', 'what would change'],
    ['verify --close 2026-10', "re-perform October's close from the mirror"],
    ['verify --dir /mnt/audit-copy --json', "an auditor's copy, offline"],
  ],
  export: [
    ['export hledger --out ledger.journal', 'then: hledger -f ledger.journal check'],
    ['export hledger --out - | hledger -f - balance', 'straight into hledger'],
  ],
  'findings list': [
    ['findings list --severity error', 'the open errors'],
    ['findings list --code GC_BALANCE_MISMATCH --min-age 8 --json', 'old ones, for a script'],
  ],
  history: [
    ['history', 'the last 30 runs, newest first'],
    ['history --limit 5 --json', 'for a script'],
  ],
  accept: [['accept 3f9c… --note "refund agreed, TICKET-42" --until 2026-12-31', 'known until year end']],
  demo: [
    ['demo', 'the nightly job on the simulator, every break planted'],
    ['demo --db "postgres://me@localhost/recon?schema=demo"', 'the same in PostgreSQL'],
  ],
  completion: [
    ['completion bash > /etc/bash_completion.d/ledger-recon', 'bash, for every user'],
    ['completion zsh > "${fpath[1]}/_ledger-recon"', 'zsh'],
  ],
};
