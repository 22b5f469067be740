/**
 * A reader that closes the pipe early (`ledger-recon sql … | head -2`): the command ends quietly
 * with exit 0, as every Unix tool does, never with a stack.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, runCli } from '../support/cli.js';
import { mirrorAt } from '../support/test-db.js';
import { quietMonthOfPlanted } from '../support/simulator.js';

let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-pipe-'));
  db = mirrorAt(dir, 'demo');
  const demo = await runCli(['demo', '--db', db, '--out', join(dir, 'reports')], cleanEnv());
  expect(demo.status, demo.stderr).toBe(0);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI and closes its stdout after the first chunk, as `| head -1` does. */
function headOne(args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv() });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe('a closed pipe', () => {
  it.each([
    ['sql as a table', ['sql', '--format', 'table', 'SELECT * FROM gift_card_transactions']],
    ['sql as CSV', ['sql', '--format', 'csv', 'SELECT * FROM gift_card_transactions']],
    ['sql as JSON', ['sql', '--format', 'json', 'SELECT * FROM gift_card_transactions']],
    ['history', ['history']],
    ['history as JSON', ['history', '--json']],
    ['the help', ['--help']],
    ["a command's help", ['close', '--help']],
  ])('ends %s quietly with exit 0', async (_name, args) => {
    const result = await headOne([...args, ...(args[0] === '--help' || args[1] === '--help' ? [] : ['--db', db])]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.each([
    // Breaks found: the night's exit 1 stays.
    ['check', ['check'], 1],
    ['check as JSON', ['check', '--json'], 1],
    ['report', ['report', '--out', 'REPORTS'], 0],
    ['close of a past month', ['close', '--period', 'LAST', '--out', 'CLOSE'], 0],
    ['export to stdout', ['export', 'hledger', '--out', '-'], 0],
  ] as const)('ends %s quietly, keeping its exit code', async (_name, args, status) => {
    // A month the demo's planted breaks cannot fall in.
    const last = quietMonthOfPlanted();
    const given = args.map((arg) =>
      arg === 'REPORTS'
        ? join(dir, 'piped-reports')
        : arg === 'CLOSE'
          ? join(dir, 'piped-close')
          : arg === 'LAST'
            ? last
            : arg,
    );
    const result = await headOne([...given, '--db', db]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(status);
  });
});
