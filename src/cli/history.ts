import { existsSync } from 'node:fs';
import { DEFAULT_DB_PATH, openMirrorReadOnly } from '../db/mirror.js';
import { MirrorError } from '../errors.js';

export interface HistoryOptions {
  db?: string;
  json?: boolean;
  limit?: number;
  write?: (text: string) => void;
}

export interface HistoryRow {
  runId: number;
  syncRunId: number | null;
  startedAt: string;
  durationMs: number | null;
  verdict: string | null;
  findings: number;
  errors: number;
  warnings: number;
  info: number;
  new: number;
  resolved: number;
  cards: number;
  entries: number;
}

/** `ledger-recon history`: past check runs, newest first, with verdicts and finding totals. */
export async function history(options: HistoryOptions): Promise<HistoryRow[]> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const dbPath = options.db ?? DEFAULT_DB_PATH;
  if (!existsSync(dbPath)) throw new MirrorError(`there is no mirror at ${dbPath}`);
  const mirror = openMirrorReadOnly(dbPath);
  try {
    const runs = mirror.sqlite
      .prepare('SELECT check_run_id, sync_run_id, started_at, started_at_ms, finished_at_ms, status, verdict, summary_json FROM check_runs ORDER BY check_run_id DESC LIMIT ?')
      .all(options.limit ?? 30) as { check_run_id: number; sync_run_id: number | null; started_at: string; started_at_ms: number; finished_at_ms: number | null; status: string; verdict: string | null; summary_json: string | null }[];
    const rows = runs.map((r): HistoryRow => {
      const s = (r.summary_json ? JSON.parse(r.summary_json) : {}) as { findings?: number; bySeverity?: Record<string, number>; new?: number; resolved?: number; cards?: number; entries?: number };
      return {
        runId: r.check_run_id,
        syncRunId: r.sync_run_id,
        startedAt: r.started_at,
        durationMs: r.finished_at_ms === null ? null : r.finished_at_ms - r.started_at_ms,
        verdict: r.verdict ?? (r.status === 'running' ? 'RUNNING' : 'FAILED'),
        findings: s.findings ?? 0,
        errors: s.bySeverity?.['error'] ?? 0,
        warnings: s.bySeverity?.['warning'] ?? 0,
        info: s.bySeverity?.['info'] ?? 0,
        new: s.new ?? 0,
        resolved: s.resolved ?? 0,
        cards: s.cards ?? 0,
        entries: s.entries ?? 0,
      };
    });
    if (options.json) write(`${JSON.stringify(rows)}\n`);
    else {
      const header = ['run', 'sync', 'started (UTC)', 'seconds', 'verdict', 'findings', 'error', 'warning', 'info', 'new', 'resolved', 'cards', 'entries'];
      const table = rows.map((r) => [r.runId, r.syncRunId ?? '', r.startedAt.replace('T', ' ').slice(0, 19), r.durationMs === null ? '' : (r.durationMs / 1000).toFixed(1), r.verdict ?? '', r.findings, r.errors, r.warnings, r.info, r.new, r.resolved, r.cards, r.entries].map(String));
      const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]?.length ?? 0)));
      for (const row of [header, ...table]) write(`${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()}\n`);
    }
    return rows;
  } finally {
    mirror.close();
  }
}
