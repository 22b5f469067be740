/**
 * The test run's clock, preloaded into every Node process of a test run (`node --import` this
 * file, through NODE_OPTIONS set by vitest.config.ts, or runCli's own `--import`):
 *
 * - LEDGER_RECON_TEST_NOW is the instant the run's clock started at: an RFC 3339 instant
 *   (`2028-02-29T23:30:00Z`) or epoch milliseconds;
 * - LEDGER_RECON_TEST_ANCHOR is the real epoch millisecond that instant stands for (the moment
 *   the run began), so that every process of a run (vitest's workers, a CLI child, a CLI in a
 *   tmux pane) reads the same clock; without it the process's own start is the anchor (a child
 *   started at a test's chosen night).
 *
 * The clock runs on in real time from that instant: a wait or a timeout is as long as ever, but
 * the day, the month and the hour are the run's, never the wall clock's. Everything that asks
 * Date for the time (the sync's start and cut-off, a finding's age, a file's name, the
 * simulator's world) sees the run's instant.
 */
const INSTALLED = Symbol.for('ledger-recon.test-clock');

/** The instant of LEDGER_RECON_TEST_NOW in epoch ms, or NaN. */
function instantOf(text) {
  if (text === undefined || text === '') return Number.NaN;
  if (/^\d+$/.test(text)) return Number(text);
  // RFC 3339 with its offset (Z or ±hh:mm), as the issue and the docs write it.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text)) return Number.NaN;
  return Date.parse(text);
}

const target = instantOf(process.env.LEDGER_RECON_TEST_NOW);
if (process.env.LEDGER_RECON_TEST_NOW && !Number.isFinite(target)) {
  throw new Error(
    `LEDGER_RECON_TEST_NOW=${process.env.LEDGER_RECON_TEST_NOW} is not an RFC 3339 instant (2028-02-29T23:30:00Z) or epoch milliseconds`,
  );
}
if (Number.isFinite(target) && !globalThis[INSTALLED]) {
  const RealDate = globalThis.Date;
  const anchor = Number(process.env.LEDGER_RECON_TEST_ANCHOR);
  const offset = target - (Number.isFinite(anchor) ? anchor : RealDate.now());
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate;
  globalThis[INSTALLED] = true;
}
