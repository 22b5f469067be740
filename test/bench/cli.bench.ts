/**
 * test/bench/cli: how long the CLI takes to answer `--help` and `--version` (the built CLI in
 * a child process, as a user starts it), beside a bare `node -e 0`: median of 9 runs each.
 * Target: under 0.3 s on this machine (the command modules, and with them exceljs, drizzle,
 * undici and better-sqlite3, load only when a command runs).
 *
 *   npm run bench -- cli
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function median(args: string[], runs = 9): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { encoding: 'utf8' });
    times.push((performance.now() - started) / 1000);
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] ?? Number.NaN;
}

const bare = median(['-e', '0']);
process.stdout.write(`node -e 0                          ${bare.toFixed(3)} s\n`);
for (const args of [['--help'], ['--version'], ['run', '--help']]) {
  const seconds = median([CLI, ...args]);
  process.stdout.write(
    `ledger-recon ${args.join(' ').padEnd(22)} ${seconds.toFixed(3)} s   (${(seconds / bare).toFixed(1)}x bare node; target < 0.3 s: ${seconds < 0.3 ? 'met' : 'NOT met'})\n`,
  );
}
