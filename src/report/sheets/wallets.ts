/** The DP wallets sheet: each wallet's balance at each sync up to the run's, and its change since the sync before. */
import type { CheckRunRow } from '../../findings/store.js';
import type { ReportStore } from '../store.js';
import type { SheetSpec } from '../xlsx-writer.js';
import { money, date, type FindingsOf } from './rows.js';

/** The DP wallets sheet: each wallet's balance at each sync up to the run's. */
export function walletsSheet(reads: ReportStore, run: CheckRunRow, findingsOf: FindingsOf): SheetSpec {
  return {
    name: 'DP wallets',
    header: [
      'sync run',
      'read at (UTC)',
      'wallet',
      'currency',
      'selected',
      'balance',
      'change since previous sync',
      'findings',
    ],
    rows: (async function* () {
      for await (const batch of reads.wallets(run.syncRunId ?? undefined))
        for (const w of batch) {
          yield [
            w.sync_run_id,
            date(w.read_at_ms),
            w.wallet_id,
            w.currency,
            w.selected ? 'yes' : 'no',
            money(w.balance_cents, w.currency),
            money(w.change_cents, w.currency),
            w.sync_run_id === run.syncRunId ? findingsOf(w.wallet_id) : '',
          ];
        }
    })(),
  };
}
