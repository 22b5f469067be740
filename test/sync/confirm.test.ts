import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/checks/run-checks.js';
import { openMirror } from '../../src/db/mirror.js';
import { confirmGiftCardBreaks, type ConfirmStats } from '../../src/sync/confirm.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices } from '../support/simulator.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-confirm-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the confirmation pass', () => {
  it('keeps a break that reproduces and turns one that does not into GC_IN_FLIGHT', async () => {
    const services = await startServices({ size: 'tiny', seed: 97, plant: true });
    const mirror = openMirror(join(dir, 'ledger.db'));
    try {
      await runSync({ mirror, giftcard: services.giftcard, dp: services.dp });
      const breaks = services.sim.manifest.breaks;
      const altered = breaks.find((b) => b.scenario === 'remaining balance altered')!.entityId;
      const gap = breaks.find((b) => b.code === 'GC_CHAIN_GAP')!;
      // After the sync read it, the service corrects the altered card: that break no longer reproduces.
      services.sim.mutate.setCard(altered, { remainingBalance: 50 });
      const stats: ConfirmStats = { cards: 0, entries: 0, moved: 0 };
      const { findings, summary } = await runChecks({ mirror, confirm: (found) => confirmGiftCardBreaks(mirror.sqlite, services.giftcard, found, 4, stats) });
      expect(findings.filter((f) => f.giftCardId === altered).map((f) => [f.code, f.severity])).toEqual([['GC_IN_FLIGHT', 'info']]);
      expect(findings.find((f) => f.code === 'GC_IN_FLIGHT')?.message).toMatch(/moved while its break was being confirmed \(re-read to confirm: the card reads version/);
      expect(findings.map((f) => [f.code, f.entityId])).toContainEqual(['GC_CHAIN_GAP', gap.entityId]);
      expect(stats.moved).toBe(1);
      expect(stats.cards).toBeGreaterThanOrEqual(10);
      expect(stats.entries).toBeGreaterThan(stats.cards);
      expect(mirror.sqlite.prepare('SELECT gift_card_id FROM gift_cards_in_flight WHERE sync_run_id = 1').pluck().all()).toEqual([altered]);
      expect(summary.bySeverity.info).toBe(1);
      // Reads only: the service saw no write.
      expect(services.sim.writeAttempts).toBe(0);
    } finally {
      mirror.close();
      await services.close();
    }
  });
});
