/** Where the mirror lives, as a user names it: read before anything heavy is loaded (the CLI checks it first). */
import { ConfigError } from '../errors.js';

/**
 * The mirror's file, as `--db` (or LEDGER_RECON_DB) names it. A URL (postgres://…) names no
 * file: this version keeps the mirror in SQLite alone, so it is refused, never taken for a
 * folder named `postgres:`. The message shows the URL without its user and password.
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
    `--db ${shown} (or LEDGER_RECON_DB): this version keeps the mirror in a SQLite file, not in a database server (PostgreSQL mirrors are not built yet); give --db a file path, such as data/ledger.db`,
  );
}
