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
  const hidden = secrets.filter((secret) => secret.length > 0);
  const emit = (level: string, message: string): void => write(`${level} ${redact(message, hidden)}\n`);
  return {
    info: (message) => emit('info', message),
    warn: (message) => emit('warn', message),
    debug: (message) => {
      if (verbose) emit('debug', message);
    },
  };
}

/** Replaces every occurrence of each secret in the text. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) result = result.split(secret).join('[redacted]');
  return result;
}

export const silentLogger: Logger = { info() {}, warn() {}, debug() {} };
