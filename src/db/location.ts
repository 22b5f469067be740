/** Where the mirror lives, as a user names it: read before anything heavy is loaded (the CLI checks it first). */
import { ConfigError } from '../errors.js';

/**
 * Where the mirror lives as output may show it: a URL without its user and password. The user
 * information ends at the last `@` before the query (a password may hold `@`, `/` or `:` as
 * typed): everything up to it goes, so no part of a password is shown.
 */
export function shownDb(db: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(db);
  if (scheme === null) return db;
  const query = db.search(/[?#]/);
  const authority = query === -1 ? db : db.slice(0, query);
  const at = authority.lastIndexOf('@');
  const shown = at === -1 ? db : scheme[0] + db.slice(at + 1);
  // libpq also takes a password as a parameter (?password=…, ?sslpassword=…).
  return shown.replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1…');
}

/** Whether `--db` names a PostgreSQL server (postgres:// or postgresql://) rather than a file. */
export function isServerUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/**
 * The mirror's file, as `--db` (or LEDGER_RECON_DB) names it. Any other URL (mysql://…) names
 * no file and no server this version reads: it is refused, never taken for a folder named
 * `mysql:`. The message shows the URL without its user and password.
 * @throws ConfigError for a URL.
 */
export function mirrorFile(db: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(db);
  if (scheme === null) return db;
  let shown = `${scheme[1]}://…`;
  try {
    const url = new URL(db);
    shown = `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    // Not a URL a parser reads: the scheme alone is shown.
  }
  throw new ConfigError(
    'LEDGER_RECON_DB',
    isServerUrl(db)
      ? `--db ${shown} (or LEDGER_RECON_DB) names a PostgreSQL server where a file was expected`
      : `--db ${shown} (or LEDGER_RECON_DB): the mirror lives in a SQLite file (a path, such as data/ledger.db) or in PostgreSQL (postgres://user@host:port/db?schema=name), not in ${scheme[1]}`,
  );
}

/** The schema a PostgreSQL URL without `?schema=` names. */
export const DEFAULT_SCHEMA = 'ledger_recon';
