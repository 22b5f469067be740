/**
 * A full sync from a simulator holding about 1,000,000 ledger entries, 100,000 cards,
 * 100,000 coupons and 10,000 orders, against the same walk with no database writes; then an
 * incremental sync after 1 % new activity, one with none, and a weekly --full pass; then the
 * bare walk and a full sync again with every answer 2 ms late, as over a network. The
 * simulator runs in its own process, so this process's peak RSS is the sync's.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DpClient } from '../../src/api/dp-client.js';
import { GiftCardClient } from '../../src/api/giftcard-client.js';
import { loadConfig } from '../../src/config.js';
import type { Mirror } from '../../src/db/mirror.js';
import { BACKEND, benchLocation, dropBenchMirror, openBenchMirror } from './backend.js';
import { runSync, type SyncSummary } from '../../src/sync/run-sync.js';
import { prefetch } from '../../src/sync/walk.js';
import { bytesWritten, peakRssMb, processCpuSeconds, timed } from './measure.js';
import { withHeapPaced } from '../../src/app/heap.js';
import { testNow } from '../support/test-clock.js';

const NETWORK_MS = 2;
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const args = [
  'simulate',
  '--port',
  '0',
  '--dp-port',
  '0',
  '--seed',
  '1',
  '--cards',
  '100000',
  '--entries-per-card',
  '16',
  '--coupons',
  '100000',
  '--orders',
  '10000',
  '--products',
  '40',
  '--control',
];
// The simulated world is a few GB of objects: room to grow, so that its collector does not
// thrash after new activity and slow the sync being measured.
const simulator = spawn(process.execPath, ['--max-old-space-size=8192', CLI, ...args], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const lines = createInterface({ input: simulator.stdout });
// Breaking out of `for await` over readline closes it: listen instead, for the whole run.
let waiting: { accept: (line: string) => boolean; resolve: (line: string) => void } | undefined;
const env: Record<string, string> = {};
lines.on('line', (line) => {
  const match = /^export (\w+)=(.*)$/.exec(line);
  if (match) env[match[1] ?? ''] = match[2] ?? '';
  if (line.startsWith('ledger-recon simulator')) process.stdout.write(`${line}\n`);
  if (waiting?.accept(line)) {
    waiting.resolve(line);
    waiting = undefined;
  }
});
const lineStartingWith = (prefix: string): Promise<string> =>
  new Promise((resolve) => (waiting = { accept: (line) => line.startsWith(prefix), resolve }));
const started = performance.now();
await lineStartingWith('Serving');
process.stdout.write(`simulator ready in ${((performance.now() - started) / 1000).toFixed(1)} s (its own process)\n\n`);
const config = loadConfig({}, env);
const clients = () => ({ giftcard: new GiftCardClient(config.giftcard), dp: new DpClient(config.dp) });

type Pages = AsyncGenerator<{ records: unknown[]; rejected: unknown[] }>;

async function count(pages: Pages): Promise<number> {
  let n = 0;
  for await (const page of prefetch(pages)) n += page.records.length + page.rejected.length;
  return n;
}

const RESOURCES = [
  ['gift cards', 'giftCards'],
  ['ledger entries', 'giftCardTransactions'],
  ['coupons', 'coupons'],
  ['DP orders', 'dpOrders'],
] as const;
type ResourceName = (typeof RESOURCES)[number][0];

interface BareWalk {
  seconds: Record<ResourceName, number>;
  counts: Record<ResourceName, number>;
}

/** The walk the sync makes (every list, pages prefetched the same way), with no database. */
async function bareWalk(label: string): Promise<BareWalk> {
  const bare = clients();
  const lists: Record<ResourceName, () => Pages> = {
    'gift cards': () => bare.giftcard.listGiftCards(),
    'ledger entries': () => bare.giftcard.listTransactions(),
    coupons: () => bare.giftcard.listCoupons(),
    'DP orders': () => bare.dp.listOrders(),
  };
  const seconds = {} as Record<ResourceName, number>;
  const counts = {} as Record<ResourceName, number>;
  await timed(label, async () => {
    for (const [name] of RESOURCES) {
      const t = performance.now();
      counts[name] = await count(lists[name]());
      seconds[name] = (performance.now() - t) / 1000;
    }
  });
  await Promise.all([bare.giftcard.close(), bare.dp.close()]);
  return { seconds, counts };
}

const sync = async (mirror: Mirror, label: string, full = false): Promise<SyncSummary> => {
  const c = clients();
  const writtenBefore = bytesWritten();
  // What each phase wrote: the counter read as each resource finishes.
  const writtenBy: string[] = [];
  let mark = writtenBefore ?? NaN;
  const progress = {
    update() {},
    done(resource: string) {
      const now = bytesWritten() ?? NaN;
      writtenBy.push(`${resource} ${Math.round((now - mark) / 1e6)}`);
      mark = now;
    },
  };
  const summary = await timed(label, () =>
    withHeapPaced(() => runSync({ clock: { now: testNow }, mirror, giftcard: c.giftcard, dp: c.dp, full, progress })),
  );
  const written = (bytesWritten() ?? NaN) - (writtenBefore ?? NaN);
  await Promise.all([c.giftcard.close(), c.dp.close()]);
  const phases = Object.entries(summary.resources).map(
    ([name, stats]) => `${name} ${(stats.durationMs / 1000).toFixed(2)}`,
  );
  process.stdout.write(`  phases (s): ${phases.join(', ')}\n`);
  if (!Number.isNaN(written)) {
    process.stdout.write(
      `  written (the WAL and its checkpoints, nearly all): ${Math.round(written / 1e6).toLocaleString('en-US')} MB; by phase (MB): ${writtenBy.join(', ')}\n`,
    );
  }
  return summary;
};

const rate = (records: number, ms: number) =>
  `${Math.round(records / (ms / 1000))
    .toLocaleString('en-US')
    .padStart(9)} records/s`;

/** A full sync into a new mirror, printed next to the bare walk. */
async function fullSync(mirror: Mirror, walk: BareWalk): Promise<SyncSummary> {
  const simCpuBefore = processCpuSeconds(simulator.pid);
  const ownCpuBefore = process.cpuUsage();
  const full = await sync(mirror, 'full sync into the mirror');
  const simCpu = (processCpuSeconds(simulator.pid) ?? NaN) - (simCpuBefore ?? NaN);
  const ownCpu = ((cpu) => (cpu.user + cpu.system) / 1e6)(process.cpuUsage(ownCpuBefore));
  // The machine's cores hold this process and the simulator: their CPU together, spread
  // perfectly over every core, bounds the sync from below whatever runs on which thread.
  if (!Number.isNaN(simCpu)) {
    const bound = (ownCpu + simCpu) / availableParallelism();
    process.stdout.write(
      `  the simulator's CPU meanwhile: ${simCpu.toFixed(2)} s; (sync + simulator CPU) / ${availableParallelism()} cores = ${bound.toFixed(2)} s, the least any sync doing this work could take here\n`,
    );
  }
  for (const [name, key] of RESOURCES) {
    const stats = full.resources[key];
    process.stdout.write(
      `  ${name.padEnd(16)} ${stats.records.toLocaleString('en-US').padStart(10)} in ${(stats.durationMs / 1000).toFixed(2).padStart(6)} s ${rate(stats.records, stats.durationMs)}   (bare walk ${walk.seconds[name].toFixed(2)} s, ${rate(walk.counts[name], walk.seconds[name] * 1000)})\n`,
    );
  }
  process.stdout.write(
    `  the ledger's time includes its index builds after the bulk load: ${((full.resources.giftCardTransactions.notes['indexBuildMs'] ?? 0) / 1000).toFixed(2)} s\n`,
  );
  const walkSeconds = Object.values(walk.seconds).reduce((a, b) => a + b, 0);
  process.stdout.write(
    `  settle pass ${(full.resources.settle.durationMs / 1000).toFixed(2)} s; whole sync ${(full.durationMs / 1000).toFixed(2)} s = ${(full.durationMs / 1000 / walkSeconds).toFixed(2)}x the bare walk one list after another (no target: the network bench holds the targets)\n\n`,
  );
  return full;
}

const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-bench-'));
process.stdout.write(
  `Into ${BACKEND}. On loopback with no delay: both processes share the machine, so the sync is bound by CPU.\n`,
);
const walk = await bareWalk('bare walk (no writes)');
const location = benchLocation(`bench_sync_${process.pid}`, dir);
const mirror = await openBenchMirror(location);
const full = await fullSync(mirror, walk);

const appliedLine = lineStartingWith('applied');
simulator.stdin.write(`activity ${Math.round(walk.counts['ledger entries'] / 100)}\n`);
const applied = await appliedLine;
process.stdout.write(`simulator: ${applied} operations (1 % of the ledger)\n`);
const incremental = await sync(mirror, 'incremental sync after 1 % new activity');
process.stdout.write(
  `  ledger: ${incremental.resources.giftCardTransactions.pages} pages, ${incremental.resources.giftCardTransactions.new} new; settle re-read ${incremental.resources.settle.notes['cardsReread']} cards\n`,
);
process.stdout.write(
  `  incremental ${(incremental.durationMs / 1000).toFixed(2)} s next to full ${(full.durationMs / 1000).toFixed(2)} s\n`,
);
// With nothing new, what a night writes is bookkeeping alone: unchanged records are not written.
const idle = await sync(mirror, 'incremental sync with no new activity');
process.stdout.write(
  `  ledger: ${idle.resources.giftCardTransactions.pages} pages, ${idle.resources.giftCardTransactions.new} new\n`,
);
// The weekly --full: the whole ledger again, every entry compared and marked seen.
const weekly = await sync(mirror, '--full pass over the same mirror (weekly)', true);
process.stdout.write(
  `  ledger: ${weekly.resources.giftCardTransactions.records.toLocaleString('en-US')} entries compared, ${weekly.resources.giftCardTransactions.changed} changed, ${weekly.resources.giftCardTransactions.notes['vanished'] ?? 0} vanished; settle re-read ${weekly.resources.settle.notes['cardsReread']} cards\n`,
);
process.stdout.write(`peak RSS of the syncing process: ${peakRssMb()} MB (target < 500 MB)\n`);

await mirror.close();
await dropBenchMirror(location);

// A real service answers over a network: each page then costs at least a round trip, during
// which the mirror writes the page before. 2 ms is a fast one (same region, connection kept).
const latencyLine = lineStartingWith('latency');
simulator.stdin.write(`latency ${NETWORK_MS}\n`);
await latencyLine;
process.stdout.write(`\nOver a network: every answer ${NETWORK_MS} ms later (the simulator's --latency).\n`);
const networkWalk = await bareWalk('bare walk (no writes)');
const networkLocation = benchLocation(`bench_network_${process.pid}`, dir);
const networkMirror = await openBenchMirror(networkLocation);
await fullSync(networkMirror, networkWalk);
await networkMirror.close();
await dropBenchMirror(networkLocation);
rmSync(dir, { recursive: true, force: true });
simulator.stdin.end();
simulator.kill('SIGTERM');
