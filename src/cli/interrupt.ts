/**
 * Ctrl-C and a service manager's stop, for the commands that work for a while (sync, run): the
 * first SIGINT or SIGTERM aborts the returned signal with an InterruptedError, so the work
 * stops within a page or two, commits what it read whole with its checkpoint and releases the
 * lock, and the command ends with one line and exit 130 (SIGINT) or 143 (SIGTERM). A second
 * signal ends the process at once.
 */
import { InterruptedError } from '../errors.js';
import { terminalWidth, wrapText } from '../fit-width.js';
import { takeHeldSignal } from './held-signals.js';

export interface Interruption {
  /** Aborts, with an InterruptedError as its reason, at the first SIGINT or SIGTERM. */
  signal: AbortSignal;
  /** Gives the signals back to Node's defaults (unless one came: a second then still ends the process with its code). */
  dispose(): void;
}

/**
 * Takes SIGINT and SIGTERM for the command's lifetime.
 * @param what what stops and what happens next, e.g. "the sync stopped; the next sync resumes from its checkpoints".
 * @param options.atOnce end the process at the first signal, with the one line (work that has nothing to commit).
 */
export function onInterrupt(
  what: string,
  stderr: NodeJS.WritableStream = process.stderr,
  options: { atOnce?: boolean } = {},
): Interruption {
  const controller = new AbortController();
  const handler = (signal: 'SIGINT' | 'SIGTERM'): void => {
    // Work that writes only files renamed into place when whole (a close) has nothing to commit: it ends now.
    if (options.atOnce) endNow(stderr, signal, `interrupted (${signal}): ${what}`);
    // The operator insists: no clean-up, no waiting.
    if (controller.signal.aborted) endNow(stderr, signal, `${signal} again: stopped at once; ${what}`);
    controller.abort(new InterruptedError(signal, `interrupted (${signal}): ${what}`));
  };
  const onInt = (): void => handler('SIGINT');
  const onTerm = (): void => handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  // One that came while the process loaded stops the work now, before it begins.
  const held = takeHeldSignal();
  if (held !== undefined) handler(held);
  return {
    signal: controller.signal,
    dispose: () => {
      // Once stopped, the process is on its way out: a second signal still ends it at once, with its code.
      if (controller.signal.aborted) return;
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/** Ends the process at once with its one line and the signal's exit code (130, 143). */
function endNow(stderr: NodeJS.WritableStream, signal: 'SIGINT' | 'SIGTERM', line: string): never {
  stderr.write(wrapText(`ledger-recon: ${line}\n`, terminalWidth(stderr as NodeJS.WriteStream)));
  process.exit(signal === 'SIGINT' ? 130 : 143);
}
