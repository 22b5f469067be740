/** The Month to date sheet: the night's month so far per currency and program, as its walk kept it (night-view.ts). */
import type { NightView } from '../night-view.js';
import { rollForwardSheet } from '../roll-forward-sheet.js';
import type { SheetSpec } from '../xlsx-writer.js';

/** The run's month to date as the close's roll-forward sheet lays one out; for a run without one, why not. */
export function monthToDateSheet({ runId, monthToDate, recorded }: NightView): SheetSpec {
  if (monthToDate) return rollForwardSheet('Month to date', monthToDate);
  return {
    name: 'Month to date',
    rows: [
      [
        recorded.monthToDate
          ? 'No month-to-date roll-forward: the check run has no data as of this month.'
          : `No month-to-date roll-forward: check run ${runId} was recorded before nights kept theirs (ledger-recon close --from YYYY-MM-01 --to YYYY-MM-DD computes the month from the mirror).`,
      ],
    ],
  };
}
