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
import { nightOf } from '../support/app.js';
import { queryMirror } from '../../src/app/sql.js';
import { postgresMissing, startPostgres, type TestServer } from '../support/postgres.js';

const DOCS = new URL('../../docs/operations.md', import.meta.url);

/** The SQL block under a heading of docs/operations.md, as a reader copies it. */
function documentedSql(heading: string): string {
  const text = readFileSync(DOCS, 'utf8');
  const section = text.slice(text.indexOf(heading));
  const block = /```sql\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error(`docs/operations.md has no SQL block under ${heading}`);
  return block[1]!;
}
const documentedQuery = (): string => documentedSql('**A cross-merchant view for the finance team.**');

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
      const { result } = await nightOf(sim, `${server.url}?schema=${merchant}`, join(dir, merchant));
      expect(result.record.exitCode).toBe(1);
      nights.set(merchant, result.record as unknown as NightJson);
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

  it("gives each merchant a role of its own, and analysts a read-only one, as the document's blocks say", async () => {
    server = await startPostgres();
    // The document's database is recon.
    const bootstrap = new pg.Client({ connectionString: server.url });
    await bootstrap.connect();
    await bootstrap.query('CREATE DATABASE recon');
    await bootstrap.end();
    const recon = server.url.replace(/\/postgres$/, '/recon');
    const admin = new pg.Client({ connectionString: recon });
    await admin.connect();
    try {
      await admin.query(documentedSql('**`?schema=` is not an isolation boundary.**'));
      const sim = await startSimulator({ size: 'tiny', seed: 43 });
      sims.push(sim);
      const asOwner = recon.replace('postgres://postgres@', 'postgres://recon_merchant_a@');
      const night = await nightOf(sim, `${asOwner}?schema=merchant_a`, join(dir, 'a'));
      expect(night.notes).toEqual([]);
      expect(night.result.record.exitCode).toBe(0);
      await admin.query(documentedSql('**Analysts read, never write.**'));
    } finally {
      await admin.end();
    }
    const asAlice = recon.replace('postgres://postgres@', 'postgres://alice@');
    const read = await queryMirror('SELECT COUNT(*) AS cards FROM gift_cards', {
      db: `${asAlice}?schema=merchant_a`,
      format: 'csv',
    });
    expect(read.text).toMatch(/^"cards"\r?\n[1-9]\d*\r?\n$/);
    const alice = new pg.Client({ connectionString: asAlice });
    await alice.connect();
    try {
      await expect(alice.query('UPDATE merchant_a.gift_cards SET remaining_balance_cents = 0')).rejects.toThrow(
        /read-only transaction|permission denied/,
      );
      await expect(alice.query('CREATE TABLE merchant_a.mine (x int)')).rejects.toThrow(
        /read-only transaction|permission denied/,
      );
    } finally {
      await alice.end();
    }
  });
});
