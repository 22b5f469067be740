/** The Quarantine sheet: every record the sync could not accept, with its raw content and why. */
import type { ReportStore } from '../store.js';
import type { SheetSpec } from '../xlsx-writer.js';

/** The most raw JSON a Quarantine cell shows. */
const RAW_SHOWN = 1_500;

/** The Quarantine sheet: every record refused at the edge, with its raw JSON. */
export function quarantineSheet(reads: ReportStore): SheetSpec {
  return {
    name: 'Quarantine',
    header: ['resource', 'record', 'reason', 'first sync', 'last sync', 'raw JSON as received'],
    fixedWidths: { 0: 12, 1: 20, 2: 36, 3: 8, 4: 8, 5: 48 },
    rows: (async function* () {
      for await (const batch of reads.quarantine())
        for (const q of batch) {
          // Long raw JSON is cut where a printed cell stays readable, with where the whole of it is.
          const raw =
            q.raw_json.length > RAW_SHOWN
              ? `${q.raw_json.slice(0, RAW_SHOWN)}… (cut at ${RAW_SHOWN} of ${q.raw_json.length.toLocaleString('en-US')} characters: the whole record is quarantine_id ${q.quarantine_id} in the mirror)`
              : q.raw_json;
          yield [q.resource, q.record_id, q.reason, q.first_sync_run_id, q.last_sync_run_id, raw];
        }
    })(),
  };
}
