/**
 * The sync at network speed: every answer 20 ms late (the simulator's --latency), as over a
 * real network, on the medium world (10,000 cards, about 100,000 ledger entries, 3,000
 * coupons, 3,000 orders). Prints the bare walk of each list, their sum and their maximum (the
 * floor for walks read at the same time), then the full sync, an incremental sync after 1 %
 * new activity and one after none, each as a ratio to that maximum.
 * Targets: the full sync within 1.1x of the floor, a night with no activity within 1.2x.
 * Then the same on loopback with no delay, for reference only (the machine's two cores are
 * shared with the simulator there, so it measures CPU, not waiting).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DpClient } from '../../src/api/dp-client.js';
import { GiftCardClient } from '../../src/api/giftcard-client.js';
import { loadConfig } from '../../src/config.js';
import { openMirror } from '../../src/db/mirror.js';
import { runSync, type SyncSummary } from '../../src/sync/run-sync.js';
import { prefetch } from '../../src/sync/walk.js';
import { peakRssMb } from './measure.js';
import { withHeapPaced } from '../../src/app/heap.js';
import { testNow } from '../support/test-clock.js';

const LATENCY_MS = 20;
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const simulator = spawn(
  process.execPath,
  [
    CLI,
    'simulate',
    '--port',
    '0',
    '--dp-port',
    '0',
    '--seed',
    '1',
    '--size',
    'medium',
    '--latency',
    String(LATENCY_MS),
    '--control',
  ],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const env: Record<string, string> = {};
let waiting: { prefix: string; resolve: (line: string) => void } | undefined;
createInterface({ input: simulator.stdout }).on('line', (line) => {
  const match = /^export (\w+)=(.*)$/.exec(line);
  if (match) env[match[1] ?? ''] = match[2] ?? '';
  if (waiting && line.startsWith(waiting.prefix)) {
    waiting.resolve(line);
    waiting = undefined;
  }
});
const lineStartingWith = (prefix: string): Promise<string> => new Promise((resolve) => (waiting = { prefix, resolve }));
await lineStartingWith('Serving');
const config = loadConfig({}, env);
const clients = () => ({ giftcard: new GiftCardClient(config.giftcard), dp: new DpClient(config.dp) });

type Pages = AsyncGenerator<{ records: unknown[]; rejected: unknown[] }>;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** Each list walked alone, one after the other, pages prefetched as the sync does; no database. */
async function bareWalks(): Promise<{ each: Array<[string, number]>; sum: number; max: number }> {
  const c = clients();
  const lists: Array<[string, () => Pages | Promise<unknown>]> = [
    ['gift cards', () => c.giftcard.listGiftCards()],
    ['ledger entries', () => c.giftcard.listTransactions()],
    ['coupons', () => c.giftcard.listCoupons()],
    ['DP wallets', () => c.dp.getWallets()],
    ['DP products', () => c.dp.listProducts()],
    ['DP orders', () => c.dp.listOrders()],
  ];
  const each: Array<[string, number]> = [];
  for (const [name, list] of lists) {
    const started = performance.now();
    const pages = list();
    if (Symbol.asyncIterator in (pages as object)) for await (const _page of prefetch(pages as Pages)) void _page;
    else await pages;
    each.push([name, performance.now() - started]);
  }
  await Promise.all([c.giftcard.close(), c.dp.close()]);
  return { each, sum: each.reduce((total, [, ms]) => total + ms, 0), max: Math.max(...each.map(([, ms]) => ms)) };
}

async function timedSync(dbPath: string, full = false): Promise<SyncSummary> {
  const c = clients();
  const mirror = openMirror(dbPath);
  try {
    return await withHeapPaced(() =>
      runSync({ clock: { now: testNow }, mirror, giftcard: c.giftcard, dp: c.dp, full }),
    );
  } finally {
    mirror.close();
    await Promise.all([c.giftcard.close(), c.dp.close()]);
  }
}

async function measure(label: string, targets: boolean): Promise<void> {
  process.stdout.write(`\n${label}\n`);
  const walks = await bareWalks();
  for (const [name, ms] of walks.each)
    process.stdout.write(`  bare walk ${name.padEnd(15)} ${seconds(ms).padStart(8)}\n`);
  process.stdout.write(
    `  their sum ${seconds(walks.sum)}; their maximum ${seconds(walks.max)} (the floor for walks at the same time)\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-network-'));
  const db = join(dir, 'ledger.db');
  const ratio = (ms: number, target: number): string =>
    `${(ms / walks.max).toFixed(2)}x the floor${targets ? ` (target ≤ ${target}x)` : ''}`;
  const full = await timedSync(db);
  process.stdout.write(
    `  full sync                     ${seconds(full.durationMs).padStart(8)}  ${ratio(full.durationMs, 1.1)}; ${(full.durationMs / walks.sum).toFixed(2)}x the sum\n`,
  );
  const applied = lineStartingWith('applied');
  simulator.stdin.write(`activity ${Math.round(full.resources.giftCardTransactions.records / 100)}\n`);
  await applied;
  const active = await timedSync(db);
  process.stdout.write(
    `  incremental after 1 % activity ${seconds(active.durationMs).padStart(8)}  ${ratio(active.durationMs, 1.2)}\n`,
  );
  const idle = await timedSync(db);
  // A quiet night still reads every list whole except the ledger: its own floor is the longest of those.
  const quietFloor = Math.max(...walks.each.filter(([name]) => name !== 'ledger entries').map(([, ms]) => ms));
  process.stdout.write(
    `  incremental with no activity  ${seconds(idle.durationMs).padStart(8)}  ${ratio(idle.durationMs, 1.2)}; ${(idle.durationMs / quietFloor).toFixed(2)}x the longest list it reads whole (${seconds(quietFloor)})\n`,
  );
  const walksOf = (summary: SyncSummary): string =>
    Object.entries(summary.resources)
      .map(([name, stats]) => `${name} ${seconds(stats.durationMs)}`)
      .join(', ');
  process.stdout.write(
    `  each walk of the full sync: ${walksOf(full)}\n  each walk of the idle night: ${walksOf(idle)}\n`,
  );
  rmSync(dir, { recursive: true, force: true });
}

await measure(`Every answer ${LATENCY_MS} ms late, as over a network:`, true);
const latency = lineStartingWith('latency');
simulator.stdin.write('latency 0\n');
await latency;
await measure('On loopback with no delay (for reference; no target: both processes share the two cores):', false);
process.stdout.write(`\npeak RSS of the syncing process: ${peakRssMb()} MB\n`);
simulator.stdin.end();
simulator.kill('SIGTERM');
