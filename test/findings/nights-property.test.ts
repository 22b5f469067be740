/**
 * A fast-check property over random sequences of nights against the simulator over HTTP: the
 * sync, the checks, the confirmation pass, the report and its seal, night after night, with
 * breaks planted, repaired and accepted between nights; at the end, every past night re-performs
 * from the mirror's history. Real SQLite files (or PostgreSQL schemas), real report files.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExportedFinding } from '../../src/findings/finding.js';
import { reconcile } from '../../src/findings/reconcile.js';
import { findingsStore } from '../../src/findings/store.js';
import { writeReport } from '../../src/report/write-report.js';
import { reperformRun } from '../../src/evidence/reperform.js';
import { withListsAsOf } from '../../src/app/verify.js';
import { sealRun } from '../../src/evidence/write.js';
import { rereadGiftCards } from '../../src/sync/confirm.js';
import { runSync } from '../../src/sync/run-sync.js';
import { startServices } from '../support/simulator.js';
import { mirrorAt, openMirrorAt } from '../support/test-db.js';
import { runs } from '../support/property.js';
import { acceptAt } from '../support/app.js';
import { testNow } from '../support/test-clock.js';

interface Plan {
  alter: boolean;
  repair: boolean;
  drift: boolean;
  regress: boolean;
  remove: boolean;
  full: boolean;
  accept: boolean;
}

interface Planted {
  code: 'GC_BALANCE_MISMATCH' | 'DP_WALLET_DRIFT' | 'CV_COUNTER_REGRESSED' | 'GC_LEDGER_REWRITTEN';
  entityId: string;
  /** The night it was planted on; a removed entry shows from the first --full from then on. */
  night: number;
  seenFrom?: number;
  repairedOn?: number;
  acceptedFrom?: number;
  fingerprint?: string;
  undo?: () => void;
}

const QUIET: Plan = {
  alter: false,
  repair: false,
  drift: false,
  regress: false,
  remove: false,
  full: false,
  accept: false,
};

const planArb = fc.record({
  alter: fc.boolean(),
  repair: fc.boolean(),
  drift: fc.boolean(),
  regress: fc.boolean(),
  remove: fc.boolean(),
  full: fc.boolean(),
  accept: fc.boolean(),
});

describe('a property over random sequences of nights, end to end', () => {
  it('reports each break every night from its first until repaired or accepted, resolves a repaired one exactly once, and counts the rows of its files', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(planArb, { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 1, max: 1_000 }),
        async (plans, seed) => {
          const dir = mkdtempSync(join(tmpdir(), 'ledger-recon-nights-property-'));
          const services = await startServices({ size: 'tiny', seed });
          const mirror = await openMirrorAt(mirrorAt(dir));
          try {
            const truth = services.sim.truth();
            const ours = truth.giftCards.filter((c) => c.merchantId === truth.merchantId && c.status === 'ACTIVE');
            const entriesOf = (card: string) =>
              truth.transactions
                .filter((t) => t.giftCardId === card)
                .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
            const newestMs = Math.max(...truth.transactions.map((t) => Date.parse(t.createdAt)));
            const removable = ours.filter(
              (c) =>
                entriesOf(c.giftCardId).length >= 2 &&
                Date.parse(entriesOf(c.giftCardId)[0]!.createdAt) < newestMs - 2 * 86_400_000,
            );
            const alterable = ours.filter((c) => !removable.includes(c));
            const wallets = truth.wallets.map((w) => w.walletID);
            const coupons = truth.coupons.filter(
              (c) =>
                c.merchantId === truth.merchantId &&
                typeof c.redemptionCount === 'number' &&
                c.redemptionCount > 0 &&
                c.status === 'ACTIVE' &&
                c.usageLimitTotal === 0,
            );
            const planted: Planted[] = [];
            const fullNights: number[] = [];
            const nights: number[] = [];

            for (const [n, plan] of plans.entries()) {
              // ---- the world changes ------------------------------------------------------------
              const alteredOpen = planted.filter(
                (p) => p.code === 'GC_BALANCE_MISMATCH' && p.repairedOn === undefined && p.night < n,
              );
              if (plan.repair && alteredOpen[0]) {
                alteredOpen[0].undo!();
                alteredOpen[0].repairedOn = n;
              }
              const card = alterable.shift();
              if (plan.alter && card) {
                // Cents on the wire as the service writes them: 5.00 more than the ledger explains.
                services.sim.mutate.setCard(card.giftCardId, {
                  remainingBalance: (Math.round(card.remainingBalance * 100) + 500) / 100,
                });
                planted.push({
                  code: 'GC_BALANCE_MISMATCH',
                  entityId: card.giftCardId,
                  night: n,
                  seenFrom: n,
                  undo: () => services.sim.mutate.setCard(card.giftCardId, { remainingBalance: card.remainingBalance }),
                });
              }
              const wallet = wallets.shift();
              if (plan.drift && wallet && n > 0) {
                services.sim.mutate.moveWallet(wallet, -(100 + n));
                planted.push({ code: 'DP_WALLET_DRIFT', entityId: wallet, night: n, seenFrom: n });
              }
              const coupon = coupons.shift();
              if (plan.regress && coupon && n > 0) {
                services.sim.mutate.setCoupon(coupon.couponId, { redemptionCount: coupon.redemptionCount - 1 });
                planted.push({ code: 'CV_COUNTER_REGRESSED', entityId: coupon.couponId, night: n, seenFrom: n });
              }
              const removed = removable.shift();
              if (plan.remove && removed && n > 0) {
                const entry = entriesOf(removed.giftCardId)[0]!.transactionId;
                services.sim.mutate.removeEntry(entry);
                planted.push({ code: 'GC_LEDGER_REWRITTEN', entityId: entry, night: n });
              }
              if (plan.full) fullNights.push(n);
              for (const p of planted) if (p.seenFrom === undefined && plan.full) p.seenFrom = n;

              // ---- the night ----------------------------------------------------------------------
              await runSync({
                clock: { now: testNow },
                mirror,
                giftcard: services.giftcard,
                dp: services.dp,
                full: plan.full,
              });
              const { summary } = await reconcile({
                nowMs: testNow(),
                mirror,
                confirm: (request) => rereadGiftCards(mirror, services.giftcard, request, 4),
              });
              const report = await writeReport({
                mirror,
                outDir: join(dir, 'reports'),
                checkRunId: summary.checkRunId,
              });
              await sealRun(mirror, summary.checkRunId, report, { nowMs: testNow() });
              nights.push(summary.checkRunId);
              const findings = JSON.parse(readFileSync(report.json, 'utf8')) as ExportedFinding[];
              const csvRows = readFileSync(report.csv, 'utf8').trimEnd().split('\r\n').length - 1;

              // ---- what it must show ------------------------------------------------------------
              for (const p of planted) {
                const found = findings.find((f) => f.code === p.code && f.entityId === p.entityId);
                const shouldShow =
                  p.seenFrom !== undefined && p.seenFrom <= n && (p.repairedOn === undefined || p.repairedOn > n);
                expect(found !== undefined, `${p.code} ${p.entityId} planted on night ${p.night}, night ${n}`).toBe(
                  shouldShow,
                );
                if (!found) continue;
                p.fingerprint ??= found.fingerprint;
                expect(found.fingerprint).toBe(p.fingerprint);
                expect(found.severity).not.toBe('info');
                expect(found.state).toBe(
                  p.acceptedFrom !== undefined && p.acceptedFrom <= n ? 'accepted' : p.seenFrom === n ? 'new' : 'open',
                );
              }
              const resolved = await findingsStore(mirror).history.resolvedOf(summary.checkRunId);
              for (const p of planted.filter((q) => q.repairedOn === n && q.fingerprint !== undefined))
                expect(
                  resolved.filter((r) => r.fingerprint === p.fingerprint),
                  `${p.code} resolved`,
                ).toHaveLength(1);
              expect(summary.new + summary.open + summary.accepted).toBe(summary.findings);
              expect(findings).toHaveLength(summary.findings);
              expect(csvRows).toBe(summary.findings);

              // ---- a person accepts an event break -------------------------------------------------
              const event = planted.find(
                (p) => p.code !== 'GC_BALANCE_MISMATCH' && p.fingerprint !== undefined && p.acceptedFrom === undefined,
              );
              if (plan.accept && event) {
                await acceptAt(mirrorAt(dir), { fingerprint: event.fingerprint!, note: 'explained', by: 'property' });
                event.acceptedFrom = n + 1;
              }
            }
            // Every past night re-performs (its ledger population, roll-forward and month to date)
            // from the mirror's history, after the nights, repairs, --full passes and acceptances since.
            for (const night of nights)
              expect(
                (await withListsAsOf(mirror, (listsAt) => reperformRun(mirror, night, listsAt))).differences,
                `night ${night}`,
              ).toEqual([]);
            // Each repaired break was resolved exactly once over all the nights.
            for (const p of planted.filter((q) => q.repairedOn !== undefined && q.fingerprint !== undefined)) {
              let times = 0;
              for (let n = 0; n < plans.length; n += 1)
                times += (await findingsStore(mirror).history.resolvedOf(n + 1)).filter(
                  (r) => r.fingerprint === p.fingerprint,
                ).length;
              expect(times).toBe(1);
            }
          } finally {
            await mirror.close();
            await services.close();
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      // A shrunk counterexample kept: a balance altered on the third night (its cents built exactly).
      runs(15, { examples: [[[QUIET, QUIET, { ...QUIET, alter: true }], 662]] }),
    );
  }, 180_000);
});
