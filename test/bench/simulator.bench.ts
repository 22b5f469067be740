/**
 * The simulator at its largest preset (over 1,000,000 ledger entries): generation time,
 * memory, and how fast our client walks the whole ledger over loopback HTTP at 100 a page.
 */
import { GiftCardClient } from '../../src/api/giftcard-client.js';
import { Secret } from '../../src/secret.js';
import { startSimulator } from '../../src/sim/simulator.js';
import { timed } from './measure.js';

const sim = await timed('generate the "large" world', () => startSimulator({ seed: 1, size: 'large' }));
const entries = sim.truth().transactions.length;
process.stdout.write(`ledger entries: ${entries.toLocaleString('en-US')}\n`);

const client = new GiftCardClient({
  service: 'giftcard',
  baseUrl: sim.giftcardUrl,
  clientId: sim.credentials.giftcard.clientId,
  clientSecret: new Secret(sim.credentials.giftcard.clientSecret),
});
let walked = 0;
const started = performance.now();
await timed('walk the whole ledger at 100 a page', async () => {
  for await (const page of client.listTransactions({ limit: 100 })) walked += page.records.length;
});
const rate = walked / ((performance.now() - started) / 1000);
process.stdout.write(
  `walked ${walked.toLocaleString('en-US')} entries in ${client.http.stats.requests.toLocaleString('en-US')} requests: ${Math.round(rate).toLocaleString('en-US')} entries/s\n`,
);
await client.close();
await sim.close();
if (walked !== entries) throw new Error(`walked ${walked} of ${entries} entries`);
