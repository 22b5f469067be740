/**
 * Writes one check run's outputs into a folder: the workbook for auditors, the findings as CSV
 * and as JSON for machines, and the night's page for a reader who would rather see. Each file is
 * written under a temporary name and renamed only when all four are complete: a failed report
 * never leaves a half-written file under a final name, and earlier runs' files stay.
 */
import type { Mirror } from '../db/mirror.js';
import { createWriteStream, renameSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { LedgerReconError, MirrorError } from '../errors.js';
import { ensureFolder, EXCLUSIVE, fileSystemError, letGoOfFile, replaceable, temporaryBeside } from '../paths.js';
import { exportedFinding, type ExportedFinding, type Finding, type Standing } from '../findings/finding.js';
import { findingsStore, type CheckRunRow } from '../findings/store.js';
import { csvField, csvFigure } from './neutralise.js';
import { removeStalePartials } from './partials.js';
import { reportSheets } from './report-sheets.js';
import type { ReportScope } from './scope.js';
import { freeRevision, reportBaseName } from './names.js';
import { writeXlsx } from './xlsx-writer.js';
import { nightPage } from './night-page.js';
import { nightViewOf } from './night-view.js';

export interface ReportPaths {
  workbook: string;
  csv: string;
  json: string;
  /** The night's page (night-page.ts): its verdict, trends and largest findings, self-contained. */
  page: string;
}

export interface WriteReportOptions {
  /** The mirror: its findings store, and its connection for the detail sheets' reads. */
  mirror: Mirror;
  outDir: string;
  /** Default: the newest completed check run. */
  checkRunId?: number;
  /** Who prepared it (the Summary's sign-off) and the materiality thresholds. */
  scope?: ReportScope;
}

/** A disk that cannot take the files: what is translated into one sentence naming --out. */
const WRITE_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO']);

const REPORT_SUFFIXES = ['.xlsx', '-findings.csv', '-findings.json', '.html'];

/**
 * The three files' names: the run's UTC date and id, and a revision when a report of that name
 * is in the folder already (report/names.ts: nothing sealed is overwritten).
 */
export function reportPaths(outDir: string, run: Pick<CheckRunRow, 'checkRunId' | 'startedAtMs'>): ReportPaths {
  const base = freeRevision(join(outDir, reportBaseName(run)), REPORT_SUFFIXES);
  return { workbook: `${base}.xlsx`, csv: `${base}-findings.csv`, json: `${base}-findings.json`, page: `${base}.html` };
}

/**
 * Writes the workbook, CSV and JSON of a check run.
 * @throws MirrorError when the mirror holds no completed check run.
 */
export async function writeReport(options: WriteReportOptions): Promise<ReportPaths & { checkRunId: number }> {
  const store = findingsStore(options.mirror);
  const run = await store.history.completedRun(options.checkRunId);
  if (!run) {
    const newest = await store.history.completedRun();
    if (options.checkRunId === undefined || !newest)
      throw new MirrorError('the mirror holds no completed check run: run `ledger-recon check` first');
    throw new MirrorError(
      `the mirror holds no completed check run ${options.checkRunId}: the newest is run ${newest.checkRunId} (\`ledger-recon history\` lists them all)`,
    );
  }
  ensureFolder('--out', options.outDir);
  removeStalePartials(options.outDir);
  const final = reportPaths(options.outDir, run);
  // Unique to this process: two reports of one run written at once never share a temporary file.
  const temporary: ReportPaths = {
    workbook: temporaryBeside(final.workbook),
    csv: temporaryBeside(final.csv),
    json: temporaryBeside(final.json),
    page: temporaryBeside(final.page),
  };
  // The report streams through the mirror once: a small page cache serves it as fast, and keeps
  // a writer's 128 MB cache from filling up under it (the report bench's RSS: 556 MB → see docs).
  try {
    await options.mirror.withSmallCache(async () => {
      // The night's view, computed once: the workbook, the CSV, the JSON and the page each write it.
      const view = await nightViewOf(options.mirror, store, run, options.scope);
      // The CSV and JSON take each finding, and its standing, as the Findings sheet reads it: one read for the three.
      const files = new FindingFiles(temporary);
      try {
        await writeXlsx(
          temporary.workbook,
          {
            title: view.title,
            subject: 'Gift card, coupon and delivery partner reconciliation',
            creator: 'ledger-recon',
            created: new Date(run.startedAtMs),
          },
          await reportSheets(options.mirror, store, run, view, options.scope, (finding, standing) =>
            files.add(finding, standing),
          ),
        );
        await files.end();
        writeFileSync(temporary.page, nightPage(view), { flag: EXCLUSIVE });
      } finally {
        await files.close();
      }
    });
    for (const key of ['workbook', 'csv', 'json', 'page'] as const) renameSync(temporary[key], replaceable(final[key]));
    return { ...final, checkRunId: run.checkRunId };
  } catch (error) {
    // A disk that fills or turns read-only mid-write: one sentence naming --out, not a stack.
    if (!(error instanceof LedgerReconError) && WRITE_FAILURES.has(String((error as { code?: unknown }).code)))
      throw fileSystemError('--out', options.outDir, error);
    throw error;
  } finally {
    for (const path of Object.values(temporary)) rmSync(path, { force: true });
  }
}

/** The CSV's columns: the exported finding's fields, in its order. */
const CSV_COLUMNS = [
  'runId',
  'code',
  'severity',
  'entityType',
  'entityId',
  'giftCardId',
  'referenceId',
  'currency',
  'unit',
  'expected',
  'actual',
  'difference',
  'atStake',
  'message',
  'state',
  'firstSeenAt',
  'ageDays',
  'fingerprint',
  'records',
  'acceptedNote',
  'acceptedBy',
  'acceptedAt',
  'acceptedUntil',
  'acceptanceEnded',
  'dueAt',
  'overdue',
] as const satisfies readonly (keyof ExportedFinding)[];

const FIGURES = new Set<string>(['expected', 'actual', 'difference', 'atStake']);

/** Findings held before both files are written: a few hundred kilobytes of text. */
const CHUNK_FINDINGS = 500;

/** The findings as CSV (one row each, formula-safe) and as a JSON array, streamed as they are added. */
class FindingFiles {
  readonly #csv: WriteStream;
  readonly #json: WriteStream;
  /** Rejects when either file fails (a disk full): it ends every wait on them, where a wait for 'drain' alone would never end. */
  readonly #failed: Promise<never>;
  #first = true;
  /** The findings' text not yet handed to each file: written a chunk at a time, not two small writes a finding. */
  #csvChunk: string[] = [];
  #jsonChunk: string[] = [];

  constructor(paths: ReportPaths) {
    this.#csv = createWriteStream(paths.csv, { flags: EXCLUSIVE });
    this.#json = createWriteStream(paths.json, { flags: EXCLUSIVE });
    this.#failed = Promise.race(
      [this.#csv, this.#json].map((stream) => new Promise<never>((_resolve, reject) => stream.once('error', reject))),
    );
    this.#failed.catch(() => undefined);
    this.#csv.write(`${CSV_COLUMNS.map((c) => csvField(c)).join(',')}\r\n`);
    this.#json.write('[');
  }

  /** Writes one finding to both files, in the order added (held until a chunk's worth is ready). */
  async add(finding: Finding, standing: Standing): Promise<void> {
    const f = exportedFinding(finding, standing);
    this.#jsonChunk.push(`${this.#first ? '\n' : ',\n'}${JSON.stringify(f)}`);
    this.#first = false;
    const fields = CSV_COLUMNS.map((column) => {
      if (column === 'records') return csvField(f.records.map((r) => `${r.type} ${r.id}`).join('; '));
      if (column === 'overdue') return csvField(String(f.overdue));
      const value = f[column];
      return FIGURES.has(column) ? csvFigure(value as string | null) : csvField(value as string | number | null);
    });
    this.#csvChunk.push(`${fields.join(',')}\r\n`);
    if (this.#csvChunk.length >= CHUNK_FINDINGS) await this.#flush();
  }

  /** Closes both files complete, once every finding is added. */
  async end(): Promise<void> {
    this.#jsonChunk.push(this.#first ? ']\n' : '\n]\n');
    await this.#flush();
    this.#csv.end();
    this.#json.end();
    await Promise.race([Promise.all([once(this.#csv, 'close'), once(this.#json, 'close')]), this.#failed]);
  }

  /** Lets go of both files whatever happened, once they are closed (see letGoOfFile). */
  async close(): Promise<void> {
    await Promise.all([letGoOfFile(this.#csv), letGoOfFile(this.#json)]);
  }

  /** Hands the findings held so far to both files, one write each, and waits while either is full. */
  async #flush(): Promise<void> {
    const written = [
      this.#csv.write(this.#csvChunk.join('')) || once(this.#csv, 'drain'),
      this.#json.write(this.#jsonChunk.join('')) || once(this.#json, 'drain'),
    ];
    this.#csvChunk = [];
    this.#jsonChunk = [];
    await Promise.race([Promise.all(written), this.#failed]);
  }
}
