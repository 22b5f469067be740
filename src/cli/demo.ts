import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator } from '../sim/simulator.js';
import { run } from './run.js';

export interface DemoOptions {
  seed: number;
  /** Where the demo's mirror and reports go (default data/demo and reports/demo). */
  db?: string;
  out?: string;
  write?: (text: string) => void;
}

/**
 * `npm start`: starts the simulator of both services in-process with every planted break and
 * legal look-alike, runs the nightly job against it over loopback HTTP (a fresh mirror each
 * time), and prints the verdict, a short summary and the workbook's path. No credentials, no
 * network beyond 127.0.0.1. Exits 0 when the job ran, whatever it found.
 */
export async function demo(options: DemoOptions): Promise<void> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  const db = options.db ?? join('data', 'demo', 'ledger.db');
  for (const suffix of ['', '-wal', '-shm', '.lock', '.lock.sqlite']) rmSync(`${db}${suffix}`, { force: true });
  mkdirSync(join(db, '..'), { recursive: true });
  const sim = await startSimulator({ seed: options.seed, plant: true });
  try {
    write(`ledger-recon demo: simulators of both services on 127.0.0.1 (seed ${sim.seed}) with ${sim.manifest.breaks.length} planted breaks and ${sim.manifest.lookAlikes.length} legal look-alikes\n`);
    write(`running the nightly job: ledger-recon run --db ${db} --out ${options.out ?? join('reports', 'demo')}\n\n`);
    const env = {
      ...process.env,
      GIFTCARD_API_URL: sim.giftcardUrl,
      GIFTCARD_CLIENT_ID: sim.credentials.giftcard.clientId,
      GIFTCARD_CLIENT_SECRET: sim.credentials.giftcard.clientSecret,
      DP_API_URL: sim.dpUrl,
      DP_CLIENT_ID: sim.credentials.dp.clientId,
      DP_CLIENT_SECRET: sim.credentials.dp.clientSecret,
    };
    const summary = await run({ db, out: options.out ?? join('reports', 'demo'), env, verbose: true, write });
    write(`\n${sim.manifest.breaks.length} breaks were planted; the check found ${summary.bySeverity.error + summary.bySeverity.warning} errors and warnings. Open the workbook above in Excel or LibreOffice.\n`);
    // The demo succeeded in showing the breaks: its own exit code is 0.
    process.exitCode = 0;
  } finally {
    await sim.close();
  }
}
