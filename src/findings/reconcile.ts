/**
 * One check run, start to finish: the catalogue's drafts, the confirmation pass (when the
 * caller can re-read the service), every finding's standing across runs, the liability
 * roll-forward, the verdict, and all of it stored in one transaction.
 */
import type { SlaRule } from './sla.js';
import { keepLeaves, leafKeeperOf } from '../ledger/leaves.js';
import { performance } from 'node:perf_hooks';
import { DEFAULT_CHECK_OPTIONS, type CheckOptions } from '../checks/check.js';
import { nightlyRollForward, nightlyTally, RunTallies, type RollForward } from '../ledger/rollforward.js';
import type { LiabilityTally } from '../ledger/state.js';
import { type CatalogueRun, inferMerchant, matchBooksForRun, runCatalogue, syncToCheck } from '../checks/run-checks.js';
import { ChecksStore } from '../checks/store.js';
import type { Mirror } from '../db/mirror.js';
import { MirrorError } from '../errors.js';
import type { RereadRequest, Rereads } from '../sync/confirm.js';
import { confirmationRequest, judge, rereadsDigest, type Confirmation } from './confirmation.js';
import type { Finding } from './finding.js';
import { standing, type Standing } from './standing.js';
import { findingsStore } from './store.js';
import { summarise, type CheckRunSummary } from './summary.js';
import type { FailOn } from './verdict.js';

export interface ReconcileInput {
  mirror: Mirror;
  /**
   * Judge the newest sync as a run would, and record nothing of it: no check run, no findings,
   * no standing, no acceptance ended (`check --dry-run`). The books matching it recomputes is
   * the books stage's derived pairs, the same as a run's under the same options.
   */
  dryRun?: boolean;
  options?: Partial<CheckOptions>;
  /** Our merchant; by default the merchant owning most cards and coupons. */
  merchantId?: string;
  failOn?: FailOn;
  /** The run's instant, from the job's clock (ages of findings, acceptance expiry). */
  nowMs: number;
  /** A run the caller began before its sync (the nightly run); by default one is begun here. */
  checkRunId?: number;
  /** The caller writes the run's report next (the nightly run): the run's report stays pending until it is written. */
  reportPending?: boolean;
  /** Books files the night could not import: its matching is not complete, so neither is the run. */
  booksNotImported?: readonly { file: string; reason: string }[];
  /** Stops the check where it stands (an InterruptedError), recording nothing: Ctrl-C or SIGTERM during the night's check. */
  signal?: AbortSignal;
  /** Re-reads the records behind gift card errors by ID (the nightly run); none for `check`. */
  confirm?: (request: RereadRequest) => Promise<Rereads>;
  /** The exception SLA rules (`--sla FILE`); the documented defaults otherwise. */
  sla?: readonly SlaRule[];
}

export interface ReconcileResult {
  summary: CheckRunSummary;
  findings: Finding[];
  standing: Standing;
  rollForward: RollForward[];
  /** The confirmation pass's verdicts; null without one. */
  confirmation: Confirmation | null;
}

/** The id a dry run is judged under: after every recorded run (see `ReconcileInput.dryRun`). */
export const DRY_RUN_ID = Number.MAX_SAFE_INTEGER;

/** A card the confirmation pass found moved on counts as in flight in the tallies, as the findings do. */
function countMovedInFlight(
  tallies: RunTallies,
  catalogue: Pick<CatalogueRun, 'countedCards'>,
  confirmation: Confirmation | null,
): void {
  for (const [giftCardId, verdict] of confirmation?.cards ?? []) {
    const counted = catalogue.countedCards.get(giftCardId);
    if (verdict.verdict === 'moved' && counted) tallies.moveInFlight(counted.ledger);
  }
}

/**
 * Checks the mirror's newest sync and records the run.
 *
 * Under the mirror's small page cache: the check reads each table once (the walk on threads of
 * their own), so a writer's 128 MB cache only filled up under it. After a night of 100,000
 * findings the check peaked at 412 MB with it and 303 MB without, in the same time.
 * @throws MirrorError when the mirror holds no sync yet.
 */
export async function reconcile(input: ReconcileInput): Promise<ReconcileResult> {
  return input.mirror.withSmallCache(() => checkAndRecord(input));
}

/**
 * The run's tallies: a run that is kept keeps each card's sums for its report, and reuses the
 * population's leaves of the cards that have not moved since the night before, keeping its own.
 */
async function talliesOf(input: ReconcileInput, night: LiabilityTally, syncRunId: number): Promise<RunTallies> {
  const kept = input.dryRun !== true;
  return new RunTallies(night, kept, kept ? await leafKeeperOf(input.mirror, syncRunId) : null);
}

async function checkAndRecord(input: ReconcileInput): Promise<ReconcileResult> {
  const { nowMs } = input;
  const started = performance.now();
  const failOn = input.failOn ?? 'error';
  const options: CheckOptions = { ...DEFAULT_CHECK_OPTIONS, ...input.options };
  const checks = new ChecksStore(input.mirror);
  const sync = await syncToCheck(checks);
  if (!sync)
    throw new MirrorError(`the mirror ${input.mirror.path} holds no sync yet: run \`ledger-recon sync\` first`);
  const store = findingsStore(input.mirror);
  const { merchantId, checkRunId } = await openRun(input, checks, sync, { ...options, failOn }, nowMs);
  const previous = await store.previousCompleteRun(checkRunId);
  const opening = previous ? await store.previousClosing(previous) : null;

  const tallies = await talliesOf(input, nightlyTally(opening, sync.cutOffMs, merchantId), sync.syncRunId);
  const checkContext = {
    mirror: input.mirror,
    syncRunId: sync.syncRunId,
    previousSyncRunId: sync.previousSyncRunId,
    asOfMs: sync.startedAtMs,
    merchantId,
    options,
  };
  // The merchant's books against the services: a step of its own, before the checks that read it.
  const booksMatching = await matchBooksForRun({ ...checkContext, nowMs });
  const catalogue = await runCatalogue(checkContext, tallies, booksMatching, input.signal);
  if (tallies.leaves) await keepLeaves(input.mirror, tallies.leaves);
  const rereads = input.confirm ? await input.confirm(confirmationRequest(catalogue.drafted)) : null;
  const confirmation = rereads ? judge(rereads) : null;
  // The answers as one text: digested for the manifest, and kept for re-performance.
  const rereadsJson = rereads ? JSON.stringify(rereads) : null;
  countMovedInFlight(tallies, catalogue, confirmation);
  const booksNotImported = [...(input.booksNotImported ?? [])];
  const complete = sync.status === 'completed' && catalogue.failedChecks.length === 0 && booksNotImported.length === 0;
  const decided = standing({
    checkRunId,
    nowMs,
    complete,
    drafted: catalogue.drafted,
    previous: previous ? await store.findingsAndHeld(previous) : { findings: [], held: [] },
    acceptances: await store.acceptances.all(),
    confirmation,
  });
  const rollForward = nightlyRollForward(tallies.night, opening);
  const durationMs = Math.round(performance.now() - started);
  const summary = summarise({
    ...(input.sla ? { sla: input.sla } : {}),
    checkRunId,
    sync,
    complete,
    failOn,
    startedAtMs: nowMs,
    merchantId,
    durationMs,
    standing: decided,
    rollForward,
    monthToDate: tallies.monthToDate(),
    population: tallies.population.result(),
    ...(rereads
      ? {
          confirmation: {
            cards: rereads.cards.length,
            entries: rereads.entries.length,
            sha256: rereadsDigest(rereadsJson!),
          },
        }
      : {}),
    ...(booksMatching.throughFileId !== undefined ? { booksThroughFileId: booksMatching.throughFileId } : {}),
    failedChecks: catalogue.failedChecks,
    booksNotImported,
    checkTimesMs: catalogue.checkTimesMs,
    cards: catalogue.cards,
    entries: catalogue.entries,
    walkMs: catalogue.walkMs,
  });
  if (input.dryRun) return { summary, findings: decided.findings, standing: decided, rollForward, confirmation };
  await store.recordRun({
    checkRunId,
    standing: decided,
    rollForward,
    summary,
    finishedAtMs: nowMs + durationMs,
    reportPending: input.reportPending === true,
    rereadsJson,
    cardSums: tallies.cards?.kept() ?? null,
  });
  return { summary, findings: decided.findings, standing: decided, rollForward, confirmation };
}

/**
 * The merchant the run checks for, and the run's ID, the run attached to the sync it judges.
 * A dry run is judged as the run after the newest (DRY_RUN_ID), and recorded nowhere.
 */
async function openRun(
  input: ReconcileInput,
  checks: ChecksStore,
  sync: NonNullable<Awaited<ReturnType<typeof syncToCheck>>>,
  settings: CheckOptions & { failOn: FailOn },
  nowMs: number,
): Promise<{ merchantId: string | null; checkRunId: number }> {
  const store = findingsStore(input.mirror);
  // Pinned: the merchant the newest complete run of these services checked for (--merchant-id
  // changes it). Else what the credentials resolve to (the sync's lookup by ID), never a vote:
  // foreign records that outnumber ours must not turn our cards foreign. Else, when nothing
  // could tell, a clear majority, or a refusal naming the setting.
  const merchantId =
    input.merchantId ?? (await store.pinnedMerchant()) ?? sync.merchantId ?? (await inferMerchant(checks));
  // A dry run is judged as the run after the newest, and recorded nowhere.
  const checkRunId = input.dryRun
    ? DRY_RUN_ID
    : (input.checkRunId ?? (await store.beginRun({ startedAtMs: nowMs, optionsJson: JSON.stringify(settings) })));
  // One cut-off for every figure of the run: the sync's data edge.
  if (!input.dryRun)
    await store.attachSync(checkRunId, { syncRunId: sync.syncRunId, asOfMs: sync.cutOffMs, merchantId });
  return { merchantId, checkRunId };
}
