import { defaultLocations } from '../locations.js';
import { reporter } from './reporter.js';
import { userInfo } from 'node:os';
import { parseISO, isValid } from 'date-fns';
import { openForWriting } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import { acceptFinding } from '../app/accept.js';
import { systemClock } from '../app/context.js';

export interface AcceptOptions {
  db?: string;
  note: string;
  /** Who accepts; default the operating-system user. */
  by?: string;
  until?: string;
  json?: boolean;
  quiet?: boolean;
  write?: (text: string) => void;
}

/**
 * `ledger-recon accept FINGERPRINT --note TEXT [--by NAME] [--until DATE]`: accepts a known
 * break as it stands in the newest check run. It stays in every report, with the note, who
 * and when, but no longer fails runs, until the date passes (end of that UTC day) or the
 * break changes.
 * @throws MirrorError when no check run holds that fingerprint, or the date is not a date.
 */
export async function accept(fingerprint: string, options: AcceptOptions): Promise<void> {
  const { say, record } = reporter(options);
  if (options.until !== undefined) {
    const date = parseISO(options.until);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(options.until) || !isValid(date))
      throw new MirrorError(`--until ${options.until} is not a date (YYYY-MM-DD)`);
  }
  const dbPath = options.db ?? defaultLocations().db;
  const { mirror, release } = await openForWriting(dbPath, 'accept');
  try {
    const by = options.by ?? operatingSystemUser();
    const finding = await acceptFinding(
      { mirror, clock: systemClock },
      { fingerprint, note: options.note, by, ...(options.until !== undefined ? { until: options.until } : {}) },
    );
    record({ accepted: true, code: finding.code, fingerprint, by, until: options.until ?? null, note: options.note });
    say(
      `accepted ${finding.code} ${fingerprint} by ${by}${options.until ? ` until the end of ${options.until} (UTC)` : ' until it changes'}: ${finding.message}\n`,
    );
  } finally {
    await release();
  }
}

/** The operating-system user's name, or the environment's when the system has none for us. */
function operatingSystemUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? process.env['LOGNAME'] ?? 'unknown';
  }
}
