import { DpClient } from '../api/dp-client.js';
import { GiftCardClient } from '../api/giftcard-client.js';
import type { Page } from '../api/pager.js';
import { Secret } from '../secret.js';
import { startSimulator } from '../sim/simulator.js';

export interface DemoOptions {
  seed: number;
  write?: (text: string) => void;
}

interface Tally {
  read: number;
  rejected: number;
}

/**
 * `npm start`: starts the simulator of both services in-process with every planted break
 * and look-alike, reads every list of both through the real clients over loopback HTTP,
 * and prints what it read. No credentials, no network beyond 127.0.0.1.
 */
export async function demo(options: DemoOptions): Promise<void> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const sim = await startSimulator({ seed: options.seed, plant: true });
  const giftcard = new GiftCardClient({ service: 'giftcard', baseUrl: sim.giftcardUrl, clientId: sim.credentials.giftcard.clientId, clientSecret: new Secret(sim.credentials.giftcard.clientSecret) });
  const dp = new DpClient({ service: 'dp', baseUrl: sim.dpUrl, clientId: sim.credentials.dp.clientId, clientSecret: new Secret(sim.credentials.dp.clientSecret) });
  try {
    write(`ledger-recon demo: simulator (seed ${sim.seed}) on 127.0.0.1 with ${sim.manifest.breaks.length} planted breaks and ${sim.manifest.lookAlikes.length} legal look-alikes\n`);
    const wallets = await dp.getWallets();
    const rows: Array<[string, Tally]> = [
      ['gift cards', await tally(giftcard.listGiftCards())],
      ['gift card ledger entries', await tally(giftcard.listTransactions())],
      ['coupons', await tally(giftcard.listCoupons())],
      ['DP wallets', { read: wallets.wallets.length, rejected: wallets.rejected.length }],
      ['DP products', await tally(dp.listProducts())],
      ['DP orders', await tally(dp.listOrders())],
    ];
    for (const [name, { read, rejected }] of rows) {
      write(`  ${name.padEnd(26)} ${String(read).padStart(7)} read${rejected > 0 ? `, ${rejected} failed validation (would be quarantined)` : ''}\n`);
    }
    write(`  ${'requests'.padEnd(26)} ${String(giftcard.http.stats.requests + dp.http.stats.requests).padStart(7)} GETs, ${giftcard.http.stats.retries + dp.http.stats.retries} retries, ${sim.writeAttempts} writes\n`);
  } finally {
    await Promise.all([giftcard.close(), dp.close()]);
    await sim.close();
  }
}

async function tally<T>(pages: AsyncIterable<Page<T>>): Promise<Tally> {
  const result: Tally = { read: 0, rejected: 0 };
  for await (const page of pages) {
    result.read += page.records.length;
    result.rejected += page.rejected.length;
  }
  return result;
}
