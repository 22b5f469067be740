import { defaultLocations } from '../locations.js';
import { reporter } from './reporter.js';
import { acceptAt } from '../app/accept.js';
import { systemClock } from '../app/context.js';
import { ConfigError } from '../errors.js';
import type { declareAccept, FlagsOf } from './declarations.js';

/**
 * `ledger-recon accept FINGERPRINT --note TEXT [--by NAME] [--until DATE]`: accepts a known
 * break as it stands in the newest check run. It stays in every report, with the note, who
 * and when, but no longer fails runs, until the date passes (end of that UTC day) or the
 * break changes.
 * @throws MirrorError when no check run holds that fingerprint, or the date is not a date.
 */
export async function accept(fingerprint: string, options: FlagsOf<typeof declareAccept>): Promise<void> {
  const { say, record } = reporter(options);
  const { until, note } = options;
  // Asked for here, after the fingerprint (commander checks required options first): what is missing first is named first.
  if (note === undefined)
    throw new ConfigError('--note', 'accept needs --note "why": the justification auditors read beside the finding');
  const finding = await acceptAt(options.db ?? defaultLocations().db, systemClock, {
    fingerprint,
    note,
    by: options.by,
    until,
  });
  const { by } = finding;
  record({ accepted: true, code: finding.code, fingerprint, by, until: until ?? null, note });
  say(
    `accepted ${finding.code} ${fingerprint} by ${by}${until ? ` until the end of ${until} (UTC)` : ' until it changes'}: ${finding.message}\n`,
  );
}
