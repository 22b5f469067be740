/**
 * The one clock of the tests. vitest.config.ts pins the run's instant (LEDGER_RECON_TEST_NOW, an
 * RFC 3339 instant, or DEFAULT_TEST_NOW) and preloads test/support/clock.mjs into every Node
 * process of the run, so the product, the simulator and the tests read the run's instant, never
 * the wall clock. A test asks this module for the time; nothing else in test/ reads Date.
 */

/** The instant a run starts at when LEDGER_RECON_TEST_NOW does not name one: a quiet mid-month morning. */
export const DEFAULT_TEST_NOW = '2026-11-18T09:30:00Z';

/** The test clock's now (epoch ms): the run's instant plus the real time since the run began. */
export function testNow(): number {
  return Date.now();
}

/** The test clock's now as a Date. */
export function testDate(ms: number = testNow()): Date {
  return new Date(ms);
}

/**
 * A deadline for polling something outside the test (a pane, a server, a child): measured on the
 * monotonic clock, never an assertion on elapsed time, only a bound on a wait.
 */
export function deadlineIn(ms: number): () => boolean {
  const end = performance.now() + ms;
  return () => performance.now() > end;
}

/** Milliseconds on the monotonic clock since `start` (performance.now()), for a message or a log line. */
export function monotonicSince(start: number): number {
  return performance.now() - start;
}
