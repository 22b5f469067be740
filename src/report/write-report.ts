/**
 * Writes one check run's outputs into a folder: the workbook for auditors, and the findings as
 * CSV and as JSON for machines. Each file is written under a temporary name and renamed only
 * when all three are complete: a failed report never leaves a half-written file under a final
 * name, and earlier runs' files stay.
 */
import { createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { exportFinding, type Finding } from '../checks/finding.js';
import type { CheckCode, RecordRef, Severity } from '../checks/check.js';
import { MirrorError } from '../errors.js';
import { csvField, csvFigure } from './neutralise.js';
import { reportSheets, type CheckRunRow } from './report-sheets.js';
import { writeXlsx } from './xlsx-writer.js';

export interface ReportPaths {
  workbook: string;
  csv: string;
  json: string;
}

export interface WriteReportOptions {
  sqlite: Database.Database;
  outDir: string;
  /** Default: the newest completed check run. */
  checkRunId?: number;
}

/** The three files' names: the run's UTC date and id. */
export function reportPaths(outDir: string, run: { check_run_id: number; started_at_ms: number }): ReportPaths {
  const base = join(outDir, `ledger-recon-${new Date(run.started_at_ms).toISOString().slice(0, 10)}-run-${run.check_run_id}`);
  return { workbook: `${base}.xlsx`, csv: `${base}-findings.csv`, json: `${base}-findings.json` };
}

/**
 * Writes the workbook, CSV and JSON of a check run.
 * @throws MirrorError when the mirror holds no completed check run.
 */
export async function writeReport(options: WriteReportOptions): Promise<ReportPaths> {
  const { sqlite } = options;
  const run = (options.checkRunId === undefined
    ? sqlite.prepare("SELECT * FROM check_runs WHERE status = 'completed' ORDER BY check_run_id DESC LIMIT 1").get()
    : sqlite.prepare("SELECT * FROM check_runs WHERE status = 'completed' AND check_run_id = ?").get(options.checkRunId)) as CheckRunRow | undefined;
  if (!run) throw new MirrorError('the mirror holds no completed check run: run `ledger-recon check` first');
  mkdirSync(options.outDir, { recursive: true });
  const final = reportPaths(options.outDir, run);
  const temporary: ReportPaths = { workbook: `${final.workbook}.partial`, csv: `${final.csv}.partial`, json: `${final.json}.partial` };
  try {
    const summary = JSON.parse(run.summary_json) as { verdict: string };
    await writeXlsx(
      temporary.workbook,
      { title: `Reconciliation ${summary.verdict} — check run ${run.check_run_id}`, subject: 'Gift card, coupon and delivery partner reconciliation', creator: 'ledger-recon', created: new Date(run.started_at_ms) },
      reportSheets(sqlite, run),
    );
    await writeFindingFiles(sqlite, run.check_run_id, temporary);
    for (const key of ['workbook', 'csv', 'json'] as const) renameSync(temporary[key], final[key]);
    return final;
  } finally {
    for (const path of Object.values(temporary)) rmSync(path, { force: true });
  }
}

const CSV_COLUMNS = ['runId', 'code', 'severity', 'entityType', 'entityId', 'giftCardId', 'referenceId', 'currency', 'expected', 'actual', 'difference', 'message', 'state', 'firstSeenAt', 'ageDays', 'fingerprint', 'records'] as const;

/** The findings as CSV (one row each, formula-safe) and as a JSON array, streamed. */
async function writeFindingFiles(sqlite: Database.Database, checkRunId: number, paths: ReportPaths): Promise<void> {
  const csv = createWriteStream(paths.csv);
  const json = createWriteStream(paths.json);
  const write = async (stream: NodeJS.WritableStream, text: string): Promise<void> => {
    if (!stream.write(text)) await once(stream, 'drain');
  };
  await write(csv, `${CSV_COLUMNS.map((c) => csvField(c)).join(',')}\r\n`);
  await write(json, '[');
  let first = true;
  for (const row of sqlite.prepare('SELECT * FROM findings WHERE check_run_id = ? ORDER BY code, entity_id').iterate(checkRunId) as Iterable<StoredFinding>) {
    const f = exportFinding(findingOf(row));
    await write(json, `${first ? '\n' : ',\n'}${JSON.stringify(f)}`);
    first = false;
    const records = f.records.map((r) => `${r.type} ${r.id}`).join('; ');
    const fields = [csvField(f.runId), csvField(f.code), csvField(f.severity), csvField(f.entityType), csvField(f.entityId), csvField(f.giftCardId), csvField(f.referenceId), csvField(f.currency),
      csvFigure(f.expected), csvFigure(f.actual), csvFigure(f.difference), csvField(f.message), csvField(f.state), csvField(f.firstSeenAt), csvField(f.ageDays), csvField(f.fingerprint), csvField(records)];
    await write(csv, `${fields.join(',')}\r\n`);
  }
  await write(json, first ? ']\n' : '\n]\n');
  csv.end();
  json.end();
  await Promise.all([once(csv, 'close'), once(json, 'close')]);
}

/** A row of the findings table. */
export interface StoredFinding {
  check_run_id: number;
  fingerprint: string;
  code: CheckCode;
  severity: Severity;
  entity_type: Finding['entityType'];
  entity_id: string;
  gift_card_id: string | null;
  reference_id: string | null;
  currency: string | null;
  unit: Finding['unit'];
  expected: number | null;
  actual: number | null;
  difference: number | null;
  message: string;
  state: Finding['state'];
  first_seen_check_run_id: number;
  first_seen_at_ms: number;
  age_days: number;
  records_json: string;
  detail_sha256: string;
}

/** A stored finding row back as a Finding. */
export function findingOf(row: StoredFinding): Finding {
  return {
    checkRunId: row.check_run_id,
    fingerprint: row.fingerprint,
    code: row.code,
    severity: row.severity,
    entityType: row.entity_type,
    entityId: row.entity_id,
    giftCardId: row.gift_card_id,
    referenceId: row.reference_id,
    currency: row.currency,
    unit: row.unit,
    expected: row.expected,
    actual: row.actual,
    difference: row.difference,
    message: row.message,
    state: row.state,
    firstSeenCheckRunId: row.first_seen_check_run_id,
    firstSeenAtMs: row.first_seen_at_ms,
    ageDays: row.age_days,
    records: JSON.parse(row.records_json) as RecordRef[],
    detailSha256: row.detail_sha256,
  };
}
