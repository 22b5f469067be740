/** The run's month to date (the Month to date sheet's and the Summary's): what the night's walk kept, whichever run is reported. */
import { summaryOf, type CheckRunRow } from '../../findings/store.js';
import type { PeriodClose } from '../close.js';
import { periodOf } from '../period.js';

/**
 * The period close of the run's month so far (UTC): from the first of the month its data are as
 * of, up to that instant, with the run's own in-flight cards (the roll-forward's), as the night's
 * walk computed it (the ledger stage's RunTallies) and recorded it. Null when the run has no data
 * of the month, or was recorded before nights kept it (the sheet says so; `close` computes a
 * period from the mirror).
 */
export function monthToDateOf(run: CheckRunRow): PeriodClose | null {
  const asOf = run.asOfMs;
  const computed = summaryOf(run).monthToDate;
  if (asOf === null || !computed || computed.fromMs >= computed.toMs) return null;
  const day = new Date(asOf).toISOString().slice(0, 10);
  return {
    period: periodOf({ from: `${day.slice(0, 8)}01`, to: day }),
    asOfMs: asOf,
    endsNow: true,
    closingCutOffMs: computed.toMs,
    merchantId: run.merchantId,
    rollForwards: computed.rollForwards,
    unattributedEntries: computed.unattributedEntries,
    dataFromMs: computed.dataFromMs,
    closes: computed.closes,
  };
}

/** What the Month to date sheet says of a run without one. */
export function noMonthToDate(run: CheckRunRow): string {
  return summaryOf(run).monthToDate
    ? 'No month-to-date roll-forward: the check run has no data as of this month.'
    : `No month-to-date roll-forward: check run ${run.checkRunId} was recorded before nights kept theirs (ledger-recon close --from YYYY-MM-01 --to YYYY-MM-DD computes the month from the mirror).`;
}
