import type Database from 'better-sqlite3';
import { and, count, desc, eq, inArray, lt, min, or } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { giftCards, giftCardsInFlight, syncRuns } from '../db/schema.js';
import { queryCheck } from './check.js';
import { cardRef } from './refs.js';

/**
 * The cards in flight on each of the last `runs` syncs: this one and the completed ones before
 * it (a failed sync between counts for nothing), with since which sync. Typed from the schema.
 */
function stuckCards(sqlite: Database.Database, syncRunId: number, runs: number): { giftCardId: string; currency: string | null; sinceSyncRunId: number }[] {
  const db = drizzle(sqlite);
  const recent = db
    .select({ syncRunId: syncRuns.syncRunId })
    .from(syncRuns)
    .where(or(eq(syncRuns.syncRunId, syncRunId), and(lt(syncRuns.syncRunId, syncRunId), eq(syncRuns.status, 'completed'))))
    .orderBy(desc(syncRuns.syncRunId))
    .limit(runs)
    .all()
    .map((row) => row.syncRunId);
  if (recent.length < runs) return [];
  return db
    .select({ giftCardId: giftCardsInFlight.giftCardId, currency: giftCards.currency, sinceSyncRunId: min(giftCardsInFlight.syncRunId).mapWith(Number), syncs: count() })
    .from(giftCardsInFlight)
    .leftJoin(giftCards, eq(giftCards.giftCardId, giftCardsInFlight.giftCardId))
    .where(inArray(giftCardsInFlight.syncRunId, recent))
    .groupBy(giftCardsInFlight.giftCardId)
    .having(({ syncs }) => eq(syncs, runs))
    .orderBy(giftCardsInFlight.giftCardId)
    .all();
}

export const gcStuckInFlight = queryCheck({
  kind: 'query',
  code: 'GC_STUCK_IN_FLIGHT',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Card in flight run after run',
  description:
    'A card in flight is read again every run; one still in flight after several consecutive runs (3 by default) cannot hide behind "in flight" any longer: its snapshot and its ledger never come to agree, which a card that merely moves does not do. Look at its entries and the service\'s own record of it.',
  run({ sqlite, syncRunId, options }) {
    const rows = stuckCards(sqlite, syncRunId, options.stuckInFlightRuns);
    return rows.map((row) => ({
      entityType: 'giftCard' as const,
      entityId: row.giftCardId,
      giftCardId: row.giftCardId,
      ...(row.currency ? { currency: row.currency } : {}),
      message: `card ${row.giftCardId} has been in flight on ${options.stuckInFlightRuns} consecutive syncs (since sync ${row.sinceSyncRunId}): its snapshot and its ledger never agree — read it by ID and compare its remainingBalance with its newest entry's balanceAfter`,
      records: [cardRef(row.giftCardId)],
    }));
  },
});
