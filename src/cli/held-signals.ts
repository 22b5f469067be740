/**
 * Signals that come while the process loads, before its command takes them (onInterrupt): held,
 * then handed to that command, which stops before its work as it would have stopped in it. A
 * command that does not take signals gets Node's default at once (releaseSignals). No imports:
 * this module is loaded before the program is.
 */

export type StopSignal = 'SIGINT' | 'SIGTERM';

const EXIT_CODE: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

let held: StopSignal | undefined;

const hold = (signal: StopSignal) => (): void => {
  // A second one while still loading: the operator insists. Nothing has begun; the one line says so.
  if (held !== undefined) {
    process.stderr.write(
      `ledger-recon: ${signal} again: stopped at once, before the command began; nothing was done\n`,
    );
    process.exit(EXIT_CODE[signal]);
  }
  held = signal;
};
const onInt = hold('SIGINT');
const onTerm = hold('SIGTERM');

/** Holds SIGINT and SIGTERM until a command takes them, or releases them. */
export function holdSignals(): void {
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
}

function unhold(): void {
  process.off('SIGINT', onInt);
  process.off('SIGTERM', onTerm);
}

/** For the command that takes signals now: the one held while the process loaded (once), and the holding ends. */
export function takeHeldSignal(): StopSignal | undefined {
  unhold();
  const signal = held;
  held = undefined;
  return signal;
}

/** For a command that does not take signals: Node's default from now on, and for a signal held, now. */
export function releaseSignals(): void {
  const signal = takeHeldSignal();
  if (signal !== undefined) process.kill(process.pid, signal);
}
