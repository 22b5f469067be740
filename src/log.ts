/**
 * The tool's log lines. Every line passes through redaction of the secrets the logger was
 * given, a second guard behind {@link Secret}: a secret that reached a message by any route
 * still prints as "[redacted]".
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

export interface LoggerOptions {
  write: (line: string) => void;
  secrets?: readonly string[];
  verbose?: boolean;
}

export function createLogger({ write, secrets = [], verbose = false }: LoggerOptions): Logger {
  const emit = (level: string, message: string): void => write(`${level} ${redact(message, secrets)}\n`);
  return {
    info: (message) => emit('info', message),
    warn: (message) => emit('warn', message),
    debug: (message) => {
      if (verbose) emit('debug', message);
    },
  };
}

/** Shorter values are not secrets worth the name, and redacting them would garble the text. */
const MIN_SECRET_LENGTH = 6;

/** Replaces every occurrence of each secret in the text. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    result = result.split(secret).join('[redacted]');
    // As it stands in a URL (a cursor sent back in a query string).
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) result = result.split(encoded).join('[redacted]');
  }
  return result;
}

/** Whether `text` carries any of `secrets` (as written or as in a URL). */
export function carriesSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some(
    (secret) =>
      secret.length >= MIN_SECRET_LENGTH && (text.includes(secret) || text.includes(encodeURIComponent(secret))),
  );
}

export const silentLogger: Logger = { info() {}, warn() {}, debug() {} };

/**
 * A text as one line of a terminal or a log may show it: a line break or another control
 * character (from a file's name, a --source, a service's message) is shown escaped (`\n`,
 * `\u001b`), so no text can forge a line of its own or move the cursor.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Text for a terminal that keeps its line ends (CSV or JSON rows printed to one): every other
 * control character (ESC starting a cursor move or an OSC 52 clipboard write, a C1 CSI, a bare
 * carriage return that would print over a line) is shown escaped as {@link oneLine} shows it.
 */
export function forTerminal(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => oneLine(c));
}

/** How much of the talk with the services goes to stderr (`--log-level`, `-v`). */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The level `--log-level` (or `-v`: info) set for this process, through LEDGER_RECON_LOG_LEVEL. */
export function logLevelOf(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const level = env['LEDGER_RECON_LOG_LEVEL'];
  return (LOG_LEVELS as readonly string[]).includes(level ?? '') ? (level as LogLevel) : 'warn';
}
