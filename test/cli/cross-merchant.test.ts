/**
 * docs/operations.md's cross-merchant query, as written there, on a PostgreSQL server of its own
 * with two merchants' mirrors: it states each merchant's verdict, findings per severity and
 * money at stake per currency exactly as that merchant's night (its Summary and JSON) states them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { runCli, simulatorEnv } from '../support/cli.js';
import { postgresMissing, startPostgres, type TestServer } from '../support/postgres.js';

const DOCS = new URL('../../docs/operations.md', import.meta.url);

/** The SQL block under "A cross-merchant view for the finance team", as a reader copies it. */
function documentedQuery(): string {
  const text = readFileSync(DOCS, 'utf8');
  const section = text.slice(text.indexOf('**A cross-merchant view for the finance team.**'));
  const block = /```sql\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/operations.md has no cross-merchant SQL block');
  return block[1]!;
}

interface NightJson {
  verdict: string;
  bySeverity: { error: number; warning: number; info: number };
  moneyAtStake: Record<string, string>;
}

let dir: string;
let server: TestServer | undefined;
const sims: Simulator[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-cross-'));
});
afterEach(async () => {
  for (const sim of sims.splice(0)) await sim.close();
  server?.stop();
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(postgresMissing() !== undefined)('the cross-merchant query of docs/operations.md', () => {
  it("states every merchant's night as its Summary does: verdict, findings per severity, money at stake per currency", async () => {
    server = await startPostgres();
    const nights = new Map<string, NightJson>();
    for (const [merchant, seed] of [
      ['merchant_a', 41],
      ['merchant_b', 42],
    ] as const) {
      const sim = await startSimulator({ size: 'tiny', seed, plant: true });
      sims.push(sim);
      const run = await runCli(
        ['run', '--json', '--db', `${server.url}?schema=${merchant}`, '--out', join(dir, merchant)],
        simulatorEnv(sim),
      );
      expect(run.status, run.stderr).toBe(1);
      nights.set(merchant, JSON.parse(run.stdout) as NightJson);
    }
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const results = (await client.query(documentedQuery())) as unknown as pg.QueryResult[];
      const [, perNight, atStake] = results;
      expect(perNight!.rows).toEqual(
        [...nights].map(([merchant, night]) => ({
          merchant,
          verdict: night.verdict,
          as_of: expect.any(String),
          errors: night.bySeverity.error,
          warnings: night.bySeverity.warning,
          infos: night.bySeverity.info,
        })),
      );
      const stated = [...nights].flatMap(([merchant, night]) =>
        Object.entries(night.moneyAtStake)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([currency, amount]) => ({ merchant, currency, at_stake: amount })),
      );
      expect(stated.length).toBeGreaterThan(0);
      expect(atStake!.rows).toEqual(stated);
    } finally {
      await client.end();
    }
  });
});
