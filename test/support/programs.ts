import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where `command` is on PATH, or undefined. */
export function programPath(command: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter))
    try {
      accessSync(join(dir, command), constants.X_OK);
      return join(dir, command);
    } catch {
      // not in this folder
    }
  return undefined;
}

/** True when `command` is an executable on PATH. */
function onPath(command: string): boolean {
  return programPath(command) !== undefined;
}

/**
 * Whether the tests that need an outside program (as a user would run it) can run. Absent on
 * a developer's machine: they are skipped, with one line naming the Debian package. Absent
 * under CI=true, where `.ci/run` installs it: the test file fails.
 */
export function hasProgram(command: string, debianPackage: string): boolean {
  if (onPath(command)) return true;
  const install = `Debian package ${debianPackage}: apt-get install ${debianPackage}`;
  if (process.env['CI'] === 'true')
    throw new Error(`${command} is not on PATH (${install}): CI installs it, so the tests that need it must run`);
  process.stderr.write(`skipped: the tests that need ${command}, which is not on PATH (${install})\n`);
  return false;
}
