/**
 * The check runner: runs the whole catalogue over the mirror's newest sync, gives every
 * finding its fingerprint and standing across runs (new, open, accepted; resolved since the
 * previous run), computes the liability roll-forward and the verdict, and stores it all in
 * the mirror. Card checks share one streaming pass over the ledger; query checks run as SQL.
 */
import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import { MirrorError } from '../errors.js';
import { formatCents } from '../money.js';
import type { Mirror } from '../db/mirror.js';
import { walkCardLedgers } from './card-ledger.js';
import { DEFAULT_CHECK_OPTIONS, SEVERITIES, type CardCheck, type CheckCode, type CheckContext, type CheckOptions, type FindingDraft, type QueryCheck, type Severity } from './check.js';
import { AGE_BUCKETS, ageBucketOf, ageDaysOf, detailOf, fingerprintOf, type Finding } from './finding.js';
import { CATALOGUE, CHECKS } from './index.js';
import { RollForwardTally, type RollForward } from './rollforward.js';
import { exitCodeOf, verdictOf, type FailOn, type Verdict } from './verdict.js';

export interface RunChecksInput {
  mirror: Mirror;
  options?: Partial<CheckOptions>;
  /** Our merchant; by default the merchant owning most cards and coupons. */
  merchantId?: string;
  failOn?: FailOn;
  /** The run's clock (ages of findings, acceptance expiry); defaults to now. */
  nowMs?: number;
  /**
   * Confirms gift card errors against the service before they are recorded: returns the cards
   * whose break did not reproduce (they moved). Their gift card findings become GC_IN_FLIGHT.
   */
  confirm?: (findings: readonly Finding[]) => Promise<Map<string, string>>;
}

export interface CheckRunSummary {
  checkRunId: number;
  syncRunId: number;
  syncStatus: string;
  verdict: Verdict;
  exitCode: 0 | 1 | 2;
  failOn: FailOn;
  startedAt: string;
  asOf: string;
  merchantId: string | null;
  durationMs: number;
  findings: number;
  bySeverity: Record<Severity, number>;
  byCode: Partial<Record<CheckCode, number>>;
  /** Σ |difference| of money findings not accepted, per currency, as decimals. */
  moneyAtStake: Record<string, string>;
  new: number;
  open: number;
  accepted: number;
  resolved: number;
  ageBuckets: Record<string, number>;
  rollForward: Record<string, string | boolean>[];
  failedChecks: { code: CheckCode; error: string }[];
  checkTimesMs: Partial<Record<CheckCode, number>>;
  cards: number;
  entries: number;
  walkMs: number;
}

export interface CheckRunResult {
  summary: CheckRunSummary;
  findings: Finding[];
  rollForward: RollForward[];
}

interface PreviousRun {
  check_run_id: number;
  sync_run_id: number;
}

/**
 * Runs every check over the newest sync in the mirror and records the run.
 * @throws MirrorError when the mirror holds no sync yet.
 */
export async function runChecks(input: RunChecksInput): Promise<CheckRunResult> {
  const { sqlite } = input.mirror;
  const nowMs = input.nowMs ?? Date.now();
  const started = performance.now();
  const failOn = input.failOn ?? 'error';
  const options: CheckOptions = { ...DEFAULT_CHECK_OPTIONS, ...input.options };
  const sync = sqlite.prepare('SELECT sync_run_id, status, started_at_ms FROM sync_runs ORDER BY sync_run_id DESC LIMIT 1').get() as
    | { sync_run_id: number; status: string; started_at_ms: number }
    | undefined;
  if (!sync) throw new MirrorError(`the mirror ${input.mirror.path} holds no sync yet: run \`ledger-recon sync\` first`);
  const previousSync = sqlite.prepare("SELECT MAX(sync_run_id) FROM sync_runs WHERE status = 'completed' AND sync_run_id < ?").pluck().get(sync.sync_run_id) as number | null;
  const previousRun = sqlite
    .prepare("SELECT check_run_id, sync_run_id FROM check_runs WHERE status = 'completed' AND verdict <> 'INCOMPLETE' ORDER BY check_run_id DESC LIMIT 1")
    .get() as PreviousRun | undefined;
  const merchantId = input.merchantId ?? inferMerchant(input.mirror);
  const checkRunId = Number(
    sqlite
      .prepare(`INSERT INTO check_runs (sync_run_id, status, started_at, started_at_ms, as_of, as_of_ms, merchant_id, options_json) VALUES (?, 'running', ?, ?, ?, ?, ?, ?)`)
      .run(sync.sync_run_id, new Date(nowMs).toISOString(), nowMs, new Date(sync.started_at_ms).toISOString(), sync.started_at_ms, merchantId, JSON.stringify({ ...options, failOn }))
      .lastInsertRowid,
  );
  const context: CheckContext = { sqlite, syncRunId: sync.sync_run_id, previousSyncRunId: previousSync, asOfMs: sync.started_at_ms, merchantId, options };

  const drafts: { code: CheckCode; severity: Severity; draft: FindingDraft }[] = [];
  const failedChecks: { code: CheckCode; error: string }[] = [];
  const times: Partial<Record<CheckCode, number>> = {};
  const fail = (code: CheckCode, error: unknown): void => {
    failedChecks.push({ code, error: error instanceof Error ? error.message : String(error) });
  };

  // ---- card checks: one ordered pass over cards and their ledgers -----------------------
  const inFlight = new Set(sqlite.prepare('SELECT gift_card_id FROM gift_cards_in_flight WHERE sync_run_id = ?').pluck().all(sync.sync_run_id) as string[]);
  const cardChecks = CATALOGUE.filter((c): c is CardCheck => c.kind === 'card');
  const broken = new Set<CheckCode>();
  const tally = new RollForwardTally(previousRun?.sync_run_id ?? null);
  const walkStarted = performance.now();
  const cardContext = { options, merchantId };
  const orphanCards = new Set<string>();
  let cards = 0;
  let entries = 0;
  for (const ledger of walkCardLedgers(sqlite, (id) => orphanCards.add(id))) {
    cards += 1;
    entries += ledger.entries.length;
    const moved = inFlight.has(ledger.card.giftCardId);
    tally.add(ledger, moved);
    // Timing every check on every card costs more than the checks: time one card in 64.
    const timing = cards % TIMING_SAMPLE === 0;
    for (const check of cardChecks) {
      if ((moved && check.timeSensitive) || broken.has(check.code)) continue;
      const t = timing ? performance.now() : 0;
      try {
        for (const draft of check.inspect(ledger, cardContext)) drafts.push({ code: check.code, severity: check.severity, draft });
      } catch (error) {
        broken.add(check.code);
        fail(check.code, error);
      }
      if (timing) times[check.code] = (times[check.code] ?? 0) + (performance.now() - t) * TIMING_SAMPLE;
    }
  }
  context.orphanCardIds = [...orphanCards];
  const walkMs = performance.now() - walkStarted;

  // ---- query checks ------------------------------------------------------------------------
  for (const check of CATALOGUE.filter((c): c is QueryCheck => c.kind === 'query')) {
    const t = performance.now();
    try {
      for (const draft of check.run(context)) drafts.push({ code: check.code, severity: check.severity, draft });
    } catch (error) {
      fail(check.code, error);
    }
    times[check.code] = performance.now() - t;
  }

  noteUnlisted(sqlite, drafts);

  // ---- standing across runs ------------------------------------------------------------------
  const previous = new Map<string, { first_seen_check_run_id: number; first_seen_at_ms: number }>();
  if (previousRun) {
    for (const row of sqlite.prepare('SELECT fingerprint, first_seen_check_run_id, first_seen_at_ms FROM findings WHERE check_run_id = ?').iterate(previousRun.check_run_id) as Iterable<{ fingerprint: string; first_seen_check_run_id: number; first_seen_at_ms: number }>) {
      previous.set(row.fingerprint, row);
    }
  }
  const acceptances = new Map(
    (sqlite.prepare('SELECT fingerprint, detail_sha256, until_ms FROM finding_acceptances').all() as { fingerprint: string; detail_sha256: string; until_ms: number | null }[]).map((a) => [a.fingerprint, a]),
  );
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const { code, severity, draft } of drafts) {
    let fingerprint = fingerprintOf(code, draft);
    // Two findings alike in every identity (should not happen): keep both, apart.
    for (let n = 2; seen.has(fingerprint); n += 1) fingerprint = fingerprintOf(code, { ...draft, identity: [...(draft.identity ?? []), `#${n}`] });
    seen.add(fingerprint);
    const detail = detailOf(draft);
    const before = previous.get(fingerprint);
    const acceptance = acceptances.get(fingerprint);
    const accepted = acceptance !== undefined && acceptance.detail_sha256 === detail && (acceptance.until_ms === null || acceptance.until_ms > nowMs);
    const firstSeenAtMs = before?.first_seen_at_ms ?? nowMs;
    findings.push({
      checkRunId,
      fingerprint,
      code,
      severity,
      entityType: draft.entityType,
      entityId: draft.entityId,
      giftCardId: draft.giftCardId ?? null,
      referenceId: draft.referenceId ?? null,
      currency: draft.currency ?? null,
      unit: draft.measure?.unit ?? null,
      expected: draft.measure?.expected ?? null,
      actual: draft.measure?.actual ?? null,
      difference: draft.measure ? draft.measure.actual - draft.measure.expected : null,
      message: draft.message,
      state: accepted ? 'accepted' : before ? 'open' : 'new',
      firstSeenCheckRunId: before?.first_seen_check_run_id ?? checkRunId,
      firstSeenAtMs,
      ageDays: ageDaysOf(firstSeenAtMs, nowMs),
      records: draft.records,
      detailSha256: detail,
    });
  }

  if (input.confirm) {
    const moved = await input.confirm(findings);
    if (moved.size > 0) demoteToInFlight(input.mirror, sync.sync_run_id, findings, moved, { checkRunId, nowMs, previous });
  }

  const complete = sync.status === 'completed' && failedChecks.length === 0;
  const openings = new Map<string, number>();
  if (previousRun) {
    for (const row of sqlite.prepare('SELECT currency, cards_remaining_cents FROM liability_rollforward WHERE check_run_id = ?').all(previousRun.check_run_id) as { currency: string; cards_remaining_cents: number }[]) {
      openings.set(row.currency, row.cards_remaining_cents);
    }
  }
  const rollForward = tally.result(openings);
  const verdict = verdictOf({ complete, findings, rollForward });
  const exitCode = exitCodeOf(verdict, findings, rollForward, failOn);

  // Resolved means gone from a complete run: over missing data, absence proves nothing.
  const resolved = complete && previousRun ? storeResolved(input.mirror, checkRunId, previousRun.check_run_id, seen) : 0;
  storeFindings(input.mirror, findings);
  storeRollForward(input.mirror, checkRunId, rollForward);

  const summary: CheckRunSummary = {
    checkRunId,
    syncRunId: sync.sync_run_id,
    syncStatus: sync.status,
    verdict,
    exitCode,
    failOn,
    startedAt: new Date(nowMs).toISOString(),
    asOf: new Date(sync.started_at_ms).toISOString(),
    merchantId,
    durationMs: Math.round(performance.now() - started),
    findings: findings.length,
    bySeverity: Object.fromEntries(SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length])) as Record<Severity, number>,
    byCode: countBy(findings, (f) => f.code),
    moneyAtStake: moneyAtStake(findings),
    new: findings.filter((f) => f.state === 'new').length,
    open: findings.filter((f) => f.state === 'open').length,
    accepted: findings.filter((f) => f.state === 'accepted').length,
    resolved,
    ageBuckets: Object.fromEntries(AGE_BUCKETS.map((b) => [b, findings.filter((f) => f.state !== 'accepted' && ageBucketOf(f.ageDays) === b).length])),
    rollForward: rollForward.map((r) => ({
      currency: r.currency,
      opening: formatCents(r.openingCents),
      issued: formatCents(r.issuedCents),
      debited: formatCents(r.debitedCents),
      refunded: formatCents(r.refundedCents),
      voided: formatCents(r.voidedCents),
      expired: formatCents(r.expiredCents),
      closing: formatCents(r.closingCents),
      cardsRemaining: formatCents(r.cardsRemainingCents),
      difference: formatCents(r.differenceCents),
      closes: r.differenceCents === 0,
    })),
    failedChecks,
    checkTimesMs: Object.fromEntries(Object.entries(times).map(([code, ms]) => [code, Math.round(ms)])),
    cards,
    entries,
    walkMs: Math.round(walkMs),
  };
  sqlite
    .prepare(`UPDATE check_runs SET status = 'completed', verdict = ?, finished_at_ms = ?, failed_checks_json = ?, summary_json = ? WHERE check_run_id = ?`)
    .run(verdict, nowMs + summary.durationMs, failedChecks.length > 0 ? JSON.stringify(failedChecks) : null, JSON.stringify(summary), checkRunId);
  return { summary, findings, rollForward };
}

/**
 * Cards whose break did not reproduce when re-read: recorded as in flight for this sync, their
 * gift card findings replaced by one GC_IN_FLIGHT each (checked again next run).
 */
function demoteToInFlight(
  { sqlite }: Mirror,
  syncRunId: number,
  findings: Finding[],
  moved: ReadonlyMap<string, string>,
  run: { checkRunId: number; nowMs: number; previous: ReadonlyMap<string, { first_seen_check_run_id: number; first_seen_at_ms: number }> },
): void {
  const insert = sqlite.prepare('INSERT OR REPLACE INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?)');
  sqlite.transaction(() => {
    for (const [giftCardId, detail] of moved) insert.run(syncRunId, giftCardId, detail);
  })();
  const kept = findings.filter((f) => !(f.code.startsWith('GC_') && f.giftCardId !== null && moved.has(f.giftCardId)));
  const demoted = [...moved].filter(([id]) => !kept.some((f) => f.code === 'GC_IN_FLIGHT' && f.entityId === id));
  const inFlight = CHECKS.GC_IN_FLIGHT;
  for (const [giftCardId, detail] of demoted) {
    const currency = findings.find((f) => f.giftCardId === giftCardId)?.currency ?? null;
    const draft: FindingDraft = { entityType: 'giftCard', entityId: giftCardId, giftCardId, ...(currency ? { currency } : {}), message: `card ${giftCardId} moved while its break was being confirmed (${detail}); it is checked again next run`, records: [{ type: 'giftCard', id: giftCardId }] };
    const fingerprint = fingerprintOf(inFlight.code, draft);
    const before = run.previous.get(fingerprint);
    const firstSeenAtMs = before?.first_seen_at_ms ?? run.nowMs;
    kept.push({
      checkRunId: run.checkRunId, fingerprint, code: inFlight.code, severity: inFlight.severity, entityType: 'giftCard', entityId: giftCardId, giftCardId, referenceId: null, currency,
      unit: null, expected: null, actual: null, difference: null, message: draft.message, state: before ? 'open' : 'new', firstSeenCheckRunId: before?.first_seen_check_run_id ?? run.checkRunId,
      firstSeenAtMs, ageDays: ageDaysOf(firstSeenAtMs, run.nowMs), records: draft.records, detailSha256: detailOf(draft),
    });
  }
  findings.splice(0, findings.length, ...kept);
}

const TIMING_SAMPLE = 64;

/** The merchant owning most of the mirrored cards and coupons: ours, unless configured. */
function inferMerchant({ sqlite }: Mirror): string | null {
  return (
    (sqlite
      .prepare(
        `SELECT merchant_id FROM (SELECT merchant_id, COUNT(*) AS n FROM gift_cards GROUP BY merchant_id UNION ALL SELECT merchant_id, COUNT(*) FROM coupons GROUP BY merchant_id)
         GROUP BY merchant_id ORDER BY SUM(n) DESC, merchant_id LIMIT 1`,
      )
      .pluck()
      .get() as string | undefined) ?? null
  );
}

function countBy<T, K extends string>(items: readonly T[], key: (item: T) => K): Partial<Record<K, number>> {
  const counts: Partial<Record<K, number>> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function moneyAtStake(findings: readonly Finding[]): Record<string, string> {
  const totals = new Map<string, number>();
  for (const f of findings) {
    if (f.unit !== 'cents' || f.difference === null || f.currency === null || f.state === 'accepted' || f.severity === 'info') continue;
    totals.set(f.currency, (totals.get(f.currency) ?? 0) + Math.abs(f.difference));
  }
  return Object.fromEntries([...totals].sort(([a], [b]) => a.localeCompare(b)).map(([currency, cents]) => [currency, formatCents(cents)]));
}

function storeFindings({ sqlite }: Mirror, findings: readonly Finding[]): void {
  const insert = sqlite.prepare(
    `INSERT INTO findings (check_run_id, fingerprint, code, severity, entity_type, entity_id, gift_card_id, reference_id, currency, unit, expected, actual, difference, message, state,
       first_seen_check_run_id, first_seen_at, first_seen_at_ms, age_days, records_json, detail_sha256)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  sqlite.transaction(() => {
    for (const f of findings) {
      insert.run(f.checkRunId, f.fingerprint, f.code, f.severity, f.entityType, f.entityId, f.giftCardId, f.referenceId, f.currency, f.unit, f.expected, f.actual, f.difference, f.message, f.state,
        f.firstSeenCheckRunId, new Date(f.firstSeenAtMs).toISOString(), f.firstSeenAtMs, f.ageDays, JSON.stringify(f.records), f.detailSha256);
    }
  })();
}

function storeResolved({ sqlite }: Mirror, checkRunId: number, previousRunId: number, current: ReadonlySet<string>): number {
  const before = sqlite.prepare('SELECT fingerprint, code, severity, entity_type, entity_id, message, first_seen_at FROM findings WHERE check_run_id = ?').all(previousRunId) as {
    fingerprint: string;
    code: string;
    severity: string;
    entity_type: string;
    entity_id: string;
    message: string;
    first_seen_at: string;
  }[];
  const gone = before.filter((f) => !current.has(f.fingerprint));
  const insert = sqlite.prepare('INSERT INTO resolved_findings (check_run_id, fingerprint, code, severity, entity_type, entity_id, message, first_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  sqlite.transaction(() => {
    for (const f of gone) insert.run(checkRunId, f.fingerprint, f.code, f.severity, f.entity_type, f.entity_id, f.message, f.first_seen_at);
  })();
  return gone.length;
}

function storeRollForward({ sqlite }: Mirror, checkRunId: number, rows: readonly RollForward[]): void {
  const insert = sqlite.prepare(
    `INSERT INTO liability_rollforward (check_run_id, currency, opening_cents, issued_cents, debited_cents, refunded_cents, voided_cents, expired_cents, closing_cents, cards_remaining_cents, difference_cents)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  sqlite.transaction(() => {
    for (const r of rows) insert.run(checkRunId, r.currency, r.openingCents, r.issuedCents, r.debitedCents, r.refundedCents, r.voidedCents, r.expiredCents, r.closingCents, r.cardsRemainingCents, r.differenceCents);
  })();
}

/**
 * A break on a coupon or order that the service no longer lists stays open: taking a record
 * out of the list settles nothing. Its message says since which sync, so that nobody looks
 * for the record in the service in vain. The break's particulars (and so an acceptance) are
 * unchanged.
 */
function noteUnlisted(sqlite: Database.Database, drafts: ReadonlyArray<{ draft: FindingDraft }>): void {
  const unlisted = new Map<string, number>();
  const rows = sqlite.prepare(
    `SELECT 'coupon' AS type, coupon_id AS id, vanished_sync_run_id AS since FROM coupons WHERE vanished_sync_run_id IS NOT NULL
     UNION ALL SELECT 'dpOrder', order_id, vanished_sync_run_id FROM dp_orders WHERE vanished_sync_run_id IS NOT NULL`,
  );
  for (const row of rows.iterate() as Iterable<{ type: string; id: string; since: number }>) unlisted.set(`${row.type} ${row.id}`, row.since);
  if (unlisted.size === 0) return;
  for (const { draft } of drafts) {
    const gone = draft.records.flatMap((record) => {
      const since = unlisted.get(`${record.type} ${record.id}`);
      return since === undefined ? [] : [`${record.type === 'coupon' ? 'coupon' : 'order'} ${record.id} (since sync ${since})`];
    });
    if (gone.length > 0) draft.message += ` The service no longer lists ${gone.join(' or ')}; the mirror keeps ${gone.length === 1 ? 'it' : 'them'} as last read.`;
  }
}
