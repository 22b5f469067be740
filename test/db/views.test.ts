/**
 * The views stay for SQL users, and give the figures the ledger-state core gives on the same
 * mirror: a planted world synced over real HTTP into a real SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkCardLedgers } from '../../src/ledger/walk.js';
import { cardReconciliation } from '../../src/ledger/state.js';
import { openMirror, type SqliteMirror as Mirror } from '../../src/db/mirror.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices, type TestServices } from '../support/simulator.js';

let dir: string;
let services: TestServices;
let mirror: Mirror;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-views-'));
  services = await startServices({ size: 'small', seed: 61, plant: true });
  mirror = openMirror(join(dir, 'ledger.db'));
  await runSync({ mirror, giftcard: services.giftcard, dp: services.dp });
});
afterAll(async () => {
  mirror.close();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

interface ViewRow {
  gift_card_id: string;
  debits_cents: number;
  refunds_cents: number;
  recomputed_cents: number | null;
  reported_cents: number | null;
  difference_cents: number | null;
  entries: number;
}

describe('the views for SQL users', () => {
  it('card_reconciliation gives every card the figures of the core', async () => {
    const view = new Map(
      (
        mirror.sqlite
          .prepare(
            'SELECT gift_card_id, debits_cents, refunds_cents, recomputed_cents, reported_cents, difference_cents, entries FROM card_reconciliation',
          )
          .all() as ViewRow[]
      ).map((r) => [r.gift_card_id, r]),
    );
    let compared = 0;
    for await (const batch of walkCardLedgers(mirror))
      for (const { card, entries } of batch) {
        const core = cardReconciliation(card, entries);
        const row = view.get(card.giftCardId);
        expect(row, card.giftCardId).toBeDefined();
        expect(row!.entries).toBe(core.entries);
        // An amount off the cent: the core leaves the figures unknown, SQL sums what it has.
        if (core.recomputedCents === null) continue;
        expect(
          [row!.debits_cents, row!.refunds_cents, row!.recomputed_cents, row!.difference_cents],
          card.giftCardId,
        ).toEqual([core.debitedCents, core.refundedCents, core.recomputedCents, core.differenceCents]);
        compared += 1;
      }
    expect(compared).toBeGreaterThan(100);
  });

  it('card_ledger ends each card at the balance the core recomputes', async () => {
    const last = mirror.sqlite
      .prepare(
        `SELECT gift_card_id, running_balance_cents FROM (
         SELECT gift_card_id, running_balance_cents, ROW_NUMBER() OVER (PARTITION BY gift_card_id ORDER BY created_at_ms DESC, list_order DESC) AS n FROM card_ledger)
       WHERE n = 1`,
      )
      .all() as { gift_card_id: string; running_balance_cents: number | null }[];
    const byCard = new Map(last.map((r) => [r.gift_card_id, r.running_balance_cents]));
    let compared = 0;
    for await (const batch of walkCardLedgers(mirror))
      for (const { card, entries } of batch) {
        const core = cardReconciliation(card, entries);
        if (entries.length === 0 || core.recomputedCents === null) continue;
        expect(byCard.get(card.giftCardId), card.giftCardId).toBe(core.recomputedCents);
        compared += 1;
      }
    expect(compared).toBeGreaterThan(100);
  });
});
