import { defaultLocations } from '../locations.js';
import { statSync } from 'node:fs';
import { ConfigError } from '../errors.js';
import { verifyFolder } from '../evidence/verify.js';
import { reporter, type Reporting } from './reporter.js';

export interface VerifyOptions extends Reporting {
  dir?: string;
}

/**
 * `ledger-recon verify [--dir FOLDER]`: offline, with no mirror and no services, checks every
 * evidence manifest in the folder, the files each names and the chain between them. One line per
 * problem, then one line of result; exit 1 when anything does not hold.
 */
export async function verify(options: VerifyOptions): Promise<boolean> {
  const { say, record } = reporter(options);
  const dir = options.dir ?? defaultLocations().reports;
  let folder = false;
  try {
    folder = statSync(dir).isDirectory();
  } catch {
    folder = false;
  }
  if (!folder)
    throw new ConfigError(
      '--dir',
      `--dir ${dir}: not a folder: give the folder that holds the outputs and their …-evidence.json`,
    );
  const result = await verifyFolder(dir);
  record({
    ok: result.manifests > 0 && result.problems.length === 0,
    dir,
    manifests: result.manifests,
    files: result.files,
    problems: result.problems,
  });
  for (const problem of result.problems) process.stderr.write(`ledger-recon: ${problem}\n`);
  if (result.manifests === 0 && result.problems.length === 0) {
    process.stderr.write(`ledger-recon: ${dir} holds no evidence manifest (…-evidence.json): nothing to verify\n`);
    process.exitCode = 1;
    return false;
  }
  if (result.problems.length > 0) {
    process.stderr.write(
      `ledger-recon: ${dir}: ${result.problems.length} ${result.problems.length === 1 ? 'problem' : 'problems'} in ${result.manifests} manifests and ${result.files} files\n`,
    );
    process.exitCode = 1;
    return false;
  }
  say(`verified ${dir}: ${result.manifests} manifests, ${result.files} files, one unbroken chain per mirror\n`);
  return true;
}
