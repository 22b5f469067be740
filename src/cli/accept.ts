import { parseISO, isValid } from 'date-fns';
import { DEFAULT_DB_PATH, openMirrorLocked } from '../db/mirror.js';
import { MirrorError } from '../errors.js';

export interface AcceptOptions {
  db?: string;
  note: string;
  until?: string;
  nowMs?: number;
  write?: (text: string) => void;
}

/**
 * `ledger-recon accept FINGERPRINT --note TEXT [--until DATE]`: accepts a known break as it
 * stands in the newest check run. It stays in every report but no longer fails runs, until
 * the date passes (end of that UTC day) or the break changes.
 * @throws MirrorError when no check run holds that fingerprint, or the date is not a date.
 */
export async function accept(fingerprint: string, options: AcceptOptions): Promise<void> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const nowMs = options.nowMs ?? Date.now();
  let untilMs: number | null = null;
  if (options.until !== undefined) {
    const date = parseISO(options.until);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(options.until) || !isValid(date)) throw new MirrorError(`--until ${options.until} is not a date (YYYY-MM-DD)`);
    untilMs = Date.parse(`${options.until}T00:00:00Z`) + 86_400_000;
    if (untilMs <= nowMs) throw new MirrorError(`--until ${options.until} has already passed`);
  }
  const dbPath = options.db ?? DEFAULT_DB_PATH;
  const { mirror, lock } = openMirrorLocked(dbPath, 'accept');
  try {
    const finding = mirror.sqlite
      .prepare('SELECT check_run_id, code, message, detail_sha256 FROM findings WHERE fingerprint = ? ORDER BY check_run_id DESC LIMIT 1')
      .get(fingerprint) as { check_run_id: number; code: string; message: string; detail_sha256: string } | undefined;
    if (!finding) throw new MirrorError(`no finding has the fingerprint ${fingerprint}: copy it from the findings JSON or the report`);
    mirror.sqlite
      .prepare(
        `INSERT INTO finding_acceptances (fingerprint, note, accepted_at, accepted_at_ms, until, until_ms, detail_sha256, check_run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (fingerprint) DO UPDATE SET note = excluded.note, accepted_at = excluded.accepted_at, accepted_at_ms = excluded.accepted_at_ms, until = excluded.until,
           until_ms = excluded.until_ms, detail_sha256 = excluded.detail_sha256, check_run_id = excluded.check_run_id`,
      )
      .run(fingerprint, options.note, new Date(nowMs).toISOString(), nowMs, options.until ?? null, untilMs, finding.detail_sha256, finding.check_run_id);
    write(`accepted ${finding.code} ${fingerprint}${options.until ? ` until the end of ${options.until} (UTC)` : ' until it changes'}: ${finding.message}\n`);
  } finally {
    mirror.close();
    lock.release();
  }
}
