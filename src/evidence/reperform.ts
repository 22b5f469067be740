/**
 * Re-performance of a past night: the gift card ledger at the night's sync, rebuilt from the
 * mirror's history (the cards it had seen with their fields as of then, the entries it had seen
 * and not yet found vanished), walked again exactly as the night walked it: its population
 * (counts, control totals per currency, Merkle root) compared with what the night's manifest
 * sealed, its roll-forward per currency with what the night stated; its card checks and (over
 * the lists as of its sync, rebuilt by the caller) its checks over coupons, DP orders and wallets
 * drafted again, its gift card query checks over the mirror as its sync bounds it, and (over
 * the books as its matching read them, rebuilt by the caller beside the lists, with the ledger as
 * of its sync) its books matched again and the books' checks drafted again; and their standing,
 * against the findings it stated (docs/evidence.md says what is re-performed and what is not).
 */
import type { Mirror } from '../db/mirror.js';
import { type CheckRunRow, type FindingsStore, findingsStore, summaryOf } from '../findings/store.js';
import { rollForwardFigures, type RollForwardFigures } from '../findings/summary.js';
import {
  boundedChecksOf,
  booksOfNight,
  booksWindowMs,
  findingDifferences,
  LIST_CHECKS,
  type NightSync,
  nightConfirmationOf,
  nightSyncOf,
  type Redrafted,
  redraftBooksChecks,
  redraftCardChecks,
  redraftQueryChecks,
  type Stated,
  standingDifferences,
  together,
} from '../findings/redraft.js';
import { exitCodeOf, type FailOn, type Verdict, verdictOf } from '../findings/verdict.js';
import { fingerprintOf, isMaterial, type Materiality } from '../findings/finding.js';
import type { CheckOptions, Severity } from '../checks/check.js';
import type { CheckCode } from '../checks/index.js';
import { type MonthToDate, nightlyRollForward, nightlyTally, RunTallies } from '../ledger/rollforward.js';
import { formatCents, groupThousands } from '../money.js';
import { canonicalJson } from './canonical.js';
import { sha256Hex } from '../hash.js';
import type { CurrencyControls, LedgerPopulation } from '../ledger/population.js';
import { LedgerStore } from '../ledger/store.js';
import { recordsPopulation, type SealedManifest } from './manifest.js';
import { EvidenceStore } from './store.js';
import { ledgerForBooks } from './night-books.js';

export interface Reperformance {
  checkRunId: number;
  syncRunId: number;
  cutOff: string;
  /** The population as re-performed now. */
  population: LedgerPopulation;
  /** The night's roll-forward per currency as re-performed now. */
  rollForward: RollForwardFigures[];
  /** How many findings the card checks drafted again. */
  cardFindings: number;
  /** How many findings the checks over coupons, DP orders and wallets drafted again; absent when not re-performed. */
  listFindings?: number;
  /** How many findings the books' checks drafted again, over the books matched again; absent when not re-performed. */
  booksFindings?: number;
  /** How many books rows were matched again, as the night's matching read them (0: none had been imported); absent when not re-performed. */
  booksRows?: number;
  /** Each difference from the sealed population, one line each; none when identical. */
  differences: string[];
  /** Entries the service rewrote after that night: they read as now, so a difference may be theirs. */
  rewrittenAfter: number;
  /** The night's sync recorded each record it rejected, so SYNC_REJECTED_RECORD was re-performed. */
  rejectionsKept: boolean;
  /** The mirror kept the night's confirmation answers, so GC_IN_FLIGHT and the confirmation's own findings were re-performed. */
  confirmationKept: boolean;
  /** The night kept which books its matching read (and the lists as of its sync are kept), so its books were matched again and the books' checks re-performed. */
  booksKept: boolean;
  /**
   * The sync from which the mirror keeps its coupons and orders as of each sync, when this night
   * predates it (a mirror made before it kept them): its coupons and orders are not compared.
   */
  listsKeptSince?: number;
}

/** A night's lists, and its books when asked, rebuilt into a scratch mirror (see {@link ListsAt}). */
export interface NightLists {
  lists: Mirror;
  unreadable: string[];
  /** The books rows copied, and when the earliest tender among them was made (null: none). */
  books?: { rows: number; firstTenderAtMs: number | null };
}

/**
 * The lists (coupons, DP orders, wallets) as the mirror held them at a sync, rebuilt into a
 * scratch mirror by the caller (the sync's rebuild: see sync/as-of.ts), with each kept record
 * that did not read; given `booksThroughFileId`, the books too, as they stood once that books
 * file was imported (books/store-past.ts). The caller drops the scratch mirror after.
 */
export type ListsAt = (syncRunId: number, booksThroughFileId?: number | null) => Promise<NightLists>;

/** Why a run cannot be re-performed, for a person. */
export class NotReperformable extends Error {}

/** A what-if changes how the books are matched, and the night's books cannot be matched again: it would shape nothing. */
export class BooksNotMatchable extends Error {
  constructor(readonly checkRunId: number) {
    super(
      `check run ${checkRunId}'s books cannot be matched again (the night predates the mirror keeping which books its matching read, or its coupons and orders as of its sync, or its matching failed)`,
    );
  }
}

/** The check options that shape the matching of the merchant's books. */
const BOOKS_OPTIONS = [
  'booksToleranceCents',
  'booksWindowHours',
  'booksCutoffMinutes',
] as const satisfies readonly (keyof CheckOptions)[];

/**
 * Refuses a night or close (`what`) whose sync `syncRunId` read services the mirror was rebound
 * from since: their records left its current tables, so it cannot be rebuilt. Its files still
 * verify offline.
 */
export async function refuseRebound(mirror: Mirror, what: string, syncRunId: number): Promise<void> {
  const rebound = await new EvidenceStore(mirror).reboundAfter(syncRunId);
  if (rebound)
    throw new NotReperformable(
      `${what} read sync ${syncRunId}, and sync ${rebound.syncRunId} rebound the mirror to other services on ${rebound.at} (\`sync --rebind\`): the earlier services' cards, coupons and orders left its current tables, so it cannot be rebuilt from the mirror; its files still verify offline (\`ledger-recon verify --dir <its reports folder>\`)`,
    );
}

/** A completed night of this mirror, with the sync it read. @throws NotReperformable when there is none. */
async function nightRun(findings: FindingsStore, checkRunId: number): Promise<CheckRunRow & { syncRunId: number }> {
  const found = await findings.history.completedRun(checkRunId);
  if (!found || found.syncRunId === null)
    throw new NotReperformable(
      `check run ${checkRunId} is not a completed run of this mirror: see \`ledger-recon history\``,
    );
  return { ...found, syncRunId: found.syncRunId };
}

/** A completed night, walked again as of its sync: its tallies fed and its card checks drafted. */
async function walkNight(mirror: Mirror, checkRunId: number) {
  const findings = findingsStore(mirror);
  const run = await nightRun(findings, checkRunId);
  await refuseRebound(mirror, `check run ${checkRunId}`, run.syncRunId);
  // The night's roll-forward, as the night computed it: from the previous complete run's closing,
  // to this run's cut-off, the cards it counted in flight apart (its GC_IN_FLIGHT findings, the
  // confirmation's included).
  const previousRun = await findings.previousCompleteRun(checkRunId);
  const opening = previousRun ? await findings.previousClosing(previousRun) : null;
  const inFlight = (await findings.inFlightOf(run))?.cards ?? new Set<string>();
  // The night's own tallies (population, night, month to date), fed by the walk as the night fed them.
  const tallies = new RunTallies(nightlyTally(opening, run.asOfMs ?? 0, run.merchantId));
  // One walk as of the night's sync: every card tallied, and the card checks drafted again.
  const redrafted = await redraftCardChecks(
    mirror,
    run,
    (walked) => tallies.add(walked, inFlight.has(walked.card.giftCardId)),
    (_card, createdAtMs) => tallies.orphan(createdAtMs),
  );
  return { findings, run, opening, tallies, redrafted };
}

/**
 * The lists as of the night's sync (`listsAt`), when the mirror keeps them as of it, undefined
 * when not (no `listsAt`, or a night older than the versions); with them, where the night kept
 * which books its matching read, those books and the ledger they are matched against as of its
 * sync (its cards, and its payments and refunds from the books' first tender on, less the widest
 * window of the night's and `changed`).
 */
async function listsOfNight(
  mirror: Mirror,
  run: CheckRunRow & { syncRunId: number },
  keptSince: number | null,
  listsAt: ListsAt | undefined,
  changed: Partial<CheckOptions> = {},
): Promise<(NightLists & { booksKept: boolean }) | undefined> {
  if (!listsKeptAsOf(run, keptSince, listsAt)) return undefined;
  const books = booksOfNight(run);
  const night = await listsAt(run.syncRunId, books);
  const firstTender = night.books?.firstTenderAtMs;
  if (firstTender !== undefined && firstTender !== null)
    await ledgerForBooks(mirror, run.syncRunId, firstTender - booksWindowMs(run, changed), night.lists);
  return { ...night, booksKept: books !== undefined };
}

/** The night's lists can be rebuilt as of its sync: the caller can rebuild them, and the mirror keeps them from before it. */
function listsKeptAsOf(
  run: { syncRunId: number },
  keptSince: number | null,
  listsAt: ListsAt | undefined,
): listsAt is ListsAt {
  return listsAt !== undefined && keptSince !== null && run.syncRunId >= keptSince;
}

/**
 * The night's query checks drafted again beside its card checks (`cards`), with `changed` over
 * its options: the gift card checks its sync bounds over the mirror, the checks over the lists
 * over `night` when there are lists as of the night, and the books' checks there too when the
 * night kept its books; all fingerprinted as the night did.
 */
async function withQueryChecks(
  mirror: Mirror,
  run: CheckRunRow,
  sync: NightSync,
  cards: Redrafted,
  night: { lists: Mirror; booksKept: boolean } | undefined,
  changed: Partial<CheckOptions> = {},
  /** The night's confirmation answers are kept: GC_IN_FLIGHT is drafted again too. */
  confirmationKept = false,
): Promise<{ redrafted: Redrafted; lists?: Redrafted; books?: Redrafted }> {
  const bounded = await redraftQueryChecks(
    mirror,
    boundedChecksOf(sync, confirmationKept),
    run,
    sync,
    changed,
    cards.orphanCardIds,
  );
  if (night === undefined) return { redrafted: together(cards, bounded) };
  const listed = await redraftQueryChecks(night.lists, LIST_CHECKS, run, sync, changed);
  if (!night.booksKept) return { redrafted: together(cards, bounded, listed), lists: listed };
  const books = await redraftBooksChecks(night.lists, run, sync, changed);
  return { redrafted: together(cards, bounded, listed, books), lists: listed, books };
}

/**
 * Re-performs check run `checkRunId` and compares it with its sealed manifest and what it stated:
 * its ledger population, roll-forward and month to date, its card checks' findings, and (given
 * `listsAt`) its checks' findings over coupons, DP orders and wallets; and their standing.
 */
export async function reperformRun(mirror: Mirror, checkRunId: number, listsAt?: ListsAt): Promise<Reperformance> {
  const { findings, run, opening, tallies, redrafted: cards } = await walkNight(mirror, checkRunId);
  const evidence = new EvidenceStore(mirror);
  const [stored] = await evidence.bySubject(`check run ${checkRunId}`);
  if (!stored)
    throw new NotReperformable(
      `check run ${checkRunId} was never sealed (no evidence manifest in the mirror): \`ledger-recon report --run ${checkRunId}\` seals it, from the mirror as it is now`,
    );
  const manifest = JSON.parse(stored.manifestJson) as SealedManifest;
  const sealed = manifest.population.giftCards;
  if (!sealed)
    throw new NotReperformable(`check run ${checkRunId}'s manifest states no ledger population: nothing to re-perform`);
  const population = tallies.population.result();
  const rollForward = nightlyRollForward(tallies.night, opening).map(rollForwardFigures);
  const stated = summaryOf(run);
  const sealedRollForward = stated.rollForward;
  const monthToDate = tallies.monthToDate();
  const keptSince = await evidence.listsKeptSince();
  const night = await listsOfNight(mirror, run, keptSince, listsAt);
  const sync = await nightSyncOf(mirror, run.syncRunId);
  const confirmed = await nightConfirmationOf(findings, run);
  const {
    redrafted,
    lists: listsRedrafted,
    books: booksRedrafted,
  } = await withQueryChecks(mirror, run, sync, cards, night, {}, confirmed.kept);
  // What the night stated, read once for the three comparisons below.
  const statedThen: Stated = await findings.findingsAndHeld(run);
  return {
    checkRunId,
    syncRunId: run.syncRunId,
    cutOff: manifest.cutOff,
    population,
    rollForward,
    cardFindings: cards.fingerprints.size,
    ...(listsRedrafted ? { listFindings: listsRedrafted.fingerprints.size } : {}),
    ...(booksRedrafted ? { booksFindings: booksRedrafted.fingerprints.size, booksRows: night?.books?.rows ?? 0 } : {}),
    differences: [
      ...differencesOf(sealed, population),
      ...rollForwardDifferences(sealedRollForward, rollForward),
      // The figures the run kept are the ones its manifest sealed (a row changed by SQL is not).
      ...(sha256Hex(canonicalJson(sealedRollForward)) === manifest.digests['rollForward']
        ? []
        : ["the run's stored roll-forward is not the one its manifest sealed"]),
      // The month to date, as a whole against the digest the night sealed (a run from before it was kept has none).
      ...(manifest.digests['monthToDate'] === undefined ||
      sha256Hex(canonicalJson(monthToDate)) === manifest.digests['monthToDate']
        ? []
        : [monthToDateDifference(stated.monthToDate, monthToDate)]),
      ...(night?.unreadable ?? []),
      ...confirmed.differences,
      ...findingDifferences(statedThen, run, redrafted, confirmed.confirmation),
      ...(await standingDifferences(findings, statedThen, run, redrafted, confirmed.confirmation)),
      ...(await acceptancesNotHonoured(findings, statedThen, run)),
      ...(await listDifferences(evidence, manifest, run.syncRunId, keptSince)),
      ...(night?.booksKept ? await booksFileDifferences(evidence, manifest, booksOfNight(run)) : []),
    ],
    rewrittenAfter: await new LedgerStore(mirror).entriesRewrittenAfter(run.syncRunId),
    rejectionsKept: sync.sightingsKept,
    confirmationKept: confirmed.kept,
    booksKept: night?.booksKept ?? false,
    ...(keptSince !== null && run.syncRunId < keptSince ? { listsKeptSince: keptSince } : {}),
  };
}

/**
 * The coupons, orders and wallets as of the night's sync, against what the night sealed: each
 * list's count, Merkle root and totals. Coupons and orders are compared where the mirror keeps
 * them as of that sync (`keptSince`); wallets always (every sync's snapshot is kept).
 */
async function listDifferences(
  store: EvidenceStore,
  manifest: SealedManifest,
  syncRunId: number,
  keptSince: number | null,
): Promise<string[]> {
  const kept = keptSince === null || syncRunId >= keptSince;
  const lists = [
    ...(kept
      ? [
          { label: 'coupons', sealed: manifest.population.coupons, now: () => store.coupons(syncRunId) },
          { label: 'DP orders', sealed: manifest.population.dpOrders, now: () => store.orders(syncRunId) },
        ]
      : []),
    { label: 'DP wallets', sealed: manifest.population.dpWallets, now: () => store.wallets(syncRunId) },
  ];
  const differences: string[] = [];
  for (const { label, sealed, now } of lists) {
    if (!sealed) continue;
    const is = await recordsPopulation(now());
    if (is.records !== sealed.records)
      differences.push(
        `${label}: sealed ${sealed.records.toLocaleString('en-US')}, re-performed ${is.records.toLocaleString('en-US')}`,
      );
    const currencies = [...new Set([...Object.keys(sealed.totalsCents), ...Object.keys(is.totalsCents)])].sort();
    for (const currency of currencies)
      if (sealed.totalsCents[currency] !== is.totalsCents[currency])
        differences.push(
          `${label} ${currency} total: sealed ${sealed.totalsCents[currency] === undefined ? 'none' : shownMoney(sealed.totalsCents[currency], currency)}, re-performed ${is.totalsCents[currency] === undefined ? 'none' : shownMoney(is.totalsCents[currency], currency)}`,
        );
    if (is.merkleRoot !== sealed.merkleRoot)
      differences.push(`${label} Merkle root: sealed ${sealed.merkleRoot}, re-performed ${is.merkleRoot}`);
  }
  return differences;
}

/**
 * The books files the night's matching read (the newest version of each by the file it names),
 * against those its manifest sealed: each file sealed and not found, or found and not sealed.
 */
async function booksFileDifferences(
  store: EvidenceStore,
  manifest: SealedManifest,
  throughFileId: number | null | undefined,
): Promise<string[]> {
  const named = (f: { kind: string; source: string; sha256: string }) => `${f.kind} ${f.source} (SHA-256 ${f.sha256})`;
  const sealed = new Set(manifest.books.map(named));
  const now = new Set((await store.booksFiles(throughFileId)).map(named));
  return [
    ...[...sealed].filter((f) => !now.has(f)).map((f) => `books file ${f}: sealed, not among those the night read`),
    ...[...now].filter((f) => !sealed.has(f)).map((f) => `books file ${f}: read by the night, not sealed`),
  ];
}

/**
 * Acceptances on record that claim to predate the night, of a break with the same particulars and
 * not lapsed by then, which the night did not honour (it stated the finding open): dated back, or
 * changed since. An acceptance is made under the mirror's lock, never during a night.
 */
async function acceptancesNotHonoured(findings: FindingsStore, stated: Stated, run: CheckRunRow): Promise<string[]> {
  const acceptances = new Map((await findings.acceptances.all()).map((a) => [a.fingerprint, a]));
  return stated.findings.flatMap((f) => {
    const a = acceptances.get(f.fingerprint);
    const claimed =
      a !== undefined &&
      a.acceptedAtMs < run.startedAtMs &&
      (a.untilMs === null || a.untilMs > run.startedAtMs) &&
      a.detailSha256 === f.detailSha256;
    return claimed && f.state !== 'accepted'
      ? [
          `acceptance of ${f.code} ${f.fingerprint}: dated ${new Date(a.acceptedAtMs).toISOString()}, before this night, which stated the finding ${f.state}: the acceptance was dated back, or changed since`,
        ]
      : [];
  });
}

/** What differs in the month to date: the first roll-forward whose closing differs, or its whole. */
function monthToDateDifference(stated: MonthToDate | undefined, now: MonthToDate): string {
  for (const group of now.rollForwards) {
    const was = stated?.rollForwards.find((r) => r.currency === group.currency && r.programId === group.programId);
    if (was && was.closingFromFlowsCents !== group.closingFromFlowsCents)
      return `month to date ${group.currency} ${group.programId ?? '(no program)'} closing outstanding: stated ${shownMoney(was.closingFromFlowsCents ?? 0, group.currency)}, re-performed ${shownMoney(group.closingFromFlowsCents ?? 0, group.currency)}`;
  }
  return 'month to date: the re-performed figures are not the ones its manifest sealed';
}

/** The roll-forward's lines as the Summary names them. */
const ROLL_FORWARD_LABELS: Partial<Record<keyof RollForwardFigures, string>> = {
  opening: 'opening outstanding',
  rebase: 're-based',
  issued: 'issued',
  debited: 'debited',
  refunded: 'refunded',
  voided: 'voided',
  expired: 'expired',
  closing: 'closing outstanding',
  cardsRemaining: 'cards hold (remainingBalance at cut-off)',
  difference: 'difference',
  inFlight: 'in flight',
  inFlightCards: 'cards in flight',
};

/** A roll-forward figure: a decimal amount as money in its currency, a count as a count. */
function shownFigure(value: unknown, currency: string): string {
  if (typeof value === 'string' && /^-?\d+\.\d{2}$/.test(value)) return `${currency} ${groupThousands(value)}`;
  return String(value);
}

/** The roll-forward's figures, currency by currency, that differ from what the night stated. */
function rollForwardDifferences(sealed: readonly RollForwardFigures[], now: readonly RollForwardFigures[]): string[] {
  const differences: string[] = [];
  const currencies = [...new Set([...sealed, ...now].map((r) => r.currency))].sort();
  for (const currency of currencies) {
    const was = sealed.find((r) => r.currency === currency);
    const is = now.find((r) => r.currency === currency);
    if (!was || !is) {
      differences.push(`roll-forward ${currency}: ${was ? 'stated, not found again now' : 'found now, not stated'}`);
      continue;
    }
    for (const key of Object.keys(was) as (keyof RollForwardFigures)[])
      if (key !== 'currency' && was[key] !== is[key])
        differences.push(
          `roll-forward ${currency} ${ROLL_FORWARD_LABELS[key] ?? key}: stated ${shownFigure(was[key], currency)}, re-performed ${shownFigure(is[key], currency)}`,
        );
  }
  return differences;
}

/** Each figure of a currency's population as the workbook's Ledger population names it, and whether it is money. */
const CONTROL_LABELS: Record<keyof CurrencyControls, { label: string; money: boolean }> = {
  cards: { label: 'cards', money: false },
  entries: { label: 'ledger entries', money: false },
  remainingCents: { label: 'remaining on the cards', money: true },
  debitedCents: { label: 'debited, all time', money: true },
  refundedCents: { label: 'refunded, all time', money: true },
  offTheCent: { label: 'cards and entries off the cent', money: false },
};

/** Money as a line shows it to an auditor: its currency, thousands grouped (USD 7,340.75). */
function shownMoney(cents: number, currency: string): string {
  return `${currency} ${groupThousands(formatCents(cents))}`;
}

/** What differs between the sealed population and the re-performed one, figure by figure, named as the workbook names them. */
function differencesOf(sealed: LedgerPopulation, now: LedgerPopulation): string[] {
  const differences: string[] = [];
  const figure = (
    label: string,
    was: number | string,
    is: number | string,
    show = (v: number | string) => String(v),
  ) => {
    if (was !== is) differences.push(`${label}: sealed ${show(was)}, re-performed ${show(is)}`);
  };
  const count = (v: number | string) => (typeof v === 'number' ? v.toLocaleString('en-US') : v);
  figure('cards', sealed.cards, now.cards, count);
  figure('ledger entries', sealed.entries, now.entries, count);
  figure('entries of cards not in the mirror', sealed.orphanEntries, now.orphanEntries, count);
  const currencies = [...new Set([...Object.keys(sealed.byCurrency), ...Object.keys(now.byCurrency)])].sort();
  for (const currency of currencies) {
    const was = sealed.byCurrency[currency];
    const is = now.byCurrency[currency];
    if (!was || !is) {
      differences.push(`${currency}: ${was ? 'sealed, not found again now' : 'found now, not sealed'}`);
      continue;
    }
    for (const key of Object.keys(was) as (keyof CurrencyControls)[]) {
      const { label, money } = CONTROL_LABELS[key] ?? { label: key, money: false };
      figure(`${currency} ${label}`, was[key], is[key], money ? (v) => shownMoney(Number(v), currency) : count);
    }
  }
  figure('Merkle root of the population', sealed.merkleRoot, now.merkleRoot);
  return differences;
}

const noop = (): void => undefined;

/** Other settings for a past night (`verify --run N --set KEY=VALUE`). */
export interface WhatIfSettings {
  failOn?: FailOn;
  materiality?: Materiality;
  /** The card checks' options (expiry grace, double-debit window). */
  options: Partial<CheckOptions>;
}

export interface WhatIf {
  checkRunId: number;
  /** Findings the card checks would draft under the settings and did not, and the reverse. */
  appear: { code: CheckCode; fingerprint: string; record: string; severity: Severity }[];
  disappear: { code: CheckCode; fingerprint: string; record: string; severity: Severity }[];
  verdict: { stated: Verdict; whatIf: Verdict };
  exitCode: { stated: number; whatIf: number };
  /** With --set materiality: the night's open findings that would be material. */
  material: { code: CheckCode; fingerprint: string; stakeCents: number; currency: string }[];
  /** The night's books were matched again (it kept which books its matching read): the books' checks are among those compared. */
  booksKept: boolean;
}

/**
 * Re-performs night `checkRunId` under other settings and says what would change, the sealed
 * night untouched: the findings of the card checks and (given `listsAt`) of the checks over
 * coupons, DP orders and wallets that would appear or disappear, the verdict and exit code, and
 * which findings would be material; and, where the night kept which books its matching read,
 * the books' checks' findings under other matching options.
 */
export async function whatIf(
  mirror: Mirror,
  checkRunId: number,
  settings: WhatIfSettings,
  listsAt?: ListsAt,
): Promise<WhatIf> {
  // Other matching options for books that cannot be matched again are refused before the night is walked.
  const keptSince = await new EvidenceStore(mirror).listsKeptSince();
  if (BOOKS_OPTIONS.some((option) => settings.options[option] !== undefined)) {
    const run = await nightRun(findingsStore(mirror), checkRunId);
    if (!listsKeptAsOf(run, keptSince, listsAt) || booksOfNight(run) === undefined)
      throw new BooksNotMatchable(checkRunId);
  }
  const { findings, run, opening, tallies, redrafted: cards } = await walkNight(mirror, checkRunId);
  const changed = Object.keys(settings.options).length > 0;
  const cardsUnder = changed ? await redraftCardChecks(mirror, run, noop, noop, settings.options) : cards;
  // The query checks too: the bounded ones, and the lists' where the mirror keeps them as of the night's sync.
  const lists = await listsOfNight(mirror, run, keptSince, listsAt, settings.options);
  const sync = await nightSyncOf(mirror, run.syncRunId);
  const { redrafted: night } = await withQueryChecks(mirror, run, sync, cards, lists);
  const { redrafted: underSettings } = changed
    ? await withQueryChecks(mirror, run, sync, cardsUnder, lists, settings.options)
    : { redrafted: night };
  const listed = (from: Redrafted, without: Redrafted) =>
    [...from.fingerprints]
      .filter(([fingerprint]) => !without.fingerprints.has(fingerprint))
      .map(([fingerprint, { code, record, severity }]) => ({ code, fingerprint, record, severity }));
  const appear = listed(underSettings, night);
  const disappear = listed(night, underSettings);

  const stated = summaryOf(run);
  const { findings: statedFindings } = await findings.findingsAndHeld(run);
  const gone = new Set(disappear.map((f) => f.fingerprint));
  const findingsThen = [
    ...statedFindings.filter((f) => !gone.has(f.fingerprint)),
    ...appear.map((f) => ({ severity: f.severity, state: 'new' as const })),
  ];
  const rollForward = nightlyRollForward(tallies.night, opening);
  const verdictThen = verdictOf({ complete: stated.verdict !== 'INCOMPLETE', findings: findingsThen, rollForward });
  const materiality = settings.materiality;
  return {
    checkRunId,
    appear,
    disappear,
    booksKept: lists?.booksKept ?? false,
    verdict: { stated: stated.verdict, whatIf: verdictThen },
    exitCode: {
      stated: stated.exitCode,
      whatIf: exitCodeOf(verdictThen, findingsThen, rollForward, settings.failOn ?? stated.failOn),
    },
    material: materiality === undefined ? [] : materialUnder(materiality, statedFindings, gone, appear, underSettings),
  };
}

/**
 * The findings that would be material under the settings, after their change: the night's own
 * open ones that stay (not those the change makes disappear), and those the change makes
 * appear, with the stake their drafts put on them.
 */
function materialUnder(
  materiality: Materiality,
  statedFindings: readonly {
    code: CheckCode;
    fingerprint: string;
    state: string;
    currency: string | null;
    stakeCents: number;
  }[],
  gone: ReadonlySet<string>,
  appear: readonly { code: CheckCode; fingerprint: string }[],
  underSettings: Redrafted,
): WhatIf['material'] {
  const staying = statedFindings
    .filter((f) => !gone.has(f.fingerprint) && f.state !== 'accepted' && f.currency !== null)
    .map((f) => ({ code: f.code, fingerprint: f.fingerprint, stakeCents: f.stakeCents, currency: f.currency! }));
  const appeared = new Map(appear.map((f) => [f.fingerprint, f.code]));
  const drafted = underSettings.drafted.flatMap(({ check, draft }) => {
    const fingerprint = fingerprintOf(check.code, draft);
    const stakeCents =
      draft.atStakeCents ??
      (draft.measure?.unit === 'cents' ? Math.abs(draft.measure.actual - draft.measure.expected) : 0);
    return appeared.has(fingerprint) && draft.currency !== undefined
      ? [{ code: check.code, fingerprint, stakeCents, currency: draft.currency }]
      : [];
  });
  return [...staying, ...drafted].filter((f) => isMaterial(f, materiality));
}
