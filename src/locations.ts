/**
 * Where the mirror and the reports go when no flag names them: one answer for every command,
 * printed by `doctor`.
 *
 * - `LEDGER_RECON_DB` / `LEDGER_RECON_OUT` name the mirror / the reports folder themselves.
 * - `LEDGER_RECON_HOME` names a folder holding both (`data/ledger.db`, `reports/`): a server
 *   install or a container sets it to a volume.
 * - Installed from the package (the code lives under a `node_modules` folder), without
 *   `LEDGER_RECON_HOME`: the user's data folder, `$XDG_DATA_HOME/ledger-recon` or
 *   `~/.local/share/ledger-recon`, so cron (whose current folder is `$HOME`) and an operator's
 *   shell in any folder find the same mirror.
 * - Run from a checkout (the quick start): `data/` and `reports/` under the current folder.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Why the defaults are where they are. */
export type LocationBasis = 'LEDGER_RECON_HOME' | 'user data folder' | 'current folder';

export interface Locations {
  /** The default mirror (`--db`). */
  db: string;
  /** The default reports folder (`--out`). */
  reports: string;
  /** The demo's mirror and reports. */
  demoDb: string;
  demoReports: string;
  /** The folder holding both, when they share one (absent for the current folder). */
  home: string | undefined;
  basis: LocationBasis;
}

/** True when this code runs from an installed package rather than from a checkout. */
export function isInstalled(moduleUrl: string = import.meta.url): boolean {
  return fileURLToPath(moduleUrl).split(sep).includes('node_modules');
}

/** The user's data folder for ledger-recon (XDG's rule: `$XDG_DATA_HOME`, else `~/.local/share`). */
function userDataFolder(env: NodeJS.ProcessEnv): string {
  const xdg = env['XDG_DATA_HOME'];
  // XDG: a relative $XDG_DATA_HOME is invalid and ignored.
  const base = xdg?.startsWith('/') ? xdg : join(env['HOME'] || homedir(), '.local', 'share');
  return join(base, 'ledger-recon');
}

/** The default locations for this environment; `installed` is whether the code runs from a package. */
export function defaultLocations(env: NodeJS.ProcessEnv = process.env, installed = isInstalled()): Locations {
  const named = env['LEDGER_RECON_HOME'];
  const home = named ? named : installed ? userDataFolder(env) : undefined;
  const basis: LocationBasis = named ? 'LEDGER_RECON_HOME' : installed ? 'user data folder' : 'current folder';
  const under = (...parts: string[]) => (home === undefined ? join(...parts) : join(home, ...parts));
  return {
    db: env['LEDGER_RECON_DB'] || under('data', 'ledger.db'),
    reports: env['LEDGER_RECON_OUT'] || under('reports'),
    demoDb: under('data', 'demo', 'ledger.db'),
    demoReports: under('reports', 'demo'),
    home,
    basis,
  };
}

/**
 * Whether `db` is the default mirror, which nobody typed, so no typo can conjure it (see
 * `refuseConjuredMirror`): its first run makes it, with its folders, even where the demo's
 * mirror already sits in its folder. Not so for `LEDGER_RECON_DB`, which a person types, nor
 * under a `LEDGER_RECON_HOME` that does not exist.
 */
export function isDefaultMirror(db: string, env: NodeJS.ProcessEnv = process.env, installed = isInstalled()): boolean {
  const locations = defaultLocations({ ...env, LEDGER_RECON_DB: '' }, installed);
  if (db !== locations.db) return false;
  return locations.basis !== 'LEDGER_RECON_HOME' || (locations.home !== undefined && existsSync(locations.home));
}
