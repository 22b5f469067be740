/**
 * A clock the test controls, for the real CLI in a child process (`node --import` this file):
 * with LEDGER_RECON_TEST_NOW set to epoch milliseconds, the process starts at that instant and
 * its clock runs on in real time from there. Everything that asks Date for the time (the
 * sync's start and cut-off, a finding's age, an acceptance's expiry) sees the test's night.
 */
const target = Number(process.env.LEDGER_RECON_TEST_NOW);
if (Number.isFinite(target)) {
  const RealDate = globalThis.Date;
  const offset = target - RealDate.now();
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
}
