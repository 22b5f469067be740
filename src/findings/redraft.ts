/**
 * A past night's card checks drafted again over its ledger as the mirror's history rebuilds it
 * (re-performance): the same walk as of the night's sync, the same card checks with the night's
 * options, the same cards spared their time-sensitive checks (those its sync found in flight).
 * Each walked card is also handed to `onCard`, so a caller can tally it in the same pass.
 */
import {
  type CardCheck,
  type CheckOptions,
  DEFAULT_CHECK_OPTIONS,
  isTimeSensitive,
  type RowsCheck,
  type Severity,
} from '../checks/check.js';
import { BOOKS_CODES, CATALOGUE, CHECKS, type CheckCode, type Drafted } from '../checks/index.js';
import { booksMatchOptions, matchBooksForRun } from '../checks/run-checks.js';
import { checksStore } from '../checks/store.js';
import type { Mirror } from '../db/mirror.js';
import { type WalkedCard, walkCardLedgersAsOf } from '../ledger/walk.js';
import type { Rereads } from '../sync/confirm.js';
import { type Confirmation, judge, rereadsDigest } from './confirmation.js';
import { type Finding, fingerprintOf } from './finding.js';
import { standing } from './standing.js';
import { type CheckRunRow, type FindingsStore, summaryOf } from './store.js';

export interface Redrafted {
  /** The checks' codes compared: those drafted again without failing (the card checks', the query checks' re-performed: see reperform.ts). */
  codes: ReadonlySet<CheckCode>;
  /** Each drafted finding's fingerprint, as the standing gives it, with its code and record. */
  fingerprints: Map<string, { code: CheckCode; record: string; severity: Severity }>;
  /** The drafts themselves, in the night's order (the card checks', then the query checks'), for their standing. */
  drafted: Drafted[];
  /** The cards the walk met entries of but no card (the card checks' redraft only): GC_ORPHAN_ENTRY's read. */
  orphanCardIds?: readonly string[];
}

/** The night's check options, with other settings (a what-if) over them. */
function optionsOf(run: CheckRunRow, changed: Partial<CheckOptions>): CheckOptions {
  return { ...DEFAULT_CHECK_OPTIONS, ...(JSON.parse(run.optionsJson) as Partial<CheckOptions>), ...changed };
}

/** Walks the ledger as of `run`'s sync and drafts its card checks again; `onCard` sees every walked card. */
export async function redraftCardChecks(
  mirror: Mirror,
  run: CheckRunRow & { syncRunId: number },
  onCard: (walked: WalkedCard) => void,
  onOrphan: (giftCardId: string, createdAtMs: number) => void,
  /** Other settings than the night's (a what-if). */
  changed: Partial<CheckOptions> = {},
): Promise<Redrafted> {
  const context = { options: optionsOf(run, changed), merchantId: run.merchantId };
  const cardChecks = CATALOGUE.filter((c): c is CardCheck<CheckCode> => c.kind === 'card');
  const inFlight = await checksStore({ mirror }).cards.cardIdsInFlight(run.syncRunId);
  const drafted: Drafted[] = [];
  const broken = new Set<CheckCode>();
  const orphans = new Set<string>();
  const orphan = (giftCardId: string, createdAtMs: number) => {
    orphans.add(giftCardId);
    onOrphan(giftCardId, createdAtMs);
  };
  for await (const batch of walkCardLedgersAsOf(mirror, run.syncRunId, orphan))
    for (const walked of batch) {
      onCard(walked);
      const moved = inFlight.has(walked.card.giftCardId);
      for (const check of cardChecks) {
        if ((moved && isTimeSensitive(check)) || broken.has(check.code)) continue;
        try {
          for (const draft of check.inspect(walked, context)) drafted.push({ check, draft });
        } catch {
          broken.add(check.code);
        }
      }
    }
  return { ...fingerprinted(new Set(cardChecks.map((c) => c.code)), drafted), orphanCardIds: [...orphans] };
}

/**
 * The query checks over the services' lists (coupons, DP orders and their vouchers, wallets),
 * those that read neither the books nor the gift card tables: re-performed over the lists as of
 * the night's sync, rebuilt into a scratch mirror.
 */
export const LIST_CHECKS: readonly RowsCheck<CheckCode>[] = CATALOGUE.filter(
  (c): c is RowsCheck<CheckCode> => c.kind === 'rows' && c.needsBooks !== true && /^(CV|DP)_/.test(c.code),
);

/**
 * The gift card query checks whose reads the night's sync bounds (the syncs and their cards in
 * flight up to it, the entries' rewrites it or an earlier sync recorded, the entries as it left
 * them: CheckContext.asOfSync): re-performed over the mirror itself. SYNC_REJECTED_RECORD joins
 * them for a night whose sync recorded the records it rejected (NightSync.sightingsKept).
 */
export const BOUNDED_CHECKS: readonly RowsCheck<CheckCode>[] = [
  CHECKS.GC_STUCK_IN_FLIGHT,
  CHECKS.GC_LEDGER_REWRITTEN,
  CHECKS.GC_DUPLICATE_IDEMPOTENCY_KEY,
  CHECKS.GC_ORPHAN_ENTRY,
  CHECKS.GC_LISTED_NOT_FOUND,
];

/**
 * The query checks re-performed over the mirror itself for a night of `sync`; with GC_IN_FLIGHT
 * (the cards its sync found in flight, bounded by it) when the night's confirmation answers are
 * kept (`confirmationKept`), for the confirmation adds the cards it found moved.
 */
export function boundedChecksOf(sync: NightSync, confirmationKept = false): readonly RowsCheck<CheckCode>[] {
  return [
    ...BOUNDED_CHECKS,
    ...(sync.sightingsKept ? [CHECKS.SYNC_REJECTED_RECORD] : []),
    ...(confirmationKept ? [CHECKS.GC_IN_FLIGHT] : []),
  ];
}

/** A night's confirmation pass, from the answers the mirror kept of it. */
export interface NightConfirmation {
  /** Its answers are kept (since migration 0023, pg 0009): GC_IN_FLIGHT and the confirmation's own findings are re-performed. */
  kept: boolean;
  /** What its answers mean, judged again (confirmation.ts); null without a confirmation pass, or answers not kept. */
  confirmation: Confirmation | null;
  /** The kept answers against the digest the night sealed: each difference, one line. */
  differences: string[];
}

/**
 * Run `run`'s confirmation as the mirror kept its answers: judged again, and held to the digest
 * of them its summary (and manifest) sealed, so an answer changed since is named, not believed.
 */
export async function nightConfirmationOf(findings: FindingsStore, run: CheckRunRow): Promise<NightConfirmation> {
  const json = await findings.history.rereadsOf(run.checkRunId);
  if (json === undefined) return { kept: false, confirmation: null, differences: [] };
  const sealed = summaryOf(run).confirmation?.sha256;
  if (json === null)
    return {
      kept: true,
      confirmation: null,
      differences: sealed
        ? [
            `check run ${run.checkRunId} sealed a confirmation pass's answers (SHA-256 ${sealed}), and the mirror keeps none`,
          ]
        : [],
    };
  const digest = rereadsDigest(json);
  return {
    kept: true,
    confirmation: judge(JSON.parse(json) as Rereads),
    differences:
      digest === sealed
        ? []
        : [
            `the confirmation's answers kept for check run ${run.checkRunId} are not the ones it sealed: SHA-256 ${digest}, sealed ${sealed ?? 'none'}`,
          ],
  };
}

/**
 * The drafts' fingerprints as the night's confirmation left them, by the standing's own rules
 * (standing.ts, weighed against no earlier night): a moved card's time-sensitive drafts out, its
 * GC_IN_FLIGHT in, the re-read's own drafts in.
 */
function confirmedFingerprints(
  run: CheckRunRow,
  redrafted: Redrafted,
  confirmation: Confirmation,
): Redrafted['fingerprints'] {
  const { findings } = standing({
    checkRunId: run.checkRunId,
    nowMs: run.startedAtMs,
    complete: false,
    drafted: redrafted.drafted,
    previous: { findings: [], held: [] },
    acceptances: [],
    confirmation,
  });
  return new Map(
    findings.map((f) => [
      f.fingerprint,
      { code: f.code, record: `${f.entityType} ${f.entityId}`, severity: f.severity },
    ]),
  );
}

/** The sync a night checked, as its checks saw it: when it started, and the completed sync before it. */
export interface NightSync {
  syncRunId: number;
  startedAtMs: number;
  previousSyncRunId: number | null;
  /** It recorded each record it rejected (since migration 0022, pg 0008): SYNC_REJECTED_RECORD is re-performed. */
  sightingsKept: boolean;
}

/** The sync `syncRunId` of `mirror` as its night's checks saw it. */
export async function nightSyncOf(mirror: Mirror, syncRunId: number): Promise<NightSync> {
  const store = checksStore({ mirror });
  const sync = await store.sync(syncRunId);
  const previous = await store.newestCompletedSync(syncRunId);
  return {
    syncRunId,
    startedAtMs: sync?.startedAtMs ?? 0,
    previousSyncRunId: previous?.syncRunId ?? null,
    sightingsKept: await store.sightingsKept(syncRunId),
  };
}

/**
 * Drafts `checks` (query checks) of the night again over `mirror` (the mirror itself for
 * BOUNDED_CHECKS, or a scratch mirror holding the lists as of the night's sync for LIST_CHECKS),
 * with the night's options (or `changed` over them). A check that fails here is left out of the
 * comparison, its code not among those compared.
 */
export async function redraftQueryChecks(
  mirror: Mirror,
  checks: readonly RowsCheck<CheckCode>[],
  run: CheckRunRow,
  sync: NightSync,
  changed: Partial<CheckOptions> = {},
  /** The cards the walk as of the night found missing (Redrafted.orphanCardIds), when it ran. */
  orphanCardIds?: readonly string[],
): Promise<Redrafted> {
  const context = {
    mirror,
    ...(orphanCardIds ? { orphanCardIds } : {}),
    syncRunId: sync.syncRunId,
    previousSyncRunId: sync.previousSyncRunId,
    asOfMs: sync.startedAtMs,
    asOfSync: sync.syncRunId,
    merchantId: run.merchantId,
    options: optionsOf(run, changed),
  };
  const store = checksStore(context);
  const drafted: Drafted[] = [];
  const codes = new Set<CheckCode>();
  for (const check of checks) {
    try {
      for (const draft of check.decide(await check.read(store, context), context)) drafted.push({ check, draft });
      codes.add(check.code);
    } catch {
      // Not compared: the night names its own failure (an incomplete night).
    }
  }
  return fingerprinted(codes, drafted);
}

/** The checks that read the books' matching. */
const BOOKS_CHECKS: readonly RowsCheck<CheckCode>[] = CATALOGUE.filter(
  (c): c is RowsCheck<CheckCode> => c.kind === 'rows' && c.needsBooks === true,
);

/**
 * The books the night's matching read (the newest books file by then, null for none), when its
 * books' checks can be drafted again: the night kept it (runs since it was kept) and its books'
 * checks ran (its matching did not fail). Undefined when not.
 */
export function booksOfNight(run: CheckRunRow): number | null | undefined {
  const summary = summaryOf(run);
  if (summary.failedChecks.some((f) => BOOKS_CODES.includes(f.code))) return undefined;
  return summary.booksThroughFileId;
}

/** The widest window the matching reads the ledger over before the books' first row, under the night's options and `changed`. */
export function booksWindowMs(run: CheckRunRow, changed: Partial<CheckOptions> = {}): number {
  return Math.max(booksMatchOptions(optionsOf(run, {})).windowMs, booksMatchOptions(optionsOf(run, changed)).windowMs);
}

/**
 * The books' checks of the night drafted again over `scratch` (a scratch mirror holding the books
 * as the night's matching read them, and the ledger's cards and tenders as of its sync): the
 * books matched again there with the night's options (or `changed` over them), then the checks
 * read what that matching kept. A matching that fails leaves them out of the comparison.
 */
export async function redraftBooksChecks(
  scratch: Mirror,
  run: CheckRunRow,
  sync: NightSync,
  changed: Partial<CheckOptions> = {},
): Promise<Redrafted> {
  const matched = await matchBooksForRun({
    mirror: scratch,
    asOfMs: sync.startedAtMs,
    merchantId: run.merchantId,
    options: optionsOf(run, changed),
    nowMs: run.startedAtMs,
  });
  if (matched.failed !== undefined) return fingerprinted(new Set(), []);
  return redraftQueryChecks(scratch, BOOKS_CHECKS, run, sync, changed);
}

/** Redrafts as one, fingerprinted together as the night fingerprinted its drafts. */
export function together(...parts: readonly Redrafted[]): Redrafted {
  return fingerprinted(
    new Set(parts.flatMap((part) => [...part.codes])),
    parts.flatMap((part) => part.drafted),
  );
}

/** The drafts' fingerprints as the standing gives them: two findings alike in every identity kept apart, numbered. */
function fingerprinted(codes: ReadonlySet<CheckCode>, drafted: Drafted[]): Redrafted {
  const fingerprints = new Map<string, { code: CheckCode; record: string; severity: Severity }>();
  for (const { check, draft } of drafted) {
    let fingerprint = fingerprintOf(check.code, draft);
    for (let n = 2; fingerprints.has(fingerprint); n += 1)
      fingerprint = fingerprintOf(check.code, { ...draft, identity: [...(draft.identity ?? []), `#${n}`] });
    fingerprints.set(fingerprint, {
      code: check.code,
      record: `${draft.entityType} ${draft.entityId}`,
      severity: check.severity,
    });
  }
  return { codes, fingerprints, drafted };
}

/** What a night stated: its findings and the breaks it held in flight (FindingsStore.findingsAndHeld, read once). */
export interface Stated {
  findings: readonly Finding[];
  held: readonly Finding[];
}

/**
 * What differs between the findings drafted again (of the codes compared) and those the night
 * stated: one it stated (not carried from an earlier night as an event, not held in flight) that
 * no check drafts now, and one drafted now that it neither stated nor held.
 */
export function findingDifferences(
  { findings: stated, held }: Stated,
  run: CheckRunRow,
  redrafted: Redrafted,
  /** The night's confirmation, judged again from its kept answers (nightConfirmationOf). */
  confirmation: Confirmation | null = null,
): string[] {
  const ours = (f: { code: CheckCode }) => redrafted.codes.has(f.code);
  const drafted = confirmation ? confirmedFingerprints(run, redrafted, confirmation) : redrafted.fingerprints;
  const statedHere = new Map(stated.filter(ours).map((f) => [f.fingerprint, f]));
  const heldHere = new Set(held.filter(ours).map((f) => f.fingerprint));
  const differences: string[] = [];
  for (const [fingerprint, f] of statedHere) {
    const carriedEvent = CHECKS[f.code].lifecycle === 'event' && f.firstSeenCheckRunId < run.checkRunId;
    if (!drafted.has(fingerprint) && !carriedEvent)
      differences.push(
        `finding ${f.code} ${fingerprint} (${f.entityType} ${f.entityId}): among the night's findings, not found again now`,
      );
  }
  for (const [fingerprint, { code }] of drafted)
    if (!statedHere.has(fingerprint) && !heldHere.has(fingerprint))
      differences.push(`finding ${code} ${fingerprint}: found again now, not among the night's findings`);
  return differences.sort();
}

/**
 * The standing of the findings re-performed: the drafts made again, weighed against the
 * previous complete night's findings and the acceptances in force when the night started (as
 * the standing weighed them then), and compared with what the night stated of each break: its
 * state (new, open, accepted) and the night it was first seen; and the breaks it resolved. A
 * break the night held in flight, or did not state at all, is left to findingDifferences.
 */
export async function standingDifferences(
  findings: FindingsStore,
  { findings: stated, held }: Stated,
  run: CheckRunRow,
  redrafted: Redrafted,
  /** The night's confirmation, judged again from its kept answers (nightConfirmationOf). */
  confirmation: Confirmation | null = null,
): Promise<string[]> {
  const ours = (f: { code: CheckCode }) => redrafted.codes.has(f.code);
  const previousRun = await findings.previousCompleteRun(run.checkRunId);
  const previous = previousRun ? await findings.findingsAndHeld(previousRun) : undefined;
  const decided = standing({
    checkRunId: run.checkRunId,
    nowMs: run.startedAtMs,
    complete: summaryOf(run).verdict !== 'INCOMPLETE',
    drafted: redrafted.drafted,
    previous: {
      findings: previous?.findings.filter(ours) ?? [],
      held: previous?.held.filter(ours) ?? [],
      ...(previous ? { sameFingerprints: previous.sameFingerprints } : {}),
    },
    acceptances: await findings.acceptances.inForceAt(run.startedAtMs),
    confirmation,
  });
  const statedHere = new Map(stated.filter(ours).map((f) => [f.fingerprint, f]));
  const heldHere = new Set(held.filter(ours).map((f) => f.fingerprint));
  const differences: string[] = [];
  const named = (f: Finding) => `finding ${f.code} ${f.fingerprint} (${f.entityType} ${f.entityId})`;
  for (const now of decided.findings) {
    const was = statedHere.get(now.fingerprint);
    if (!was) continue;
    if (was.state !== now.state) differences.push(`${named(was)}: stated ${was.state}, re-performed ${now.state}`);
    if (was.firstSeenCheckRunId !== now.firstSeenCheckRunId)
      differences.push(
        `${named(was)}: stated first seen in check run ${was.firstSeenCheckRunId}, re-performed ${now.firstSeenCheckRunId}`,
      );
  }
  const resolvedThen = new Set(
    (await findings.history.resolvedOf(run.checkRunId))
      .filter((r) => redrafted.codes.has(r.code as CheckCode))
      .map((r) => r.fingerprint),
  );
  const resolvedNow = new Set(decided.resolved.map((f) => f.fingerprint));
  for (const fingerprint of resolvedThen)
    if (!resolvedNow.has(fingerprint))
      differences.push(`finding ${fingerprint}: resolved by the night, not by the re-performance`);
  for (const f of decided.resolved)
    if (!resolvedThen.has(f.fingerprint) && !heldHere.has(f.fingerprint))
      differences.push(`${named(f)}: resolved by the re-performance, not by the night`);
  return differences.sort();
}
