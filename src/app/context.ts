/**
 * What every job of the application layer is given: the clock it reads every instant from, the
 * operator's stop, the mirror, the services' clients, a sink for progress and lines, and its
 * settings. The CLI builds one from its arguments and the process (the system clock, a signal
 * tied to Ctrl-C and SIGTERM, stderr); a test builds one in its own process (the test clock, a
 * simulator's clients, a sink that keeps what it is told).
 */
import type { DpClient } from '../api/dp-client.js';
import type { GiftCardClient } from '../api/giftcard-client.js';
import type { Mirror } from '../db/mirror.js';
import type { ProgressReporter } from '../sync/context.js';

/** Where every instant a job reads comes from. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/** The process's clock: the one place the product reads the wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** What a person sees while a job works: the sync's lines, the steps that follow it, a closing line. */
export interface Progress extends ProgressReporter {
  /** A named step (check, confirmation, report) starts; the previous one ends. */
  step(label: string): void;
  /** Ends every live line and writes the closing line, if any. */
  finish(closing?: string): void;
}

/** Progress that shows nothing (`--json`, `--quiet`, a test). */
export const silentProgress: Progress = { update() {}, done() {}, step() {}, finish() {} };

/** Where a job's progress and its lines for a person go. */
export interface Sink {
  progress: Progress;
  /** A line for the operator about the work (a books file's problem): stderr on the CLI. */
  note(text: string): void;
}

/** A sink that shows nothing and keeps every note (for tests and `--json`). */
export function keepingSink(): Sink & { notes: string[] } {
  const notes: string[] = [];
  return { progress: silentProgress, note: (text) => void notes.push(text), notes };
}

/** The clients of both services a job reads from (GET only). */
export interface ServiceClients {
  giftcard: GiftCardClient;
  dp: DpClient;
}

/** A job's context: everything it reads that is not its settings. */
export interface JobContext {
  clock: Clock;
  /** The operator's stop: checked between a job's steps and inside the sync and the check. */
  signal: AbortSignal;
  mirror: Mirror;
  sink: Sink;
}

/** A job that reads the services too. */
export interface ServiceJobContext extends JobContext {
  clients: ServiceClients;
}
