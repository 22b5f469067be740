import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSync } from '../../src/sync/run-sync.js';
import { cleanEnv, runCli } from '../support/cli.js';
import { hasProgram } from '../support/programs.js';
import { startServices } from '../support/simulator.js';
import { mirrorAt, openMirrorAt } from '../support/test-db.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-hledger-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Syncs a simulator (after `prepare`) into a mirror, exports it with the CLI, and runs `hledger check` on it. */
async function exportAndCheck(prepare: (sim: Awaited<ReturnType<typeof startServices>>['sim']) => string | undefined) {
  const services = await startServices({ size: 'tiny', seed: 95 });
  const target = prepare(services.sim);
  const db = mirrorAt(dir);
  const mirror = await openMirrorAt(db);
  await runSync({ mirror, giftcard: services.giftcard, dp: services.dp });
  await mirror.close();
  await services.close();
  const journal = join(dir, 'ledger.journal');
  const exported = await runCli(['export', 'hledger', '--db', db, '--out', journal], cleanEnv());
  expect(exported.status, exported.stderr).toBe(0);
  const check = spawnSync('hledger', ['-f', journal, 'check'], { encoding: 'utf8' });
  return { target, journal, exported, check };
}

describe.runIf(hasProgram('hledger', 'hledger'))('the hledger export', () => {
  it('passes hledger check on a ledger without breaks: every balance assertion holds', async () => {
    const { exported, check, journal } = await exportAndCheck(() => undefined);
    expect(exported.stdout).toMatch(
      /^wrote .*ledger\.journal: \d+ cards, \d+ ledger entries; check it with: hledger -f .* check\n$/,
    );
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
            !['equity:issued', 'equity:closed', 'income:redeemed', 'income:refunded'].includes(a),
        ),
    ).toEqual([]);
  });
});
