import { expect } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Simulator } from '../../src/sim/simulator.js';

/** The built CLI (npm test builds it first). */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** The parent's environment without any service configuration, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^(GIFTCARD|DP)_/.test(key)) delete env[key];
  return { ...env, ...extra };
}

/** The six variables pointing at a simulator. */
export function simulatorEnv(sim: Simulator): NodeJS.ProcessEnv {
  return cleanEnv({
    GIFTCARD_API_URL: sim.giftcardUrl,
    GIFTCARD_CLIENT_ID: sim.credentials.giftcard.clientId,
    GIFTCARD_CLIENT_SECRET: sim.credentials.giftcard.clientSecret,
    DP_API_URL: sim.dpUrl,
    DP_CLIENT_ID: sim.credentials.dp.clientId,
    DP_CLIENT_SECRET: sim.credentials.dp.clientSecret,
  });
}

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Preloaded into the CLI's process: the run's test clock, or a test's own instant (`nowMs`). */
const CLOCK = fileURLToPath(new URL('./clock.mjs', import.meta.url));

/**
 * Runs the CLI in a child process without blocking this one (a simulator may live here).
 * `killAfterMs` sends SIGKILL after that long; `nowMs` starts the process's clock at that
 * instant (it runs on in real time), as a night of a simulated month. `onStart` hears the
 * child's process ID (to ask a hung one what it waits for).
 */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { killAfterMs?: number; nowMs?: number; onStart?: (pid: number) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', CLOCK, CLI, ...args], { env: clockEnv(env, options.nowMs) });
    if (child.pid !== undefined) options.onStart?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer =
      options.killAfterMs !== undefined ? setTimeout(() => child.kill('SIGKILL'), options.killAfterMs) : undefined;
    child.on('close', (status, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/**
 * The child's clock: the run's (its instant and anchor, from this process's environment) or, with
 * `nowMs`, a clock that starts at that instant when the child starts.
 */
export function clockEnv(env: NodeJS.ProcessEnv, nowMs?: number): NodeJS.ProcessEnv {
  const { LEDGER_RECON_TEST_NOW: now, LEDGER_RECON_TEST_ANCHOR: anchor } = process.env;
  if (nowMs !== undefined) {
    const { LEDGER_RECON_TEST_ANCHOR: _ignored, ...rest } = env;
    return { ...rest, LEDGER_RECON_TEST_NOW: String(nowMs) };
  }
  return {
    ...env,
    ...(now ? { LEDGER_RECON_TEST_NOW: now } : {}),
    ...(anchor ? { LEDGER_RECON_TEST_ANCHOR: anchor } : {}),
  };
}

/**
 * A failure as the operator issue requires it: exit 2, one line on stderr, no stack trace and
 * none of `secrets`. @returns the line.
 */
export function oneFailureLine(result: CliResult, secrets: readonly string[]): string {
  expect(result.status, result.stderr).toBe(2);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at |unexpected error/);
  for (const secret of secrets) expect(result.stderr + result.stdout).not.toContain(secret);
  return lines[0] ?? '';
}
