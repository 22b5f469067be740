/**
 * A full sync from a simulator holding about 1,000,000 ledger entries, 100,000 cards,
 * 100,000 coupons and 10,000 orders, against the same walk with no database writes, then an
 * incremental sync after 1 % new activity. The simulator runs in its own process, so this
 * process's peak RSS is the sync's.
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
import { peakRssMb, processCpuSeconds, timed } from './measure.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const args = ['simulate', '--port', '0', '--dp-port', '0', '--seed', '1', '--cards', '100000', '--entries-per-card', '16', '--coupons', '100000', '--orders', '10000', '--products', '40', '--control'];
// The simulated world is a few GB of objects: room to grow, so that its collector does not
// thrash after new activity and slow the sync being measured.
const simulator = spawn(process.execPath, ['--max-old-space-size=8192', CLI, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
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
const lineStartingWith = (prefix: string): Promise<string> => new Promise((resolve) => (waiting = { accept: (line) => line.startsWith(prefix), resolve }));
const started = performance.now();
await lineStartingWith('Serving');
process.stdout.write(`simulator ready in ${((performance.now() - started) / 1000).toFixed(1)} s (its own process)\n\n`);
const config = loadConfig({}, env);
const clients = () => ({ giftcard: new GiftCardClient(config.giftcard), dp: new DpClient(config.dp) });

async function count(pages: AsyncIterable<{ records: unknown[]; rejected: unknown[] }>): Promise<number> {
  let n = 0;
  for await (const page of pages) n += page.records.length + page.rejected.length;
  return n;
}

// The bare walk: every list, no database.
const bare = clients();
const walkSeconds: Record<string, number> = {};
const walkCpu = process.cpuUsage();
const walkCounts: Record<string, number> = {};
for (const [name, pages] of [
  ['gift cards', () => bare.giftcard.listGiftCards()],
  ['ledger entries', () => bare.giftcard.listTransactions()],
  ['coupons', () => bare.giftcard.listCoupons()],
  ['DP orders', () => bare.dp.listOrders()],
] as const) {
  const t = performance.now();
  walkCounts[name] = await count(pages());
  walkSeconds[name] = (performance.now() - t) / 1000;
}
const walkTotal = Object.values(walkSeconds).reduce((a, b) => a + b, 0);
const walkCpuSeconds = ((cpu) => (cpu.user + cpu.system) / 1e6)(process.cpuUsage(walkCpu));
process.stdout.write(`bare walk (no writes)                        ${walkTotal.toFixed(2).padStart(8)} s   CPU ${walkCpuSeconds.toFixed(2).padStart(6)} s   peak RSS ${String(peakRssMb()).padStart(5)} MB\n`);
await Promise.all([bare.giftcard.close(), bare.dp.close()]);

const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-bench-'));
const mirror = openMirror(join(dir, 'ledger.db'));
const sync = async (label: string): Promise<SyncSummary> => {
  const c = clients();
  const summary = await timed(label, () => runSync({ mirror, giftcard: c.giftcard, dp: c.dp }));
  await Promise.all([c.giftcard.close(), c.dp.close()]);
  const phases = Object.entries(summary.resources).map(([name, stats]) => `${name} ${(stats.durationMs / 1000).toFixed(2)}`);
  process.stdout.write(`  phases (s): ${phases.join(', ')}\n`);
  return summary;
};
const simCpuBefore = processCpuSeconds(simulator.pid);
const full = await sync('full sync into the mirror');
const simCpu = (processCpuSeconds(simulator.pid) ?? NaN) - (simCpuBefore ?? NaN);
// Two cores hold this process and the simulator: their CPU together bounds the sync from below.
if (!Number.isNaN(simCpu)) process.stdout.write(`  the simulator's CPU meanwhile: ${simCpu.toFixed(2)} s\n`);
const rate = (records: number, ms: number) => `${Math.round(records / (ms / 1000)).toLocaleString('en-US').padStart(9)} records/s`;
const resources = [
  ['gift cards', full.resources.giftCards],
  ['ledger entries', full.resources.giftCardTransactions],
  ['coupons', full.resources.coupons],
  ['DP orders', full.resources.dpOrders],
] as const;
for (const [name, stats] of resources) {
  process.stdout.write(`  ${name.padEnd(16)} ${stats.records.toLocaleString('en-US').padStart(10)} in ${(stats.durationMs / 1000).toFixed(2).padStart(6)} s ${rate(stats.records, stats.durationMs)}   (bare walk ${walkSeconds[name]?.toFixed(2)} s, ${rate(walkCounts[name] ?? 0, (walkSeconds[name] ?? 1) * 1000)})\n`);
}
process.stdout.write(`  the ledger's time includes its index builds after the bulk load: ${((full.resources.giftCardTransactions.notes['indexBuildMs'] ?? 0) / 1000).toFixed(2)} s\n`);
process.stdout.write(`  settle pass ${(full.resources.settle.durationMs / 1000).toFixed(2)} s; whole sync ${(full.durationMs / 1000).toFixed(2)} s = ${(full.durationMs / 1000 / walkTotal).toFixed(2)}x the bare walk (target ≤ 1.5x)\n\n`);

const appliedLine = lineStartingWith('applied');
simulator.stdin.write(`activity ${Math.round((walkCounts['ledger entries'] ?? 0) / 100)}\n`);
const applied = await appliedLine;
process.stdout.write(`simulator: ${applied} operations (1 % of the ledger)\n`);
const incremental = await sync('incremental sync after 1 % new activity');
process.stdout.write(`  ledger: ${incremental.resources.giftCardTransactions.pages} pages, ${incremental.resources.giftCardTransactions.new} new; settle re-read ${incremental.resources.settle.notes['cardsReread']} cards\n`);
process.stdout.write(`  incremental ${(incremental.durationMs / 1000).toFixed(2)} s next to full ${(full.durationMs / 1000).toFixed(2)} s\n`);
process.stdout.write(`peak RSS of the syncing process: ${peakRssMb()} MB (target < 500 MB)\n`);

mirror.close();
rmSync(dir, { recursive: true, force: true });
simulator.stdin.end();
simulator.kill('SIGTERM');
