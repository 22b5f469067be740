/**
 * The check runner: runs the whole catalogue over the mirror's newest sync and returns every
 * check's drafts with the liability flows. Card checks share one streaming pass over the
 * ledger; query checks run as SQL. What the drafts mean across runs is the findings stage's.
 */
import { performance } from 'node:perf_hooks';
import { walkCardLedgers, type WalkedCard } from '../ledger/walk.js';
import type { SyncEdge } from './ledger-reads.js';
import type { CardCheck, CheckContext, CheckOptions, FindingDraft, RowsCheck } from './check.js';
import { checksStore, type ChecksStore } from './store.js';
import { BOOKS_CODES, CATALOGUE, type CheckCode, type Drafted } from './index.js';
import type { RunTallies } from '../ledger/rollforward.js';
import type { CardBetween } from '../ledger/state.js';
import { matchBooks } from '../books/matching.js';
import type { MatchOptions } from '../books/match.js';
import { ConfigError } from '../errors.js';

export interface CatalogueRun {
  /** Every check's drafts, with the check that drafted them. */
  drafted: Drafted[];
  failedChecks: { code: CheckCode; error: string }[];
  checkTimesMs: Partial<Record<CheckCode, number>>;
  /** The liability between the previous run's cut-off and this run's, per currency. */
  tallies: RunTallies;
  /** The cards with a time-sensitive break, as the tally counted them: the confirmation pass may find them in flight. */
  countedCards: Map<string, { ledger: WalkedCard; figures: CardBetween }>;
  cards: number;
  entries: number;
  walkMs: number;
}

/** How the books' matching went, a step before the checks: why it failed, if it did. */
export interface BooksMatching {
  failed?: unknown;
  /** The newest books file the matching read (null: there were no books); absent when it failed. */
  throughFileId?: number | null;
}

/**
 * Matches the merchant's books against the services as of the run (the books stage keeps the
 * pairs): the step before the checks, whose books checks read what it keeps.
 * @returns its time, and why it failed if it did (the books checks then cannot run).
 */
export async function matchBooksForRun(
  context: Pick<CheckContext, 'mirror' | 'asOfMs' | 'merchantId' | 'options'> & { nowMs: number },
): Promise<BooksMatching & { ms: number }> {
  const started = performance.now();
  try {
    const { throughFileId } = await matchBooks(context.mirror, {
      asOfMs: context.asOfMs,
      merchantId: context.merchantId,
      options: booksMatchOptions(context.options),
      nowMs: context.nowMs,
    });
    return { throughFileId, ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { failed: error, ms: Math.round(performance.now() - started) };
  }
}

/**
 * Runs the whole catalogue over the mirror as of `context.syncRunId`: card checks in one
 * ordered pass over cards and their ledgers (cards the sync found in flight skip their
 * time-sensitive checks), query checks as SQL. A check that throws is recorded as failed;
 * the others still run.
 * @param tallies the night's liability tallies (the night, the month to date): every walked card is added to them.
 */
export async function runCatalogue(
  context: CheckContext,
  tallies: RunTallies,
  booksMatching: BooksMatching = {},
  signal?: AbortSignal,
): Promise<CatalogueRun> {
  const drafted: Drafted[] = [];
  const failedChecks: { code: CheckCode; error: string }[] = [];
  const times: Partial<Record<CheckCode, number>> = {};
  const fail = (code: CheckCode, error: unknown): void => {
    failedChecks.push({ code, error: error instanceof Error ? error.message : String(error) });
  };

  // ---- card checks: one ordered pass over cards and their ledgers -----------------------
  const inFlight = await checksStore(context).cards.cardIdsInFlight(context.syncRunId);
  const cardChecks = CATALOGUE.filter((c): c is CardCheck<CheckCode> => c.kind === 'card');
  const broken = new Set<CheckCode>();
  const countedCards = new Map<string, { ledger: WalkedCard; figures: CardBetween }>();
  const walkStarted = performance.now();
  const cardContext = { options: context.options, merchantId: context.merchantId };
  const orphanCards = new Set<string>();
  let cards = 0;
  let entries = 0;
  // An entry whose card is not mirrored is checked too (GC_ORPHAN_ENTRY): it counts among the entries, as the mirror counts it.
  const orphan = (id: string, createdAtMs: number): void => {
    orphanCards.add(id);
    tallies.orphan(createdAtMs);
    entries += 1;
  };
  let batches = 0;
  for await (const batch of walkCardLedgers(context.mirror, orphan)) {
    if (++batches % TURN_BATCHES === 0) await turn(signal);
    // The leaves kept from the night before, read on to the batch's last card (the walk's order).
    if (tallies.leaves && batch.length > 0) await tallies.leaves.readTo(batch.at(-1)!.card.giftCardId);
    for (const ledger of batch) {
      cards += 1;
      entries += ledger.entries.length;
      const moved = inFlight.has(ledger.card.giftCardId);
      const figures = tallies.add(ledger, moved);
      const before = drafted.length;
      // Timing every check on every card costs more than the checks: time one card in 64.
      const timing = cards % TIMING_SAMPLE === 0;
      for (const check of cardChecks) {
        if ((moved && check.timeSensitive) || broken.has(check.code)) continue;
        const t = timing ? performance.now() : 0;
        try {
          for (const draft of check.inspect(ledger, cardContext)) drafted.push({ check, draft });
        } catch (error) {
          broken.add(check.code);
          fail(check.code, error);
        }
        if (timing) times[check.code] = (times[check.code] ?? 0) + (performance.now() - t) * TIMING_SAMPLE;
      }
      if (
        figures &&
        drafted.length > before &&
        drafted.slice(before).some(({ check }) => check.kind === 'card' && check.timeSensitive)
      )
        countedCards.set(ledger.card.giftCardId, { ledger, figures });
    }
  }
  const walkMs = performance.now() - walkStarted;

  // The books checks read what the matching keeps: when it failed (a step of its own, before the checks), they cannot run.
  if (booksMatching.failed !== undefined) for (const code of BOOKS_CODES) fail(code, booksMatching.failed);

  // ---- query checks ------------------------------------------------------------------------
  const queryContext: CheckContext = { ...context, orphanCardIds: [...orphanCards] };
  const store = checksStore(queryContext);
  for (const check of CATALOGUE.filter((c): c is RowsCheck<CheckCode> => c.kind === 'rows')) {
    await turn(signal);
    if (failedChecks.some((f) => f.code === check.code)) continue;
    const t = performance.now();
    try {
      const drafts = check.decide(await check.read(store, queryContext), queryContext);
      for (const draft of drafts) drafted.push({ check, draft });
    } catch (error) {
      fail(check.code, error);
    }
    times[check.code] = performance.now() - t;
  }

  await noteUnlisted(store, drafted);
  return {
    drafted,
    failedChecks,
    checkTimesMs: Object.fromEntries(Object.entries(times).map(([code, ms]) => [code, Math.round(ms)])),
    tallies,
    countedCards,
    cards,
    entries,
    walkMs: Math.round(walkMs),
  };
}

/**
 * The merchant owning a clear majority (more than half) of the mirrored cards and coupons: the
 * last resort, when no lookup by ID could tell and no run pinned one.
 * @throws ConfigError when there is no clear majority: which merchant is ours must be set.
 */
export async function inferMerchant(store: ChecksStore): Promise<string | null> {
  const counts = await store.merchantCounts();
  if (counts.length <= 1) return counts[0]?.merchantId ?? null;
  const total = counts.reduce((sum, c) => sum + c.n, 0);
  // A pinned choice must be a clear one: with no majority, a wrong pin would call our cards foreign for good.
  if (counts[0]!.n * 2 > total) return counts[0]!.merchantId;
  throw new ConfigError(
    '--merchant-id',
    `cannot tell which merchant is ours: no lookup by ID could resolve it and the mirror's cards and coupons are split between ${counts.length} merchants (${counts
      .slice(0, 3)
      .map((c) => `${c.merchantId} ${c.n}`)
      .join(', ')}) with no clear majority; set it with --merchant-id ID or LEDGER_RECON_MERCHANT_ID`,
  );
}

const TIMING_SAMPLE = 64;

/**
 * Batches of the walk (16 cards each) between turns of the event loop. On SQLite the walk's
 * reads never wait on it, so without a turn a Ctrl-C or SIGTERM is not even heard until the
 * check ends (a million entries: 7 s, then the report written whole): every 256 cards it is
 * heard, and the check stops.
 */
const TURN_BATCHES = 16;

/** Lets the event loop turn (a signal's handler runs), then stops if the signal was given. */
async function turn(signal: AbortSignal | undefined): Promise<void> {
  await new Promise(setImmediate);
  signal?.throwIfAborted();
}

/** The matching's options from the check options (hours and minutes as milliseconds). */
export function booksMatchOptions(options: CheckOptions): MatchOptions {
  return {
    toleranceCents: options.booksToleranceCents,
    windowMs: options.booksWindowHours * 3_600_000,
    cutoffMs: options.booksCutoffMinutes * 60_000,
  };
}

/**
 * A break on a coupon or order that the service no longer lists stays open: taking a record
 * out of the list settles nothing. Its message says since which sync, so that nobody looks
 * for the record in the service in vain. The break's particulars (and so an acceptance) are
 * unchanged.
 */
async function noteUnlisted(store: ChecksStore, drafts: ReadonlyArray<{ draft: FindingDraft }>): Promise<void> {
  const unlisted = new Map<string, number>();
  for (const row of await store.unlisted()) unlisted.set(`${row.type} ${row.id}`, row.since);
  if (unlisted.size === 0) return;
  for (const { draft } of drafts) {
    const gone = draft.records.flatMap((record) => {
      const since = unlisted.get(`${record.type} ${record.id}`);
      return since === undefined
        ? []
        : [`${record.type === 'coupon' ? 'coupon' : 'order'} ${record.id} (since sync ${since})`];
    });
    if (gone.length > 0)
      draft.message += ` The service no longer lists ${gone.join(' or ')}; the mirror keeps ${gone.length === 1 ? 'it' : 'them'} as last read.`;
  }
}

/** The sync a check run checks: the mirror's newest, with the completed one before it. */
export interface SyncToCheck extends SyncEdge {
  previousSyncRunId: number | null;
}

/** The newest sync in the mirror, or null when there is none yet. */
export async function syncToCheck(store: ChecksStore): Promise<SyncToCheck | null> {
  const sync = await store.newestSync();
  if (!sync) return null;
  return { ...sync, previousSyncRunId: (await store.newestCompletedSync(sync.syncRunId))?.syncRunId ?? null };
}
