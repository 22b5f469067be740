/**
 * Shell completion (operator issue, item 6): `ledger-recon completion bash|zsh` prints a script
 * made from the program itself; bash completes commands, subcommands, options and their fixed
 * values; zsh's script parses and hands each command its own options.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../support/cli.js';
import { hasProgram } from '../support/programs.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-completion-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The script for `shell`, written to a file of the test's own. */
async function script(shell: string): Promise<string> {
  const result = await runCli(['completion', shell], cleanEnv());
  expect(result.status, result.stderr).toBe(0);
  const file = join(dir, `ledger-recon.${shell}`);
  writeFileSync(file, result.stdout);
  return file;
}

describe('completion bash', () => {
  it('completes commands, subcommands, options, fixed values and paths', async () => {
    const file = await script('bash');
    const complete = (...words: string[]): string[] =>
      execFileSync(
        'bash',
        [
          '-c',
          `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ledger_recon; printf '%s\\n' "\${COMPREPLY[@]}"`,
          'bash',
          file,
          ...words,
        ],
        { encoding: 'utf8', cwd: dir },
      )
        .split('\n')
        .filter((line) => line !== '');
    expect(complete('ledger-recon', 'ru')).toEqual(['run']);
    expect(complete('ledger-recon', 'run', '--push')).toEqual(['--push-metrics']);
    expect(complete('ledger-recon', 'books', 'im')).toEqual(['import']);
    expect(complete('ledger-recon', 'books', 'import', '--ki')).toEqual(['--kind']);
    expect(complete('ledger-recon', 'sql', '--format', '')).toEqual(['table', 'csv', 'json']);
    expect(complete('ledger-recon', '--log-level', 'd')).toEqual(['debug']);
    expect(complete('ledger-recon', 'check', '--dry')).toEqual(['--dry-run']);
    // Global options after a command, and a path after a path option.
    expect(complete('ledger-recon', 'check', '--qu')).toEqual(['--quiet']);
    writeFileSync(join(dir, 'settings.env'), '');
    expect(complete('ledger-recon', 'run', '--settings', 'sett')).toEqual(['settings.env']);
  });
});

describe.runIf(hasProgram('zsh', 'zsh'))('completion zsh', () => {
  it('parses, lists the commands, and hands each command its own options', async () => {
    const file = await script('zsh');
    execFileSync('zsh', ['-n', file]);
    // zsh's completion functions stand in as printers: what the script hands them is what zsh offers.
    const offered = (...words: string[]): string =>
      execFileSync(
        'zsh',
        [
          '-c',
          `_describe() { print -l -- "\${(@P)2}" }; _arguments() { print -l -- "$@" }; _files() {}; source <(sed '$d' "$1"); shift; words=("$@"); CURRENT=$#; _ledger_recon`,
          'zsh',
          file,
          ...words,
        ],
        { encoding: 'utf8' },
      );
    expect(offered('ledger-recon', '')).toMatch(/^run:the nightly job/m);
    const run = offered('ledger-recon', 'run', '--');
    expect(run).toMatch(/^--metrics-file\[.*\]:path:_files$/m);
    expect(run).toMatch(/^--quiet\[/m);
    expect(offered('ledger-recon', 'books', 'import', '--')).toMatch(/^--kind\[/m);
    expect(offered('ledger-recon', 'books', 'import', '--')).not.toMatch(/^--full\[/m);
  });
});

it('refuses a shell it makes no script for, in one line', async () => {
  const result = await runCli(['completion', 'fish'], cleanEnv());
  expect(result.status).toBe(2);
  expect(result.stderr).toBe('ledger-recon: completion for fish is not made: bash and zsh are\n');
});
