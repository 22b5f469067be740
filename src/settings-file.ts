/**
 * A settings file (`--settings FILE`), read by ledger-recon itself as `KEY=value` text: the lines
 * of systemd's EnvironmentFile, blank lines and `#` comments skipped, a value optionally in
 * quotes. A regular file of bounded size, and only ledger-recon's variables: a `NODE_OPTIONS`
 * line is refused, not obeyed.
 */
import { statSync } from 'node:fs';
import { shownValue } from './config.js';
import { ConfigError } from './errors.js';
import { oneLine } from './log.js';
import { readRegularFile } from './paths.js';

/** The largest settings file read: a dozen lines; /dev/zero is not one. */
const MAX_SETTINGS_BYTES = 64 * 1024;

/** The variables a settings file may set: ledger-recon's own, never Node's or the shell's. */
const SETTING = /^(GIFTCARD|DP|LEDGER_RECON)_[A-Z0-9_]+$/;

/**
 * The settings the file gives (a key given twice at its last value, as systemd takes it), and a
 * warning when it holds client secrets other users can read.
 * @throws FileSystemError when the file cannot be read; ConfigError naming a line that is not a setting.
 */
export function readSettingsFile(file: string): { settings: Map<string, string>; warning: string | undefined } {
  const text = readRegularFile(file, '--settings', MAX_SETTINGS_BYTES);
  const settings = new Map<string, string>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) throw new ConfigError('--settings', `--settings ${file}:${i + 1}: not a KEY=value line`);
    const [, key, value] = match as unknown as [string, string, string];
    if (!SETTING.test(key))
      throw new ConfigError(
        '--settings',
        `--settings ${file}:${i + 1}: ${key.length <= 40 ? key : shownValue(key)} is not a ledger-recon setting (GIFTCARD_*, DP_*, LEDGER_RECON_*)`,
      );
    settings.set(key, /^(["'])(.*)\1$/.exec(value)?.[2] ?? value);
  }
  // Client secrets in a file other users can read are no longer secret.
  const mode = statSync(file).mode;
  const secretKeys = [...settings.keys()].filter((key) => key.endsWith('_SECRET'));
  const warning =
    secretKeys.length > 0 && (mode & 0o044) !== 0
      ? `--settings ${oneLine(file)} holds ${secretKeys.join(', ')} and other users can read it (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 ${oneLine(file)}`
      : undefined;
  return { settings, warning };
}
