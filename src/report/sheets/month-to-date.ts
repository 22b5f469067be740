/** The run's month to date (the Month to date sheet's and the Summary's): kept by the night's walk, or closed from the mirror for an older run. */
import { summaryOf, type CheckRunRow } from '../../findings/store.js';
import { MirrorError } from '../../errors.js';
import type { Mirror } from '../../db/mirror.js';
import { closePeriod, type PeriodClose, type RunInFlight } from '../close.js';
import { periodOf } from '../period.js';

/**
 * The period close of the run's month so far (UTC): from the first of the month its data are as
 * of, up to that instant, with the run's own in-flight cards (the roll-forward's). The night's
 * walk computed it (the ledger stage's RunTallies); a run recorded before it was kept has it
 * computed here from the mirror. Null when the run has no such data.
 */
export async function monthToDateOf(
  mirror: Mirror,
  run: CheckRunRow,
  inFlightOf: () => Promise<RunInFlight | null>,
): Promise<PeriodClose | null> {
  const asOf = run.asOfMs;
  if (asOf === null) return null;
  const day = new Date(asOf).toISOString().slice(0, 10);
  const period = periodOf({ from: `${day.slice(0, 8)}01`, to: day });
  const computed = summaryOf(run).monthToDate;
  if (computed && computed.fromMs >= computed.toMs) return null;
  if (computed)
    return {
      period,
      asOfMs: asOf,
      endsNow: true,
      closingCutOffMs: computed.toMs,
      merchantId: run.merchantId,
      rollForwards: computed.rollForwards,
      unattributedEntries: computed.unattributedEntries,
      dataFromMs: computed.dataFromMs,
      closes: computed.closes,
    };
  try {
    return await closePeriod(mirror, period, undefined, {
      asOfMs: asOf,
      merchantId: run.merchantId,
      inFlight: await inFlightOf(),
    });
  } catch (error) {
    if (error instanceof MirrorError) return null;
    throw error;
  }
}
