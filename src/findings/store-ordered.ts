/**
 * A run's findings read whole, in the auditors' order: what the report's Findings sheet, its CSV
 * and JSON, and `findings` list. A raw statement whose SELECT list is the schema's columns of
 * `findings` (typed-rows.ts), each row made the schema's row by the same columns, so no row type
 * is declared by hand. On SQLite it is stepped on a second thread (SqlConnection.readRaw's
 * `onAThread`) while the report writes the rows before: through the typed query layer, this read
 * of the report bench's 100,000 findings took 2.5 s of the report's own thread.
 */
import { getTableColumns } from 'drizzle-orm';
import type { SqlConnection } from '../db/connection.js';
import type { Mirror } from '../db/mirror.js';
import { findings } from '../db/schema.js';
import { selectList, type RowOf } from '../db/typed-rows.js';
import type { Finding } from './finding.js';
import { findingOf, type FindingRow } from './store-rows.js';

/** The findings table's columns, in the schema's order, with the keys the schema names them by. */
const COLUMNS = Object.entries(getTableColumns(findings));
const FINDING_COLUMNS = COLUMNS.map(([, column]) => column);
const KEYS = COLUMNS.map(([key]) => key);

/** Findings handed over at a time. */
const READ_ROWS = 1_000;

/** A run's findings, streamed. */
export class OrderedFindings {
  readonly #c: SqlConnection;

  constructor(mirror: Pick<Mirror, 'connection'>) {
    this.#c = mirror.connection;
  }

  /**
   * A run's findings, streamed in the auditors' order: errors first, accepted ones last within
   * a severity, then by code and entity.
   */
  async *ofRun(checkRunId: number): AsyncGenerator<Finding> {
    const rows = this.#c.readRaw<RowOf<typeof FINDING_COLUMNS>>(
      `SELECT ${selectList(FINDING_COLUMNS)} FROM findings WHERE check_run_id = ?
       ORDER BY CASE severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END,
                CASE state WHEN 'accepted' THEN 1 ELSE 0 END, code, entity_id, fingerprint`,
      { onAThread: true },
    );
    for await (const batch of rows.batches([checkRunId], READ_ROWS))
      for (const values of batch) {
        const row: Record<string, unknown> = {};
        for (let i = 0; i < KEYS.length; i += 1) row[KEYS[i]!] = values[i];
        yield findingOf(row as FindingRow);
      }
  }
}
