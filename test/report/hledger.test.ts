import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSync } from '../../src/sync/run-sync.js';
import { hasProgram } from '../support/programs.js';
import { startSimulator, type Simulator } from '../../src/sim/simulator.js';
import { checkOf, demoOf, nightOf } from '../support/app.js';
import { journalOf } from '../../src/app/export.js';
import { formatCheckSummary } from '../../src/app/check-lines.js';
import { startServices } from '../support/simulator.js';
import { mirrorAt, openMirrorAt } from '../support/test-db.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-hledger-'));
});
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The liability each currency's roll-forward line of a check states (its closing), in the journal's notation; a currency whose cards hold nothing left out. */
function statedLiabilities(output: string): Map<string, string> {
  const lines = [...output.matchAll(/^liability ([A-Z]{3}): .* = (-?[\d,]+\.\d{2}); /gm)];
  return new Map(
    lines.map((m): [string, string] => [m[1]!, m[2]!.replaceAll(',', '')]).filter(([, closing]) => closing !== '0.00'),
  );
}

/** What hledger says each currency's gift cards hold: `hledger balance giftcards:<currency>`, assertions aside (hledger leaves out a currency that holds nothing). */
function hledgerLiabilities(journal: string): Map<string, string> {
  const balance = spawnSync('hledger', ['-I', '-f', journal, 'balance', '^giftcards:', '--depth', '2', '-N'], {
    encoding: 'utf8',
  });
  expect(balance.status, balance.stderr).toBe(0);
  const rows = [...balance.stdout.matchAll(/^\s*(-?[\d.]+) ([A-Z]{3})\s+giftcards:([A-Z]{3})$/gm)];
  for (const m of rows) expect(m[2]).toBe(m[3]);
  return new Map(rows.map((m) => [m[3]!, m[1]!]));
}

/** Syncs a simulator (after `prepare`) into a mirror, exports it with the CLI, and runs `hledger check` on it. */
async function exportAndCheck(prepare: (sim: Awaited<ReturnType<typeof startServices>>['sim']) => string | undefined) {
  const services = await startServices({ size: 'tiny', seed: 95 });
  const target = prepare(services.sim);
  const db = mirrorAt(dir);
  const mirror = await openMirrorAt(db);
  await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
  await mirror.close();
  await services.close();
  const journal = join(dir, 'ledger.journal');
  const exported = await journalOf(db, { path: journal });
  const check = spawnSync('hledger', ['-f', journal, 'check'], { encoding: 'utf8' });
  return { target, journal, exported, check };
}

describe.runIf(hasProgram('hledger', 'hledger'))('the hledger export', () => {
  it('passes hledger check on a ledger without breaks: every balance assertion holds', async () => {
    const { exported, check, journal } = await exportAndCheck(() => undefined);
    expect(exported.cards).toBeGreaterThan(0);
    expect(exported.entries).toBeGreaterThan(exported.cards);
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    expect(readFileSync(journal, 'utf8')).toMatch(
      /\n {4}giftcards:[A-Z]{3}:[0-9a-f-]{36} {2}-\d+\.\d{2} [A-Z]{3} = \d+\.\d{2} [A-Z]{3}\n/,
    );
  });

  it('fails hledger check on a planted chain gap, naming that card’s account', async () => {
    const { target, check } = await exportAndCheck((sim) => {
      // Remove one debit from the middle of a card's ledger: the next entry's assertion breaks.
      const truth = sim.truth();
      const counts = new Map<string, number>();
      for (const t of truth.transactions) counts.set(t.giftCardId, (counts.get(t.giftCardId) ?? 0) + 1);
      const card = [...counts].find(([, n]) => n >= 3)?.[0];
      const entries = truth.transactions
        .filter((t) => t.giftCardId === card && t.type === 'DEBIT')
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const victim = entries[0];
      if (!victim || !card) throw new Error('no card with three entries');
      sim.mutate.removeEntry(victim.transactionId);
      return card;
    });
    expect(check.status).not.toBe(0);
    expect(check.stderr).toContain(`giftcards:`);
    expect(check.stderr).toContain(target);
    expect(check.stderr).toMatch(/balance assertion/i);
  });

  it('keeps hostile text inert: a reference that tries to forge a transaction or include a file is an escaped comment', async () => {
    const hostile = 'ORDER-1\n2026-01-01 forged\n    assets:cash  5000 EUR\n    equity:forged\ninclude /etc/hostname\n';
    const { check, journal } = await exportAndCheck((sim) => {
      const entry = sim.truth().transactions[0]!;
      sim.mutate.rewriteEntry(entry.transactionId, { referenceId: hostile });
      return entry.transactionId;
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    const text = readFileSync(journal, 'utf8');
    expect(text).toContain(
      '; reference: ORDER-1\\x0a2026-01-01 forged\\x0a    assets:cash  5000 EUR\\x0a    equity:forged\\x0ainclude /etc/hostname\\x0a\n',
    );
    const accounts = spawnSync('hledger', ['-f', journal, 'accounts'], { encoding: 'utf8' });
    expect(accounts.status).toBe(0);
    expect(
      accounts.stdout
        .split('\n')
        .filter(
          (a) =>
            a &&
            !a.startsWith('giftcards:') &&
            !['equity:issued', 'equity:voided', 'income:breakage', 'income:redeemed', 'income:refunded'].includes(a),
        ),
    ).toEqual([]);
  });

  it("states the liability: hledger balance giftcards:<currency> is the check's closing per currency on the demo, planted breaks and all", async () => {
    const db = join(dir, 'demo.db');
    const demo = await demoOf(db, join(dir, 'reports'));
    if (!demo.result.ok) throw new Error('the demo failed');
    const stated = statedLiabilities(formatCheckSummary(demo.result.summary));
    expect([...stated.keys()].sort()).toEqual(['EUR', 'GBP', 'INR', 'USD']);
    const journal = join(dir, 'demo.journal');
    await journalOf(db, { path: journal });
    expect(hledgerLiabilities(journal)).toEqual(stated);
    // Voided and expired balances leave the liability as the roll-forward's voided and expired.
    const text = readFileSync(journal, 'utf8');
    expect(text).toMatch(
      / VOID [^\n]*\n {4}giftcards:[A-Z]{3}:[0-9a-f-]{36} {2}-\d+\.\d{2} [A-Z]{3} = 0\.00 [A-Z]{3}\n {4}equity:voided\n/,
    );
    expect(text).toMatch(
      / EXPIRE [^\n]*\n {4}giftcards:[A-Z]{3}:[0-9a-f-]{36} {2}-\d+\.\d{2} [A-Z]{3} = 0\.00 [A-Z]{3}\n {4}income:breakage\n/,
    );
    // The demo's card of another merchant is no part of it.
    expect(text).toMatch(/\n {4}foreign:[A-Z]{3}:[0-9a-f-]{36} {2}/);
  });

  it("states the liability of a live world at its run's cut-off, and hledger check passes on it", async () => {
    sim = await startSimulator({ size: 'tiny', seed: 96, live: { intervalMs: 2 } });
    const db = mirrorAt(dir);
    const out = join(dir, 'reports');
    for (let night = 1; night <= 2; night += 1) expect((await nightOf(sim, db, out)).result.record.exitCode).toBe(0);
    const check = await checkOf(db);
    expect(check.summary.exitCode).toBe(0);
    const stated = statedLiabilities(formatCheckSummary(check.summary));
    expect(stated.size).toBeGreaterThan(0);
    // The world moves on; the journal stays at the check run's cut-off.
    sim.applyActivity(20);
    const journal = join(dir, 'live.journal');
    await journalOf(db, { path: journal });
    const hledgerCheck = spawnSync('hledger', ['-f', journal, 'check'], { encoding: 'utf8' });
    expect(hledgerCheck.stderr).toBe('');
    expect(hledgerCheck.status).toBe(0);
    expect(hledgerLiabilities(journal)).toEqual(stated);
  });
});
