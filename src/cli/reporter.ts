/**
 * How a command reports what it did: lines for a person, one JSON object for a machine
 * (`--json`), or nothing on success (`--quiet`, the global option: errors still print on stderr,
 * and the rows or JSON a command is run to print still print).
 */
import { terminalWidth, wrapText } from '../fit-width.js';

export interface Reporting {
  json?: boolean;
  quiet?: boolean;
}

export interface Reporter {
  /** A person's line: printed unless --json or --quiet. */
  say(text: string): void;
  /** The command's one JSON object: printed with --json, --quiet or not. */
  record(value: unknown): void;
}

export function reporter(options: Reporting): Reporter {
  const raw = (text: string): void => void process.stdout.write(text);
  // On a terminal, a person's lines wrap between words at its width (never the JSON); a pipe gets them whole.
  const write = (text: string): void => raw(wrapText(text, terminalWidth(process.stdout)));
  return {
    say: (text) => {
      if (!options.json && !options.quiet) write(text);
    },
    record: (value) => {
      if (options.json) raw(`${JSON.stringify(value)}\n`);
    },
  };
}
