import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/db/sqlite/lock.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { runCli, simulatorEnv } from '../support/cli.js';
import { failureOfJob, syncOf } from '../support/app.js';
import { dpConfig, giftcardConfig } from '../support/simulator.js';
import { mirrorAt, numberOfMirror, ON_POSTGRES, rowsOfMirror } from '../support/test-db.js';

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ seed: 51, size: 'tiny', plant: true });
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-cli-sync-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A port on 127.0.0.1 that nothing listens on: connecting to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('ledger-recon sync', () => {
  it('prints one JSON summary with counts per resource, and exits 0', async () => {
    const outcome = await syncOf(sim, mirrorAt(dir, 'json'));
    if (!outcome.ok) throw outcome.error;
    const { summary } = outcome;
    expect(summary).toMatchObject({ completed: true, mode: 'full', quarantined: 2 });
    expect(summary.resources['giftCardTransactions']?.records).toBe(sim.truth().transactions.length);
    expect(Object.keys(summary.resources)).toEqual([
      'giftCards',
      'giftCardTransactions',
      'settle',
      'coupons',
      'dpWallets',
      'dpProducts',
      'dpOrders',
    ]);
  });

  it('prints one summary line per resource without a terminal, then a closing line; nothing with --quiet', async () => {
    const { status, stderr } = await runCli(['sync', '--db', mirrorAt(dir, 'lines')], simulatorEnv(sim));
    expect(status).toBe(0);
    const lines = stderr.trim().split('\n');
    // In the order the walks finish: they run at the same time.
    expect(
      lines
        .slice(0, -1)
        .map((line) => line.slice(0, 15).trim())
        .sort(),
    ).toEqual(['DP orders', 'DP products', 'DP wallets', 'coupons', 'gift cards', 'ledger entries', 'settle pass']);
    expect(lines.at(-1)).toMatch(
      /^sync 1 \(full\) completed in \d+\.\d s: [\d,]+ records read, [\d,]+ new, 0 changed, \d+ quarantined, \d+ retr(y|ies)$/,
    );
    const quiet = await runCli(['sync', '--db', mirrorAt(dir, 'lines'), '--quiet'], simulatorEnv(sim));
    expect([quiet.status, quiet.stdout, quiet.stderr]).toEqual([0, '', '']);
  });

  it('exits 2 with one line naming the service and the cause when credentials are refused, keeping what was committed', async () => {
    const db = mirrorAt(dir, 'refused');
    const rotated = { ...sim.credentials.dp, clientSecret: 'rotated-secret-value' };
    const config = { giftcard: giftcardConfig(sim), dp: dpConfig(sim, rotated) };
    const refused = await syncOf(sim, db, { config });
    const failure = await failureOfJob(async () => refused);
    expect(failure).toMatchObject({
      exitCode: 2,
      line: 'ledger-recon: the delivery partner service refused the credentials (UNAUTHORIZED): check DP_CLIENT_ID and DP_CLIENT_SECRET; the secret may have been rotated',
    });
    // What --json prints of the sync that failed: its record in the mirror.
    if (refused.ok) throw new Error('the sync did not fail');
    expect(JSON.parse(refused.failedRecord ?? '{}')).toMatchObject({ completed: false });
    expect(`${refused.failedRecord}${failure.line}`).not.toContain('rotated-secret-value');
    // The gift card side was mirrored before the DP service refused us, and stays.
    const again = await syncOf(sim, db);
    expect(again).toMatchObject({ ok: true, summary: { completed: true, mode: 'full' } });
  });

  it('exits 2 with one line naming the service and the cause when it is unreachable after its retries, keeping what was committed', async () => {
    const db = mirrorAt(dir, 'unreachable');
    const port = await closedPort();
    const env = { ...simulatorEnv(sim), DP_API_URL: `http://127.0.0.1:${port}` };
    const { status, stdout, stderr } = await runCli(['sync', '--db', db, '--json'], env);
    expect(status).toBe(2);
    // Whichever DP walk (they run at the same time) gives up first names its request.
    expect(stderr).toMatch(
      new RegExp(
        `^ledger-recon: the delivery partner service is unavailable at 127\\.0\\.0\\.1:${port}: connection refused \\(ECONNREFUSED\\) \\(GET /v1/\\S+, 7 attempts\\); ` +
          `nothing listens on port ${port} of 127\\.0\\.0\\.1: is the service running there\\? check DP_API_URL \\(or --dp-url\\)\n$`,
      ),
    );
    expect(JSON.parse(stdout)).toMatchObject({
      completed: false,
      resources: { giftCardTransactions: { records: sim.truth().transactions.length } },
    });
    expect(await numberOfMirror(db, 'SELECT COUNT(*) FROM gift_card_transactions')).toBe(
      sim.truth().transactions.length,
    );
    expect(await rowsOfMirror(db, 'SELECT status FROM sync_runs')).toEqual([{ status: 'failed' }]);
  });

  // SQLite's lock file; PostgreSQL's advisory lock is test/db/pg-mirror.test.ts's and test/cli/postgres.test.ts's.
  it.skipIf(ON_POSTGRES)('lets one sync at a time hold a mirror: a second exits 2 naming the holder', async () => {
    // Every answer 500 ms late: the first sync still holds the mirror when the second, started after it, asks (a loaded machine takes a second or more to start one).
    const slow = await startSimulator({ seed: 52, size: 'tiny', faults: { rate: 1, kinds: ['slow'], slowMs: 500 } });
    const db = join(dir, 'locked', 'locked.db');
    try {
      const first = runCli(['sync', '--db', db], simulatorEnv(slow));
      for (let i = 0; i < 100 && !existsSync(`${db}.lock`); i += 1) await new Promise((r) => setTimeout(r, 20));
      const holder = JSON.parse(readFileSync(`${db}.lock`, 'utf8')) as { pid: number; startedAt: string };
      const second = await runCli(['sync', '--db', db], simulatorEnv(slow));
      expect(second.status).toBe(2);
      expect(second.stderr).toBe(
        `ledger-recon: another ledger-recon sync holds the mirror ${db} (process ${holder.pid}, started ${holder.startedAt}); wait for it to finish\n`,
      );
      expect((await first).status).toBe(0);
      expect(existsSync(`${db}.lock`)).toBe(false);
    } finally {
      await slow.close();
    }
  });

  it.skipIf(ON_POSTGRES)(
    'leaves a held mirror untouched: the second process takes the lock before it opens the mirror',
    async () => {
      // Opening first would migrate the mirror, or build a bulk load's indexes under the holder.
      // A file that is no database makes any such touch fail loudly instead of naming the holder.
      const db = join(dir, 'held', 'held.db');
      mkdirSync(join(dir, 'held'));
      // SQLite's header (so it passes for a mirror), then what no SQLite can read.
      writeFileSync(db, `SQLite format 3\0${'not a database: whoever opens it fails'.repeat(4)}`);
      const lock = acquireLock(db, 'sync');
      try {
        for (const command of ['sync', 'check', 'run']) {
          const { status, stderr } = await runCli([command, '--db', db], simulatorEnv(sim));
          expect(status).toBe(2);
          expect(stderr).toBe(
            `ledger-recon: another ledger-recon sync holds the mirror ${db} (process ${process.pid}, started ${lock.holder.startedAt}); wait for it to finish\n`,
          );
        }
      } finally {
        lock.release();
      }
      expect(readFileSync(db, 'utf8')).toBe(`SQLite format 3\0${'not a database: whoever opens it fails'.repeat(4)}`);
    },
  );
});
