import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHECKS, type Drafted } from '../../src/checks/index.js';
import { cardBalanceStake, cardRef, cents, count, entryRef, walletRef } from '../../src/checks/refs.js';
import { judge, type Confirmation } from '../../src/findings/confirmation.js';
import { ageDaysOf, DAY_MS, detailOf, fingerprintOf, type Acceptance } from '../../src/findings/finding.js';
import { standing, type Standing, type StandingInput } from '../../src/findings/standing.js';
import { summarise } from '../../src/findings/summary.js';
import { runs } from '../support/property.js';

const T0 = Date.parse('2026-11-01T02:00:00Z');
const CARD = 'card-1';

const balance = (card = CARD, difference = -2_000): Drafted => ({
  check: CHECKS.GC_BALANCE_MISMATCH,
  draft: {
    entityType: 'giftCard',
    entityId: card,
    giftCardId: card,
    currency: 'USD',
    measure: cents(10_000, 10_000 + difference),
    stakeKey: cardBalanceStake(card),
    message: `balance of ${card}`,
    records: [cardRef(card)],
  },
});
const gap = (card = CARD): Drafted => ({
  check: CHECKS.GC_CHAIN_GAP,
  draft: {
    entityType: 'giftCardTransaction',
    entityId: `${card}-e2`,
    giftCardId: card,
    currency: 'USD',
    measure: cents(9_000, 7_000),
    stakeKey: cardBalanceStake(card),
    message: `gap on ${card}`,
    records: [cardRef(card), entryRef(`${card}-e1`), entryRef(`${card}-e2`)],
  },
});
const drift = (wallet = 'wallet-1', between: [number, number] = [1, 2]): Drafted => ({
  check: CHECKS.DP_WALLET_DRIFT,
  draft: {
    entityType: 'dpWallet',
    entityId: wallet,
    currency: 'EUR',
    identity: between.map(String),
    measure: cents(50_000, 48_766),
    message: `drift of ${wallet}`,
    records: [walletRef(wallet)],
  },
});
const inFlight = (card = CARD): Drafted => ({
  check: CHECKS.GC_IN_FLIGHT,
  draft: {
    entityType: 'giftCard',
    entityId: card,
    giftCardId: card,
    currency: 'USD',
    message: `${card} moved`,
    records: [cardRef(card)],
  },
});
const overRedeemed = (coupon = 'coupon-1'): Drafted => ({
  check: CHECKS.CV_OVER_REDEEMED,
  draft: {
    entityType: 'coupon',
    entityId: coupon,
    measure: count(5, 7),
    message: `${coupon} over`,
    records: [{ type: 'coupon', id: coupon }],
  },
});

const fp = ({ check, draft }: Drafted): string => fingerprintOf(check.code, draft);
const moved = (card = CARD): Confirmation => ({
  cards: new Map([[card, { verdict: 'moved', detail: 'the card reads version 3' }]]),
  drafts: [],
});

/** Runs nights in a row, each compared with the one before (every night complete unless said). */
function nights(...inputs: Array<Partial<StandingInput> & { drafted: Drafted[] }>): Standing[] {
  const results: Standing[] = [];
  inputs.forEach((night, i) => {
    const previous = results.at(-1);
    results.push(
      standing({
        checkRunId: i + 1,
        nowMs: T0 + i * DAY_MS,
        complete: true,
        previous: previous ? { findings: previous.findings, held: previous.held } : { findings: [], held: [] },
        acceptances: [],
        confirmation: null,
        ...night,
      }),
    );
  });
  return results;
}

const states = (s: Standing): Record<string, string> =>
  Object.fromEntries(s.findings.map((f) => [`${f.code} ${f.entityId}`, f.state]));

describe('the standing of findings across nights', () => {
  it('shows a break new, then open with its first-seen date and age, then resolved once when the records agree', () => {
    const [first, second, third, fourth] = nights(
      { drafted: [balance(), gap()] },
      { drafted: [balance(), gap()] },
      { drafted: [gap()] },
      { drafted: [gap()] },
    );
    expect(states(first!)).toEqual({ [`GC_BALANCE_MISMATCH ${CARD}`]: 'new', [`GC_CHAIN_GAP ${CARD}-e2`]: 'new' });
    expect(second!.findings.find((f) => f.code === 'GC_CHAIN_GAP')).toMatchObject({
      state: 'open',
      firstSeenCheckRunId: 1,
      firstSeenAtMs: T0,
      ageDays: 1,
    });
    expect(third!.resolved.map((f) => f.code)).toEqual(['GC_BALANCE_MISMATCH']);
    expect(fourth!.resolved).toEqual([]);
  });

  it('resolves nothing over an incomplete run: absence over missing data proves nothing', () => {
    const [, second] = nights({ drafted: [balance()] }, { drafted: [], complete: false });
    expect(second!.resolved).toEqual([]);
  });

  it('carries an event break forward as open on every later night, until it is accepted; a quiet night does not resolve it', () => {
    const [, second, third] = nights({ drafted: [drift()] }, { drafted: [] }, { drafted: [] });
    for (const night of [second!, third!]) {
      expect(night.findings).toMatchObject([
        { code: 'DP_WALLET_DRIFT', state: 'open', firstSeenCheckRunId: 1, fingerprint: fp(drift()) },
      ]);
      expect(night.resolved).toEqual([]);
    }
    const acceptance: Acceptance = {
      fingerprint: fp(drift()),
      note: 'fee agreed',
      by: 'ops',
      acceptedAtMs: T0 + DAY_MS,
      untilMs: null,
      detailSha256: detailOf(drift().draft),
    };
    const [, , accepted] = nights({ drafted: [drift()] }, { drafted: [] }, { drafted: [], acceptances: [acceptance] });
    expect(accepted!.findings).toMatchObject([{ code: 'DP_WALLET_DRIFT', state: 'accepted', acceptance }]);
  });

  it('does not carry an event break from a run whose fingerprints were made before the findings stage: the checks draft it anew', () => {
    const [first] = nights({ drafted: [drift()] });
    const upgraded = standing({
      checkRunId: 2,
      nowMs: T0 + DAY_MS,
      complete: true,
      drafted: [drift('wallet-1', [1, 2])],
      previous: { ...first!, sameFingerprints: false },
      acceptances: [],
      confirmation: null,
    });
    expect(upgraded.findings.map((f) => [f.code, f.state])).toEqual([['DP_WALLET_DRIFT', 'open']]);
    const legacy = standing({
      checkRunId: 2,
      nowMs: T0 + DAY_MS,
      complete: true,
      drafted: [],
      previous: { ...first!, sameFingerprints: false },
      acceptances: [],
      confirmation: null,
    });
    expect([legacy.findings, legacy.resolved.map((f) => f.code)]).toEqual([[], ['DP_WALLET_DRIFT']]);
  });

  it('puts the time-sensitive breaks of a card that moved on in flight, holding one seen before, and keeps its entry breaks', () => {
    const [, second, third] = nights(
      { drafted: [balance(), gap()] },
      { drafted: [balance(), gap()], confirmation: moved() },
      { drafted: [balance(), gap()] },
    );
    expect(states(second!)).toEqual({ [`GC_CHAIN_GAP ${CARD}-e2`]: 'open', [`GC_IN_FLIGHT ${CARD}`]: 'new' });
    expect(second!.findings.find((f) => f.code === 'GC_IN_FLIGHT')?.message).toMatch(
      /moved while its break was being confirmed \(the card reads version 3\)/,
    );
    expect(second!.held.map((f) => f.code)).toEqual(['GC_BALANCE_MISMATCH']);
    expect(second!.resolved).toEqual([]);
    // Judged again the night after: still open since night 1, and the in-flight note resolved.
    expect(third!.findings.find((f) => f.code === 'GC_BALANCE_MISMATCH')).toMatchObject({
      state: 'open',
      firstSeenCheckRunId: 1,
    });
    expect(third!.resolved.map((f) => f.code)).toEqual(['GC_IN_FLIGHT']);
  });

  it('holds, not resolves, a balance break whose card the sync found in flight (its balance checks skipped)', () => {
    const [, second] = nights({ drafted: [balance()] }, { drafted: [inFlight()] });
    expect(second!.held.map((f) => [f.code, f.firstSeenCheckRunId])).toEqual([['GC_BALANCE_MISMATCH', 1]]);
    expect(second!.resolved).toEqual([]);
  });

  it('never demotes a break about entries themselves, even when its card moved', () => {
    const [only] = nights({ drafted: [gap()], confirmation: moved() });
    expect(states(only!)).toEqual({ [`GC_CHAIN_GAP ${CARD}-e2`]: 'new' });
  });

  it('keeps a break whose card cannot be re-read, saying so', () => {
    const [only] = nights({
      drafted: [balance()],
      confirmation: {
        cards: new Map([[CARD, { verdict: 'not re-readable', detail: 'reading the card by ID answers 404' }]]),
        drafts: [],
      },
    });
    expect(only!.findings).toMatchObject([
      {
        code: 'GC_BALANCE_MISMATCH',
        message: `balance of ${CARD} Not confirmed by a re-read: reading the card by ID answers 404.`,
      },
    ]);
  });

  it('lets an acceptance hold until it expires or the break changes, and says which ended it', () => {
    const accepted: Acceptance = {
      fingerprint: fp(balance()),
      note: 'known',
      by: 'ops',
      acceptedAtMs: T0,
      untilMs: T0 + 2 * DAY_MS,
      detailSha256: detailOf(balance().draft),
    };
    const [first, second, third] = nights(
      { drafted: [balance()], acceptances: [accepted] },
      { drafted: [balance(CARD, -3_000)], acceptances: [accepted] },
      { drafted: [balance()], acceptances: [accepted] },
    );
    expect(first!.findings[0]).toMatchObject({ state: 'accepted', acceptance: accepted, acceptanceEnded: null });
    expect(second!.findings[0]).toMatchObject({
      state: 'open',
      acceptance: null,
      acceptanceEnded: 'accepted on 2026-11-01 by ops; the break changed since, so it counts again',
    });
    expect(third!.findings[0]).toMatchObject({
      state: 'open',
      acceptanceEnded: 'accepted on 2026-11-01 by ops; the acceptance expired at 2026-11-03T02:00:00.000Z',
    });
  });
});

describe('money at stake', () => {
  it('counts a card’s balance difference once whatever number of codes point at it; counts are not money', () => {
    const doubleDebit: Drafted = {
      check: CHECKS.GC_SUSPECTED_DOUBLE_DEBIT,
      draft: {
        entityType: 'giftCard',
        entityId: 'card-2',
        giftCardId: 'card-2',
        currency: 'USD',
        atStakeCents: 1_250,
        identity: ['e9'],
        message: 'twice',
        records: [cardRef('card-2')],
      },
    };
    const [only] = nights({ drafted: [balance(), gap(), doubleDebit, overRedeemed(), drift()] });
    const summary = summarise({
      checkRunId: 1,
      sync: { syncRunId: 1, status: 'completed', startedAtMs: T0 },
      complete: true,
      failOn: 'error',
      startedAtMs: T0,
      merchantId: null,
      durationMs: 0,
      standing: only!,
      rollForward: [],
      failedChecks: [],
      checkTimesMs: {},
      cards: 0,
      entries: 0,
      walkMs: 0,
    });
    expect(summary.moneyAtStake).toEqual({ EUR: '12.34', USD: '32.50' });
  });
});

describe('the confirmation’s verdicts', () => {
  const entry = {
    giftCardId: CARD,
    type: 'DEBIT',
    amountCents: 500,
    beforeCents: 1_000,
    afterCents: 500,
    createdAtMs: T0,
  };
  it('calls a card moved when it reads another balance or status, and confirmed when it reads the same or only a new version', () => {
    const mirrored = { version: 2, remainingCents: 500, status: 'ACTIVE' };
    const { cards } = judge({
      cards: [
        { giftCardId: 'a', mirrored, read: { kind: 'found', record: mirrored } },
        { giftCardId: 'v', mirrored, read: { kind: 'found', record: { ...mirrored, version: 7 } } },
        { giftCardId: 's', mirrored, read: { kind: 'found', record: { ...mirrored, version: 3, status: 'FROZEN' } } },
        {
          giftCardId: 'b',
          mirrored,
          read: { kind: 'found', record: { ...mirrored, version: 3, remainingCents: 250 } },
        },
        { giftCardId: 'c', mirrored, read: { kind: 'not found' } },
      ],
      entries: [],
    });
    expect(cards.get('a')).toEqual({ verdict: 'confirmed' });
    expect(cards.get('v')).toEqual({ verdict: 'confirmed' });
    expect(cards.get('s')).toMatchObject({ verdict: 'moved' });
    expect(cards.get('b')).toMatchObject({ verdict: 'moved' });
    expect(cards.get('c')).toEqual({ verdict: 'not re-readable', detail: 'reading the card by ID answers 404' });
  });

  it('turns a listed entry that reads 404 or other figures by ID into a break; a vanished entry that reads 404 confirms its own', () => {
    const { drafts } = judge({
      cards: [],
      entries: [
        { transactionId: 'listed-404', mirrored: { ...entry, vanishedSyncRunId: null }, read: { kind: 'not found' } },
        {
          transactionId: 'listed-other',
          mirrored: { ...entry, vanishedSyncRunId: null },
          read: { kind: 'found', record: { ...entry, amountCents: 600 } },
        },
        {
          transactionId: 'listed-same',
          mirrored: { ...entry, vanishedSyncRunId: null },
          read: { kind: 'found', record: entry },
        },
        { transactionId: 'vanished-404', mirrored: { ...entry, vanishedSyncRunId: 3 }, read: { kind: 'not found' } },
      ],
    });
    expect(drafts.map((d) => [d.check.code, d.check.severity, d.draft.entityId, d.draft.identity])).toEqual([
      ['GC_LEDGER_REWRITTEN', 'error', 'listed-404', ['read by ID', 'not found']],
      ['GC_LEDGER_REWRITTEN', 'error', 'listed-other', ['read by ID', 'differs']],
    ]);
    expect(drafts[1]!.draft.message).toMatch(/\(amountCents\)/);
  });
});

/**
 * A world of a few breaks over random nights. State breaks come and go (planted, repaired,
 * their card in flight); event breaks are drafted from the night they happen on (or only
 * that night); a person may accept any break on any night.
 */
describe('a property over random sequences of nights', () => {
  type Night = { present: boolean[]; cardMoved: boolean[]; accept: number | null };
  const BREAKS = 4;
  const nightArb = fc.record({
    present: fc.array(fc.boolean(), { minLength: BREAKS, maxLength: BREAKS }),
    cardMoved: fc.array(fc.boolean(), { minLength: BREAKS, maxLength: BREAKS }),
    accept: fc.option(fc.integer({ min: 0, max: BREAKS * 2 - 1 }), { nil: null }),
  });
  const stateDraft = (i: number): Drafted => balance(`card-${i}`, -(i + 1) * 100);
  const eventDraft = (i: number): Drafted => drift(`wallet-${i}`);

  it('reports a break every night from the one it is planted on until repaired or accepted, resolves a repaired state break once, and counts what it lists', () => {
    fc.assert(
      fc.property(
        fc.array(nightArb, { minLength: 1, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: BREAKS, maxLength: BREAKS }),
        (plan: Night[], eventsRedrafted: boolean[]) => {
          const acceptances: Acceptance[] = [];
          const eventSince: (number | null)[] = Array.from({ length: BREAKS }, () => null);
          let previous: Standing | undefined;
          plan.forEach((night, n) => {
            const drafted: Drafted[] = [];
            const movedCards = new Map<string, { verdict: 'moved'; detail: string }>();
            for (let i = 0; i < BREAKS; i += 1) {
              if (night.present[i]) drafted.push(stateDraft(i));
              if (night.present[i] && night.cardMoved[i])
                movedCards.set(`card-${i}`, { verdict: 'moved', detail: 'moved' });
              if (night.present[i] && eventSince[i] === null) eventSince[i] = n;
              if (eventSince[i] !== null && (eventSince[i] === n || eventsRedrafted[i])) drafted.push(eventDraft(i));
            }
            if (night.accept !== null) {
              const d = night.accept < BREAKS ? stateDraft(night.accept) : eventDraft(night.accept - BREAKS);
              acceptances.push({
                fingerprint: fp(d),
                note: 'ok',
                by: 'p',
                acceptedAtMs: T0,
                untilMs: null,
                detailSha256: detailOf(d.draft),
              });
            }
            const result = standing({
              checkRunId: n + 1,
              nowMs: T0 + n * DAY_MS,
              complete: true,
              drafted,
              previous: previous ? { findings: previous.findings, held: previous.held } : { findings: [], held: [] },
              acceptances,
              confirmation: { cards: movedCards, drafts: [] },
            });
            const listed = new Map(result.findings.map((f) => [f.fingerprint, f]));
            const accepted = new Set(acceptances.map((a) => a.fingerprint));
            for (let i = 0; i < BREAKS; i += 1) {
              // A state break present and judged is listed; one whose card moved is held or in flight.
              const state = stateDraft(i);
              if (night.present[i] && !night.cardMoved[i]) expect(listed.has(fp(state))).toBe(true);
              if (night.present[i] && night.cardMoved[i]) expect(listed.has(fp(inFlight(`card-${i}`)))).toBe(true);
              // Repaired: resolved on this night exactly when the night before listed or held it.
              const wasThere = [...(previous?.findings ?? []), ...(previous?.held ?? [])].some(
                (f) => f.fingerprint === fp(state),
              );
              expect(result.resolved.some((f) => f.fingerprint === fp(state))).toBe(wasThere && !night.present[i]);
              // An event break stays listed every night from the one it happened on.
              const event = eventDraft(i);
              if (eventSince[i] !== null)
                expect(listed.get(fp(event))?.state).toBe(
                  accepted.has(fp(event)) ? 'accepted' : n === eventSince[i] ? 'new' : 'open',
                );
            }
            // Resolved only what the night before listed or held, and never an event.
            const before = new Set(
              [...(previous?.findings ?? []), ...(previous?.held ?? [])].map((f) => f.fingerprint),
            );
            for (const f of result.resolved) {
              expect(before.has(f.fingerprint)).toBe(true);
              expect(CHECKS[f.code].lifecycle).toBe('state');
            }
            const summary = summarise({
              checkRunId: n + 1,
              sync: { syncRunId: n + 1, status: 'completed', startedAtMs: T0 },
              complete: true,
              failOn: 'error',
              startedAtMs: T0,
              merchantId: null,
              durationMs: 0,
              standing: result,
              rollForward: [],
              failedChecks: [],
              checkTimesMs: {},
              cards: 0,
              entries: 0,
              walkMs: 0,
            });
            expect(summary.new + summary.open + summary.accepted).toBe(result.findings.length);
            expect(summary.findings).toBe(result.findings.length);
            expect(Object.values(summary.byCode).reduce((a, b) => a + b, 0)).toBe(result.findings.length);
            expect(summary.resolved).toBe(result.resolved.length);
            previous = result;
          });
        },
      ),
      runs(300),
    );
  });
});

describe("a finding's age", () => {
  it('counts calendar days in UTC as a person does: seen last night a little later in the second, one day old tonight', () => {
    const seen = Date.parse('2026-11-01T02:30:00.400Z');
    expect(ageDaysOf(seen, Date.parse('2026-11-02T02:30:00.200Z'))).toBe(1);
    expect(ageDaysOf(seen, Date.parse('2026-11-01T23:59:59.999Z'))).toBe(0);
    expect(ageDaysOf(Date.parse('2026-11-01T23:59:00Z'), Date.parse('2026-11-02T00:01:00Z'))).toBe(1);
    expect(ageDaysOf(seen, Date.parse('2026-12-01T02:29:00Z'))).toBe(30);
  });

  it('is the number of nightly cut-offs since first seen, for any time of the nights (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: DAY_MS - 1 }),
        fc.integer({ min: 0, max: DAY_MS - 1 }),
        (day, nights, first, later) => {
          const start = Date.parse('2026-01-01T00:00:00Z') + day * DAY_MS;
          expect(ageDaysOf(start + first, start + nights * DAY_MS + later)).toBe(
            nights === 0 && later < first ? 0 : nights,
          );
        },
      ),
    );
  });
});
