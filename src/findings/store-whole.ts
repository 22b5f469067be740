/**
 * A run's findings read whole, for the report: every finding in the auditors' order (its Findings
 * sheet, CSV and JSON, and `findings`), what each is about (the sheets' "findings" columns) and
 * what each puts at stake (the Summary). Raw statements whose SELECT lists are the schema's
 * columns of `findings` and whose row types come from the same columns (db/typed-rows.ts), so no
 * row type is declared by hand. On SQLite each is stepped on a second thread (SqlConnection.readRaw's
 * `onAThread`) while the report writes: through the typed query layer these reads of the report
 * bench's 100,000 findings took 4.2 s of the report's own thread.
 */
import { getTableColumns } from 'drizzle-orm';
import type { RecordRef } from '../checks/check.js';
import type { SqlConnection } from '../db/connection.js';
import type { Mirror } from '../db/mirror.js';
import { findings } from '../db/schema.js';
import { selectList, type RowOf } from '../db/typed-rows.js';
import type { Finding } from './finding.js';
import { findingOf, findingStakeOf, type FindingRow, type FindingStake } from './store-rows.js';

/** The findings table's columns, in the schema's order, with the keys the schema names them by. */
const COLUMNS = Object.entries(getTableColumns(findings));
const FINDING_COLUMNS = COLUMNS.map(([, column]) => column);
const KEYS = COLUMNS.map(([key]) => key);

/** What a finding is about: its code, and the IDs of its entity, its card and its records. */
const ABOUT_COLUMNS = [findings.code, findings.entityId, findings.giftCardId, findings.recordsJson] as const;

/** What a finding puts at stake, and under which key. */
const STAKE_COLUMNS = [
  findings.code,
  findings.severity,
  findings.state,
  findings.currency,
  findings.stakeKey,
  findings.stakeCents,
  findings.fingerprint,
  findings.unit,
  findings.difference,
  findings.firstSeenAtMs,
  findings.ageDays,
  findings.entityType,
  findings.entityId,
  findings.giftCardId,
] as const;

/** Findings handed over at a time. */
const READ_ROWS = 1_000;

/** A run's findings, each read streamed. */
export class WholeRun {
  readonly #c: SqlConnection;

  constructor(mirror: Pick<Mirror, 'connection'>) {
    this.#c = mirror.connection;
  }

  /**
   * A run's findings, streamed in the auditors' order: errors first, accepted ones last within
   * a severity, then by code and entity.
   */
  async *findingsOf(checkRunId: number): AsyncGenerator<Finding> {
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

  /**
   * What each finding of a run is about, in no order (no sort of the run's findings): its code,
   * and the IDs of its entity, its card and its records (the sheets' "findings" columns).
   */
  async *recordsOf(checkRunId: number): AsyncGenerator<{ code: string; ids: (string | null)[] }[]> {
    const rows = this.#c.readRaw<RowOf<typeof ABOUT_COLUMNS>>(
      `SELECT ${selectList(ABOUT_COLUMNS)} FROM findings WHERE check_run_id = ?`,
      { onAThread: true },
    );
    for await (const batch of rows.batches([checkRunId], READ_ROWS))
      yield batch.map(([code, entityId, giftCardId, recordsJson]) => ({
        code,
        ids: [entityId, giftCardId, ...(JSON.parse(recordsJson) as RecordRef[]).map((record) => record.id)],
      }));
  }

  /** A run's findings without their measures, message and records (the night's view's), in no order: a few columns of each, not the whole finding. */
  async *stakesOf(checkRunId: number): AsyncGenerator<FindingStake[]> {
    const rows = this.#c.readRaw<RowOf<typeof STAKE_COLUMNS>>(
      `SELECT ${selectList(STAKE_COLUMNS)} FROM findings WHERE check_run_id = ?`,
      { onAThread: true },
    );
    for await (const batch of rows.batches([checkRunId], READ_ROWS))
      yield batch.map(
        ([code, severity, state, currency, stakeKey, stakeCents, fingerprint, unit, difference, ...about]) => {
          const [firstSeenAtMs, ageDays, entityType, entityId, giftCardId] = about;
          return findingStakeOf({
            code,
            severity,
            state,
            currency,
            stakeKey,
            stakeCents,
            fingerprint,
            unit,
            difference,
            firstSeenAtMs,
            ageDays,
            entityType,
            entityId,
            giftCardId,
          });
        },
      );
  }
}
