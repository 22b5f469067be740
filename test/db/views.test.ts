/**
 * The views stay for SQL users, and every view that states a balance gives the figures of the
 * ledger stage on the same mirror: random simulated worlds (quiet or with planted breaks) synced
 * over real HTTP into a real mirror of the backend under test, read through the views as an
 * investigator reads them.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { byReference, refundableLeftCents } from '../../src/ledger/references.js';
import { cardReconciliation } from '../../src/ledger/state.js';
import { walkCardLedgers } from '../../src/ledger/walk.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices } from '../support/simulator.js';
import { BACKEND_NAME, mirrorAt, openMirrorAt, rowsOfMirror } from '../support/test-db.js';
import { runs } from '../support/property.js';
import { testNow } from '../support/test-clock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-views-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A figure as the view gives it: PostgreSQL hands sums and counts back as text. */
const figure = (value: unknown): number | null => (value === null ? null : Number(value));

/** What the views say about one card and its references. */
interface ViewFigures {
  reconciliation: Map<string, (number | null)[]>;
  lastRunning: Map<string, number | null>;
  references: Map<string, (number | null)[]>;
}

async function viewsOf(db: string): Promise<ViewFigures> {
  const reconciliation = await rowsOfMirror<Record<string, unknown>>(
    db,
    'SELECT gift_card_id, debits_cents, refunds_cents, recomputed_cents, reported_cents, difference_cents, entries FROM card_reconciliation',
  );
  const last = await rowsOfMirror<Record<string, unknown>>(
    db,
    `SELECT gift_card_id, running_balance_cents FROM (
       SELECT gift_card_id, running_balance_cents, ROW_NUMBER() OVER (PARTITION BY gift_card_id ORDER BY created_at_ms DESC, list_order DESC) AS n FROM card_ledger) last
     WHERE n = 1`,
  );
  const references = await rowsOfMirror<Record<string, unknown>>(
    db,
    'SELECT gift_card_id, reference_id, debits, debited_cents, refunds, refunded_cents, refundable_left_cents FROM refunds_by_reference',
  );
  return {
    reconciliation: new Map(
      reconciliation.map((r) => [
        String(r['gift_card_id']),
        ['debits_cents', 'refunds_cents', 'recomputed_cents', 'reported_cents', 'difference_cents', 'entries'].map(
          (column) => figure(r[column]),
        ),
      ]),
    ),
    lastRunning: new Map(last.map((r) => [String(r['gift_card_id']), figure(r['running_balance_cents'])])),
    references: new Map(
      references.map((r) => [
        `${String(r['gift_card_id'])} ${String(r['reference_id'])}`,
        ['debits', 'debited_cents', 'refunds', 'refunded_cents', 'refundable_left_cents'].map((column) =>
          figure(r[column]),
        ),
      ]),
    ),
  };
}

describe(`the views for SQL users (${BACKEND_NAME})`, () => {
  it('state every balance as the ledger stage does, on random worlds quiet or broken (property)', async () => {
    let world = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000 }), fc.boolean(), async (seed, plant) => {
        world += 1;
        const services = await startServices({ size: 'tiny', seed, plant });
        const db = mirrorAt(dir, `world${world}`);
        const mirror = await openMirrorAt(db);
        try {
          await runSync({ clock: { now: testNow }, mirror, giftcard: services.giftcard, dp: services.dp });
          const views = await viewsOf(db);
          let cards = 0;
          let references = 0;
          for await (const batch of walkCardLedgers(mirror))
            for (const { card, entries } of batch) {
              cards += 1;
              const stage = cardReconciliation(card, entries);
              // An amount off the cent: the stage leaves the figures unknown, SQL sums what it has.
              if (stage.recomputedCents !== null)
                expect(views.reconciliation.get(card.giftCardId), card.giftCardId).toEqual([
                  stage.debitedCents,
                  stage.refundedCents,
                  stage.recomputedCents,
                  card.remainingCents,
                  stage.differenceCents,
                  stage.entries,
                ]);
              if (entries.length > 0 && stage.recomputedCents !== null)
                expect(views.lastRunning.get(card.giftCardId), card.giftCardId).toBe(stage.recomputedCents);
              for (const [reference, group] of byReference(entries)) {
                if (group.debitedCents === null || group.refundedCents === null) continue;
                references += 1;
                expect(views.references.get(`${card.giftCardId} ${reference}`), reference).toEqual([
                  group.debits.length,
                  group.debitedCents,
                  group.refunds.length,
                  group.refundedCents,
                  refundableLeftCents(group),
                ]);
              }
            }
          expect(cards).toBe(views.reconciliation.size);
          expect(references).toBeGreaterThan(0);
        } finally {
          await mirror.close();
          await services.close();
        }
      }),
      runs(6),
    );
  });
});
