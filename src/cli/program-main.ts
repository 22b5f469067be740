/**
 * The command line, once main.ts holds the signals: settings, the program, the exit code.
 */
import { CommanderError, type CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { ConfigError } from '../errors.js';
import { failureOf } from '../app/failure.js';
import { shownValue } from '../config.js';
import { storageFailure } from '../paths.js';
import { readSettingsFile } from '../settings-file.js';
import { terminalWidth, wrapText } from '../fit-width.js';
import { releaseSignals } from './held-signals.js';
import { buildProgram } from './index.js';

/** Secrets this process may know of (environment or flags), so no message can print them. */
const secrets = [
  process.env['GIFTCARD_CLIENT_SECRET'],
  process.env['DP_CLIENT_SECRET'],
  ...flagValues(['--giftcard-client-secret', '--dp-client-secret']),
].filter((s): s is string => !!s);

/** The values given to these flags on the command line, as `--flag value` or `--flag=value`. */
function flagValues(flags: readonly string[]): string[] {
  const args = process.argv;
  return args.flatMap((arg, i) =>
    flags.flatMap((flag) =>
      arg === flag ? [args[i + 1] ?? ''] : arg.startsWith(`${flag}=`) ? [arg.slice(flag.length + 1)] : [],
    ),
  );
}

// A reader that closed the pipe early (`ledger-recon history | head -1`) has what it wanted: end
// quietly, as every Unix tool does, rather than with a stack, keeping the exit code the command
// set (a night's 1 or 2 stays). Nothing is left half-done: the mirror's writes are transactions,
// and the lock goes with the process.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  throw error;
});

let program: Command | undefined;
try {
  // Files for one reader: the mirror, its side files, the reports and their folders are the
  // owner's alone (0600 / 0700) unless --umask says otherwise.
  process.umask(umaskOf(flagValues(['--umask']).at(-1)));
  refuseNodeEnvFile();
  loadSettings(flagValues(['--settings']).at(-1));
  // --timeout outranks LEDGER_RECON_TIMEOUT, as every flag outranks its variable.
  const timeout = flagValues(['--timeout']).at(-1);
  if (timeout !== undefined) process.env['LEDGER_RECON_TIMEOUT'] = timeout;
  program = buildProgram();
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeFor(storageFailure(error, storageOf(program)) ?? error);
} finally {
  // No command took a signal held while the process loaded (--help, a refused flag): Node's default, now.
  releaseSignals();
}

/** The --db and --out of the command that ran, to name them when a write to them fails. */
function storageOf(ran: Command | undefined): { db?: string; out?: string } {
  const command = ran?.commands.find((c) => process.argv.slice(2).includes(c.name()));
  const options = command?.opts() ?? {};
  return {
    db: typeof options['db'] === 'string' ? options['db'] : undefined,
    out: typeof options['out'] === 'string' ? options['out'] : undefined,
  };
}

/**
 * Settings from `--settings FILE` (src/settings-file.ts), before the program reads its defaults: a
 * variable already in the environment keeps its value, and flags override both.
 */
function loadSettings(file: string | undefined): void {
  if (file === undefined) return;
  const { settings, warning } = readSettingsFile(file);
  for (const [key, value] of settings) if (process.env[key] === undefined) process.env[key] = value;
  if (warning) process.stderr.write(`ledger-recon: warning: ${warning}\n`);
  // The file's secrets are redacted from every message too.
  for (const key of ['GIFTCARD_CLIENT_SECRET', 'DP_CLIENT_SECRET']) {
    const secret = process.env[key];
    if (secret) secrets.push(secret);
  }
}

/**
 * Node 20 reads `--env-file` itself, wherever it stands, before ledger-recon starts (a
 * NODE_OPTIONS line in it runs code): the flag is refused, pointing at `--settings`.
 * @throws ConfigError
 */
function refuseNodeEnvFile(): void {
  if (process.argv.some((arg) => arg === '--env-file' || arg.startsWith('--env-file='))) {
    throw new ConfigError(
      '--env-file',
      '--env-file is read by Node itself before ledger-recon starts, so its lines reach Node (NODE_OPTIONS) as well: use --settings FILE, which ledger-recon reads as KEY=value text',
    );
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // commander has printed help, the version, or the usage error already.
    return error.exitCode === 0 ? 0 : 2;
  }
  const debug = process.env['LEDGER_RECON_DEBUG'] === '1' || process.argv.includes('--verbose');
  const failure = failureOf(error, secrets, debug);
  // One line for a log; on a terminal, a named failure wrapped between words at its width.
  process.stderr.write(
    failure.named ? wrapText(`${failure.line}\n`, terminalWidth(process.stderr)) : `${failure.line}\n`,
  );
  return failure.exitCode;
}

/** The file-creation mask: 077 by default; `--umask 027` lets the group read. */
function umaskOf(value: string | undefined): number {
  if (value === undefined) return 0o077;
  if (!/^0?[0-7]{3}$/.test(value))
    throw new ConfigError('--umask', `--umask ${shownValue(value)} is not an octal mask such as 077 or 027`);
  return Number.parseInt(value, 8);
}
