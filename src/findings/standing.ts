/**
 * The standing of every finding, decided in one place (pure): from the checks' drafts, the
 * previous complete run's findings, the acceptances and the confirmation's verdicts.
 *
 * - new: first seen this run; open: seen before, first-seen date kept; accepted: a person's
 *   acceptance holds (same particulars, not expired).
 * - in flight: a time-sensitive break on a card that moved (during the sync, or when the
 *   confirmation re-read it) is not judged this run: GC_IN_FLIGHT stands for the card, and a
 *   break seen before is held, its first-seen date kept for the night it is judged again.
 * - event breaks (a change between two syncs) are carried forward until accepted; state
 *   breaks are resolved when a complete run no longer finds them.
 */
import { isTimeSensitive, type FindingDraft } from '../checks/check.js';
import { type Drafted, CHECKS } from '../checks/index.js';
import { cardRef } from '../checks/refs.js';
import type { CardVerdict, Confirmation } from './confirmation.js';
import { ageDaysOf, detailOf, fingerprintOf, type Acceptance, type Finding, type FindingState } from './finding.js';

export interface StandingInput {
  checkRunId: number;
  nowMs: number;
  /** The sync completed and every check ran: only then can absence resolve a break. */
  complete: boolean;
  drafted: readonly Drafted[];
  /**
   * The previous complete run's findings, and the findings it held in flight. `sameFingerprints`
   * is false when that run made its fingerprints another way (before the findings stage, event
   * breaks named the sync that found them): its event breaks are then not carried forward.
   */
  previous: { findings: readonly Finding[]; held: readonly Finding[]; sameFingerprints?: boolean };
  acceptances: readonly Acceptance[];
  /** The confirmation pass's verdicts; null when there was none (`check`). */
  confirmation: Confirmation | null;
}

export interface Standing {
  /** The run's findings: what the files list. */
  findings: Finding[];
  /** Breaks seen before that this run could not judge (their card is in flight). */
  held: Finding[];
  /** Previous findings that are gone: not found, not held, not an event. */
  resolved: Finding[];
}

export function standing(input: StandingInput): Standing {
  const { checkRunId, nowMs } = input;
  const prior = new Map<string, Finding>();
  for (const f of [...input.previous.findings, ...input.previous.held]) prior.set(f.fingerprint, f);
  const acceptances = new Map(input.acceptances.map((a) => [a.fingerprint, a]));
  const verdicts: ReadonlyMap<string, CardVerdict> = input.confirmation?.cards ?? new Map();

  const findings: Finding[] = [];
  const held: Finding[] = [];
  const seen = new Set<string>();
  const moved = new Map<string, { detail: string; currency: string | null }>();
  for (const { check, draft } of [...input.drafted, ...(input.confirmation?.drafts ?? [])]) {
    let fingerprint = fingerprintOf(check.code, draft);
    // Two findings alike in every identity (should not happen): keep both, apart.
    for (let n = 2; seen.has(fingerprint); n += 1)
      fingerprint = fingerprintOf(check.code, { ...draft, identity: [...(draft.identity ?? []), `#${n}`] });
    seen.add(fingerprint);
    const verdict = draft.giftCardId === undefined ? undefined : verdicts.get(draft.giftCardId);
    const unconfirmed = verdict?.verdict === 'not re-readable' ? ` Not confirmed by a re-read: ${verdict.detail}.` : '';
    const finding = fromDraft(
      check,
      { ...draft, message: draft.message + unconfirmed },
      fingerprint,
      prior.get(fingerprint),
      acceptances.get(fingerprint),
      checkRunId,
      nowMs,
    );
    if (verdict?.verdict === 'moved' && isTimeSensitive(check) && draft.giftCardId !== undefined) {
      if (!moved.has(draft.giftCardId))
        moved.set(draft.giftCardId, { detail: verdict.detail, currency: draft.currency ?? null });
      if (prior.has(fingerprint)) held.push(finding);
      continue;
    }
    findings.push(finding);
  }

  const inFlight = new Set(findings.filter((f) => f.code === CHECKS.GC_IN_FLIGHT.code).map((f) => f.entityId));
  for (const [giftCardId, { detail, currency }] of moved) {
    if (inFlight.has(giftCardId)) continue;
    inFlight.add(giftCardId);
    const draft: FindingDraft = {
      entityType: 'giftCard',
      entityId: giftCardId,
      giftCardId,
      ...(currency ? { currency } : {}),
      message: `card ${giftCardId} moved while its break was being confirmed (${detail}); it is checked again next run`,
      records: [cardRef(giftCardId)],
    };
    const fingerprint = fingerprintOf(CHECKS.GC_IN_FLIGHT.code, draft);
    seen.add(fingerprint);
    findings.push(
      fromDraft(
        CHECKS.GC_IN_FLIGHT,
        draft,
        fingerprint,
        prior.get(fingerprint),
        acceptances.get(fingerprint),
        checkRunId,
        nowMs,
      ),
    );
  }

  const resolved: Finding[] = [];
  for (const before of prior.values()) {
    if (seen.has(before.fingerprint)) continue;
    const check = CHECKS[before.code];
    if (isTimeSensitive(check) && before.giftCardId !== null && inFlight.has(before.giftCardId))
      held.push(carried(before, acceptances.get(before.fingerprint), checkRunId, nowMs));
    else if (check.lifecycle === 'event' && input.previous.sameFingerprints !== false)
      findings.push(carried(before, acceptances.get(before.fingerprint), checkRunId, nowMs));
    else if (input.complete) resolved.push(before);
  }
  return { findings, held, resolved };
}

/** A finding's state and acceptance: accepted while an acceptance of these particulars holds. */
function judged(
  detailSha256: string,
  before: Finding | undefined,
  acceptance: Acceptance | undefined,
  nowMs: number,
): { state: FindingState; acceptance: Acceptance | null; acceptanceEnded: string | null } {
  if (acceptance) {
    const accepted = `accepted on ${isoDay(acceptance.acceptedAtMs)}${acceptance.by ? ` by ${acceptance.by}` : ''}`;
    if (acceptance.detailSha256 !== detailSha256)
      return {
        state: before ? 'open' : 'new',
        acceptance: null,
        acceptanceEnded: `${accepted}; the break changed since, so it counts again`,
      };
    if (acceptance.untilMs !== null && acceptance.untilMs <= nowMs)
      return {
        state: before ? 'open' : 'new',
        acceptance: null,
        acceptanceEnded: `${accepted}; the acceptance expired at ${new Date(acceptance.untilMs).toISOString()}`,
      };
    return { state: 'accepted', acceptance, acceptanceEnded: null };
  }
  return { state: before ? 'open' : 'new', acceptance: null, acceptanceEnded: null };
}

const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function fromDraft(
  check: Drafted['check'],
  draft: FindingDraft,
  fingerprint: string,
  before: Finding | undefined,
  acceptance: Acceptance | undefined,
  checkRunId: number,
  nowMs: number,
): Finding {
  const detailSha256 = detailOf(draft);
  const firstSeenAtMs = before?.firstSeenAtMs ?? nowMs;
  const measure = draft.measure;
  return {
    checkRunId,
    fingerprint,
    code: check.code,
    severity: check.severity,
    entityType: draft.entityType,
    entityId: draft.entityId,
    giftCardId: draft.giftCardId ?? null,
    referenceId: draft.referenceId ?? null,
    currency: draft.currency ?? null,
    unit: measure?.unit ?? null,
    expected: measure?.expected ?? null,
    actual: measure?.actual ?? null,
    difference: measure ? measure.actual - measure.expected : null,
    stakeCents: draft.atStakeCents ?? (measure?.unit === 'cents' ? Math.abs(measure.actual - measure.expected) : 0),
    stakeKey: draft.stakeKey ?? fingerprint,
    message: draft.message,
    firstSeenCheckRunId: before?.firstSeenCheckRunId ?? checkRunId,
    firstSeenAtMs,
    ageDays: ageDaysOf(firstSeenAtMs, nowMs),
    records: draft.records,
    detailSha256,
    ...judged(detailSha256, before, acceptance, nowMs),
  };
}

/** A finding of an earlier run, as it stands in this one. */
function carried(before: Finding, acceptance: Acceptance | undefined, checkRunId: number, nowMs: number): Finding {
  return {
    ...before,
    checkRunId,
    ageDays: ageDaysOf(before.firstSeenAtMs, nowMs),
    ...judged(before.detailSha256, before, acceptance, nowMs),
  };
}
