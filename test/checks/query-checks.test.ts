import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckContext, FindingDraft, RowsCheck } from '../../src/checks/check.js';
import { CHECKS } from '../../src/checks/index.js';
import { checksStore, type CouponCounts } from '../../src/checks/store.js';
import { sha256 } from '../../src/sync/rows.js';
import { DEFAULT_CHECK_OPTIONS } from '../../src/checks/check.js';
import { cardLedger, FixtureMirror, OTHER_MERCHANT, T0 } from '../support/fixtures.js';
import { mirrorAt } from '../support/test-db.js';

let dir: string;
let fx: FixtureMirror;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-recon-checks-'));
  fx = await FixtureMirror.open(mirrorAt(dir));
});
afterEach(async () => {
  await fx.close();
  rmSync(dir, { recursive: true, force: true });
});

const HOUR = 3_600_000;

/** A two-halves check as the runner runs it: its rows read through the checks' store, then its pure decision. */
async function readAndDecide<R>(check: RowsCheck<string, R>, context: CheckContext): Promise<FindingDraft[]> {
  return check.decide(await check.read(checksStore(context), context), context);
}

describe('GC_DUPLICATE_IDEMPOTENCY_KEY', () => {
  it('flags two entries committed under one key, naming both', async () => {
    fx.ledger(
      cardLedger(6_000, [
        { type: 'DEBIT', amount: 1_000, key: 'K' },
        { type: 'DEBIT', amount: 1_500, key: 'K' },
      ]),
    );
    expect(await readAndDecide(CHECKS.GC_DUPLICATE_IDEMPOTENCY_KEY, fx.context())).toMatchObject([
      {
        entityType: 'giftCard',
        entityId: 'card-1',
        measure: { unit: 'count', expected: 1, actual: 2 },
        records: [{ id: 'card-1' }, { id: 'entry-1' }, { id: 'entry-2' }],
      },
    ]);
  });

  it('passes a debit and its refund under one reference with their own keys', async () => {
    fx.ledger(
      cardLedger(6_000, [
        { type: 'DEBIT', amount: 1_000, ref: 'R' },
        { type: 'REFUND', amount: 1_000, ref: 'R' },
      ]),
    );
    expect(await readAndDecide(CHECKS.GC_DUPLICATE_IDEMPOTENCY_KEY, fx.context())).toEqual([]);
  });
});

describe('GC_ORPHAN_ENTRY', () => {
  it('flags an entry whose card the service answered not found for', async () => {
    const ledger = cardLedger(2_000, [{ type: 'DEBIT', amount: 700 }], { giftCardId: 'lost-card' });
    fx.entry('lost-card', ledger.entries[0]!);
    fx.run(
      'INSERT INTO missing_gift_cards (gift_card_id, sync_run_id, checked_at_ms) VALUES (?, ?, ?)',
      'lost-card',
      fx.syncRunId,
      T0,
    );
    const [finding] = await readAndDecide(CHECKS.GC_ORPHAN_ENTRY, fx.context());
    expect(finding).toMatchObject({ entityType: 'giftCardTransaction', entityId: 'entry-1', giftCardId: 'lost-card' });
    expect(finding?.message).toContain('not found');
  });

  it('passes entries of a mirrored card', async () => {
    fx.ledger(cardLedger(2_000, [{ type: 'DEBIT', amount: 700 }]));
    expect(await readAndDecide(CHECKS.GC_ORPHAN_ENTRY, fx.context())).toEqual([]);
  });
});

describe('GC_LEDGER_REWRITTEN', () => {
  it('flags an entry that came back changed, naming the changed field, and one that vanished', async () => {
    fx.ledger(
      cardLedger(5_000, [
        { type: 'DEBIT', amount: 1_000 },
        { type: 'DEBIT', amount: 500 },
      ]),
    );
    const insert = (...values: unknown[]) =>
      fx.run(
        'INSERT INTO gift_card_transaction_versions (transaction_id, sync_run_id, change, previous_raw_json, new_raw_json) VALUES (?, ?, ?, ?, ?)',
        ...values,
      );
    insert(
      'entry-1',
      2,
      'changed',
      JSON.stringify({ giftCardId: 'card-1', amount: 10 }),
      JSON.stringify({ giftCardId: 'card-1', amount: 12 }),
    );
    insert('entry-2', 3, 'vanished', JSON.stringify({ giftCardId: 'card-1', amount: 5 }), null);
    const findings = await readAndDecide(CHECKS.GC_LEDGER_REWRITTEN, fx.context());
    expect(findings).toMatchObject([
      { entityId: 'entry-1', giftCardId: 'card-1' },
      { entityId: 'entry-2', giftCardId: 'card-1' },
    ]);
    expect(findings[0]?.message).toContain('(amount)');
    expect(findings[1]?.message).toContain('no longer appears');
  });

  it('passes a ledger no sync saw change', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000 }]));
    expect(await readAndDecide(CHECKS.GC_LEDGER_REWRITTEN, fx.context())).toEqual([]);
  });
});

describe('GC_IN_FLIGHT', () => {
  it('flags a card that moved during this sync, as info', async () => {
    fx.ledger(cardLedger(5_000, []));
    fx.run(
      'INSERT INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?)',
      fx.syncRunId,
      'card-1',
      'version moved from 3 to 4 during the sync',
    );
    expect(CHECKS.GC_IN_FLIGHT.severity).toBe('info');
    expect(await readAndDecide(CHECKS.GC_IN_FLIGHT, fx.context())).toMatchObject([
      { entityId: 'card-1', currency: 'USD' },
    ]);
  });

  it('forgets a card that moved during an earlier sync', async () => {
    fx.ledger(cardLedger(5_000, []));
    fx.run(
      'INSERT INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?)',
      fx.syncRunId,
      'card-1',
      'moved',
    );
    fx.sync();
    expect(await readAndDecide(CHECKS.GC_IN_FLIGHT, fx.context())).toEqual([]);
  });
});

describe('GC_STUCK_IN_FLIGHT', () => {
  const inFlight = (card = 'card-1') =>
    fx.run(
      'INSERT INTO gift_cards_in_flight (sync_run_id, gift_card_id, detail) VALUES (?, ?, ?)',
      fx.syncRunId,
      card,
      'ledger entries arrived after the card was read',
    );

  it('flags a card in flight on three consecutive syncs, as a warning naming since which sync', async () => {
    fx.ledger(cardLedger(5_000, []));
    const first = fx.syncRunId;
    inFlight();
    fx.sync();
    inFlight();
    fx.sync();
    inFlight();
    expect(CHECKS.GC_STUCK_IN_FLIGHT.severity).toBe('warning');
    const [finding] = await readAndDecide(CHECKS.GC_STUCK_IN_FLIGHT, fx.context());
    expect(finding).toMatchObject({ entityId: 'card-1', currency: 'USD' });
    expect(finding?.message).toContain(`since sync ${first}`);
  });

  it('passes a card in flight on two syncs out of three, and one whose syncs between failed count for nothing', async () => {
    fx.ledger(cardLedger(5_000, []));
    inFlight();
    fx.sync();
    fx.sync();
    inFlight();
    expect(await readAndDecide(CHECKS.GC_STUCK_IN_FLIGHT, fx.context())).toEqual([]);
    fx.sync('failed');
    fx.sync();
    inFlight();
    expect(await readAndDecide(CHECKS.GC_STUCK_IN_FLIGHT, fx.context())).toEqual([]);
  });
});

describe('CV_OVER_REDEEMED', () => {
  it('flags a coupon redeemed four times against a limit of three', async () => {
    const id = fx.coupon({ status: 'USED', redemptionCount: 4, usageLimitTotal: 3 });
    expect(await readAndDecide(CHECKS.CV_OVER_REDEEMED, fx.context())).toMatchObject([
      { entityType: 'coupon', entityId: id, measure: { unit: 'count', expected: 3, actual: 4 } },
    ]);
  });

  it('passes an unlimited coupon redeemed 250 times', async () => {
    fx.coupon({ redemptionCount: 250, usageLimitTotal: 0 });
    expect(await readAndDecide(CHECKS.CV_OVER_REDEEMED, fx.context())).toEqual([]);
  });
});

describe('the coupon checks decide over rows, without a database', () => {
  const coupon = (over: Partial<CouponCounts>): CouponCounts => ({
    couponId: 'c-1',
    merchantId: 'm-ours',
    status: 'ACTIVE',
    redemptionCount: 0,
    usageLimitTotal: 1,
    expiresAtMs: T0,
    ...over,
  });
  const context = { asOfMs: T0 + 6 * HOUR, merchantId: 'm-ours', options: DEFAULT_CHECK_OPTIONS };

  it('flags what its rows say, and nothing for no rows', () => {
    expect(CHECKS.CV_OVER_REDEEMED.decide([coupon({ redemptionCount: 4, usageLimitTotal: 3 })], context)).toMatchObject(
      [{ entityId: 'c-1', measure: { unit: 'count', expected: 3, actual: 4 } }],
    );
    expect(CHECKS.CV_STATUS_MISMATCH.decide([coupon({ status: 'USED' })], context)[0]?.message).toMatch(
      /USED but was never redeemed/,
    );
    expect(CHECKS.CV_EXPIRED_BUT_ACTIVE.decide([coupon({})], context)[0]?.message).toMatch(
      /still ACTIVE 360 minutes later/,
    );
    expect(CHECKS.CV_FOREIGN_MERCHANT.decide([coupon({ merchantId: 'm-theirs' })], context)[0]?.message).toMatch(
      /belongs to merchant m-theirs, not to our merchant m-ours/,
    );
    for (const check of [
      CHECKS.CV_OVER_REDEEMED,
      CHECKS.CV_STATUS_MISMATCH,
      CHECKS.CV_EXPIRED_BUT_ACTIVE,
      CHECKS.CV_FOREIGN_MERCHANT,
    ])
      expect(check.decide([], context)).toEqual([]);
  });

  it('decides the orders, vouchers and cards in flight the same way', () => {
    expect(
      CHECKS.DP_STUCK_ORDER.decide([{ orderId: 'o-1', status: 'PROCESSING', createdAtMs: T0 }], context)[0]?.message,
    ).toMatch(/still PROCESSING 6 hours later/);
    expect(
      CHECKS.DP_FX_RATE_MISMATCH.decide([{ orderId: 'o-1', lineNo: 2, currency: 'USD', fxRate: 1.1 }], context),
    ).toMatchObject([{ entityId: 'o-1', identity: ['2'], currency: 'USD' }]);
    expect(
      CHECKS.DP_VOUCHER_EXPIRED_ON_DELIVERY.decide(
        [
          { orderId: 'o-1', lineNo: 1, voucherNo: 3, expirationDateMs: T0, deliveredAtMs: T0 + HOUR },
          { orderId: 'o-2', lineNo: 1, voucherNo: 1, expirationDateMs: null, deliveredAtMs: T0 },
        ],
        context,
      ),
    ).toMatchObject([{ entityId: 'o-1', identity: ['1', '3'] }]);
    expect(CHECKS.GC_IN_FLIGHT.decide([{ giftCardId: 'card-9', detail: 'moved', currency: null }], context)).toEqual([
      expect.not.objectContaining({ currency: expect.anything() }),
    ]);
    const shared = [
      { codeSha256: 'h1', orderId: 'o-1', lineNo: 1 },
      { codeSha256: 'h1', orderId: 'o-2', lineNo: 1 },
      { codeSha256: 'h2', orderId: 'o-3', lineNo: 1 },
    ];
    expect(CHECKS.DP_DUPLICATE_VOUCHER.decide(shared, context)).toMatchObject([
      { entityId: 'o-2', identity: ['h1', '1'], records: [{ id: 'o-1' }, { id: 'o-2' }] },
    ]);
    const twice = [
      { externalRefId: 'PO-1', orderId: 'o-1', currency: 'USD', totalAmountCents: 500 },
      { externalRefId: 'PO-1', orderId: 'o-2', currency: 'USD', totalAmountCents: 700 },
    ];
    expect(CHECKS.DP_DUPLICATE_EXTERNAL_REF.decide(twice, context)).toMatchObject([
      { entityId: 'o-2', referenceId: 'PO-1', atStakeCents: 700 },
    ]);
    expect(
      CHECKS.GC_STUCK_IN_FLIGHT.decide([{ giftCardId: 'card-3', currency: 'EUR', sinceSyncRunId: 4 }], context)[0]
        ?.message,
    ).toMatch(/in flight on 3 consecutive syncs \(since sync 4\)/);
    expect(
      CHECKS.DP_ORDER_TOTAL_MISMATCH.decide(
        [{ orderId: 'o-1', currency: 'USD', totalAmountCents: 1_000, linesTotal: 900, lines: 2, offCentLines: 0 }],
        context,
      ),
    ).toMatchObject([{ entityId: 'o-1', measure: { unit: 'cents', expected: 900, actual: 1_000 } }]);
    expect(
      CHECKS.DP_FULFILMENT_MISMATCH.decide(
        [
          {
            orderId: 'o-1',
            status: 'COMPLETED',
            orderFulfilment: 'FULFILLED',
            lineNo: 1,
            quantity: 2,
            fulfilledQty: 2,
            lineFulfilment: 'FULFILLED',
            vouchers: 1,
          },
        ],
        context,
      ),
    ).toMatchObject([{ entityId: 'o-1', identity: ['1'], measure: { expected: 2, actual: 1 } }]);
    const keyed = [
      { idempotencyKey: 'K', transactionId: 'e-1', giftCardId: 'card-2', currency: 'USD', amountCents: 1_000 },
      { idempotencyKey: 'K', transactionId: 'e-2', giftCardId: 'card-1', currency: 'USD', amountCents: 1_500 },
    ];
    expect(CHECKS.GC_DUPLICATE_IDEMPOTENCY_KEY.decide(keyed, context)).toMatchObject([
      {
        entityId: 'card-1',
        atStakeCents: 1_000,
        measure: { expected: 1, actual: 2 },
        records: [{ id: 'card-2' }, { id: 'card-1' }, { id: 'e-1' }, { id: 'e-2' }],
      },
    ]);
    expect(
      CHECKS.SYNC_REJECTED_RECORD.decide(
        [{ quarantineId: 7, resource: 'coupons', recordId: null, reason: 'no status', rawSha256: 'ab' }],
        context,
      ),
    ).toMatchObject([{ entityType: 'coupon', entityId: 'quarantine-7', identity: ['ab'], records: [] }]);
  });
});

describe('CV_COUNTER_REGRESSED', () => {
  it('flags a redemption count that went down between syncs, and a USED coupon back to ACTIVE', async () => {
    const a = fx.coupon({ id: 'a', redemptionCount: 3, usageLimitTotal: 5 });
    const b = fx.coupon({ id: 'b', status: 'USED', redemptionCount: 1 });
    fx.sync();
    fx.coupon({ id: a, redemptionCount: 2, usageLimitTotal: 5 });
    fx.coupon({ id: b, status: 'ACTIVE', redemptionCount: 1 });
    expect(await readAndDecide(CHECKS.CV_COUNTER_REGRESSED, fx.context())).toMatchObject([
      { entityId: 'a', measure: { expected: 3, actual: 2 } },
      { entityId: 'b' },
    ]);
  });

  it('passes a count that only grows and an ACTIVE coupon becoming USED', async () => {
    const a = fx.coupon({ id: 'a', redemptionCount: 0, usageLimitTotal: 1 });
    fx.sync();
    fx.coupon({ id: a, status: 'USED', redemptionCount: 1, usageLimitTotal: 1 });
    expect(await readAndDecide(CHECKS.CV_COUNTER_REGRESSED, fx.context())).toEqual([]);
  });
});

describe('CV_FOREIGN_MERCHANT', () => {
  it('flags a coupon owned by another merchant', async () => {
    const id = fx.coupon({ merchantId: OTHER_MERCHANT });
    expect(await readAndDecide(CHECKS.CV_FOREIGN_MERCHANT, fx.context())).toMatchObject([{ entityId: id }]);
  });

  it('passes our coupons', async () => {
    fx.coupon({});
    expect(await readAndDecide(CHECKS.CV_FOREIGN_MERCHANT, fx.context())).toEqual([]);
  });
});

describe('CV_STATUS_MISMATCH', () => {
  it('flags a coupon still ACTIVE at its usage limit, and one USED without a redemption', async () => {
    const active = fx.coupon({ id: 'a', redemptionCount: 2, usageLimitTotal: 2 });
    const used = fx.coupon({ id: 'b', status: 'USED', redemptionCount: 0 });
    expect((await readAndDecide(CHECKS.CV_STATUS_MISMATCH, fx.context())).map((f) => f.entityId)).toEqual([
      active,
      used,
    ]);
  });

  it('passes an ACTIVE coupon below its limit and an unlimited one', async () => {
    fx.coupon({ redemptionCount: 1, usageLimitTotal: 2 });
    fx.coupon({ redemptionCount: 9, usageLimitTotal: 0 });
    expect(await readAndDecide(CHECKS.CV_STATUS_MISMATCH, fx.context())).toEqual([]);
  });
});

describe('CV_EXPIRED_BUT_ACTIVE', () => {
  it('flags a coupon ACTIVE six hours after it expired', async () => {
    const asOf = fx.context().asOfMs;
    const id = fx.coupon({ expiresAtMs: asOf - 6 * HOUR });
    expect(await readAndDecide(CHECKS.CV_EXPIRED_BUT_ACTIVE, fx.context())).toMatchObject([{ entityId: id }]);
  });

  it('passes one expired an hour ago (within grace) and an EXPIRED one', async () => {
    const asOf = fx.context().asOfMs;
    fx.coupon({ expiresAtMs: asOf - HOUR });
    fx.coupon({ status: 'EXPIRED', expiresAtMs: asOf - 30 * HOUR });
    expect(await readAndDecide(CHECKS.CV_EXPIRED_BUT_ACTIVE, fx.context())).toEqual([]);
  });
});

describe('DP_ORDER_TOTAL_MISMATCH', () => {
  it('flags an order charging 1.00 more than its lines', async () => {
    const id = fx.order({ totalCents: 1_100 });
    expect(await readAndDecide(CHECKS.DP_ORDER_TOTAL_MISMATCH, fx.context())).toMatchObject([
      { entityType: 'dpOrder', entityId: id, currency: 'USD', measure: { expected: 1_000, actual: 1_100 } },
    ]);
  });

  it('passes a EUR order converted into the USD wallet over three lines', async () => {
    fx.order({
      lines: [
        { currency: 'EUR', fxRate: 1.0837, priceCents: 999 },
        { currency: 'EUR', fxRate: 1.0837, quantity: 3, priceCents: 1 },
        {},
      ],
    });
    expect(await readAndDecide(CHECKS.DP_ORDER_TOTAL_MISMATCH, fx.context())).toEqual([]);
  });
});

describe('DP_LINE_ARITHMETIC', () => {
  it('flags a line whose total is not price × quantity', async () => {
    const id = fx.order({ lines: [{ quantity: 2, priceCents: 1_000, totalPriceCents: 2_500 }] });
    expect(await readAndDecide(CHECKS.DP_LINE_ARITHMETIC, fx.context())).toMatchObject([
      { entityId: id, measure: { expected: 2_000, actual: 2_500 } },
    ]);
  });

  it('flags a converted total two cents off totalPrice × fxRate', async () => {
    const id = fx.order({ lines: [{ currency: 'EUR', fxRate: 1.1, priceCents: 1_000, totalConvertedCents: 1_102 }] });
    expect(await readAndDecide(CHECKS.DP_LINE_ARITHMETIC, fx.context())).toMatchObject([
      { entityId: id, measure: { expected: 1_100, actual: 1_102 } },
    ]);
  });

  it('passes a conversion one cent off (rounding tolerance)', async () => {
    fx.order({ lines: [{ currency: 'EUR', fxRate: 1.1, priceCents: 1_000, totalConvertedCents: 1_101 }] });
    expect(await readAndDecide(CHECKS.DP_LINE_ARITHMETIC, fx.context())).toEqual([]);
  });
});

describe('DP_DUPLICATE_EXTERNAL_REF', () => {
  it('flags the second order placed under one purchase reference, naming both', async () => {
    const first = fx.order({ externalRefId: 'PO-1', createdAtMs: T0 });
    const second = fx.order({ externalRefId: 'PO-1', createdAtMs: T0 + 60_000 });
    expect(await readAndDecide(CHECKS.DP_DUPLICATE_EXTERNAL_REF, fx.context())).toMatchObject([
      { entityId: second, referenceId: 'PO-1', records: [{ id: first }, { id: second }] },
    ]);
  });

  it('passes orders under distinct references', async () => {
    fx.order({ externalRefId: 'PO-1' });
    fx.order({ externalRefId: 'PO-2' });
    expect(await readAndDecide(CHECKS.DP_DUPLICATE_EXTERNAL_REF, fx.context())).toEqual([]);
  });
});

describe('DP_DUPLICATE_VOUCHER', () => {
  it('flags a voucher code delivered on two orders', async () => {
    const code = sha256('CODE-1');
    const first = fx.order({ createdAtMs: T0, lines: [{ vouchers: [code] }] });
    const second = fx.order({ createdAtMs: T0 + 60_000, lines: [{ vouchers: [code] }] });
    expect(await readAndDecide(CHECKS.DP_DUPLICATE_VOUCHER, fx.context())).toMatchObject([
      { entityId: second, records: [{ id: first }, { id: second }] },
    ]);
  });

  it('passes three vouchers with distinct codes on one line', async () => {
    fx.order({ lines: [{ quantity: 3 }] });
    expect(await readAndDecide(CHECKS.DP_DUPLICATE_VOUCHER, fx.context())).toEqual([]);
  });
});

describe('DP_FULFILMENT_MISMATCH', () => {
  it('flags a completed line with a voucher missing', async () => {
    const id = fx.order({ lines: [{ quantity: 2, fulfilledQty: 2, vouchers: [sha256('one')] }] });
    expect(await readAndDecide(CHECKS.DP_FULFILMENT_MISMATCH, fx.context())).toMatchObject([
      { entityId: id, measure: { unit: 'count', expected: 2, actual: 1 } },
    ]);
  });

  it('flags a COMPLETED order still PROCESSING its fulfilment', async () => {
    const id = fx.order({ fulfillment: 'PROCESSING' });
    expect(await readAndDecide(CHECKS.DP_FULFILMENT_MISMATCH, fx.context())).toMatchObject([{ entityId: id }]);
  });

  it('passes an order confirmed ten minutes ago, not yet fulfilled', async () => {
    fx.order({ status: 'CONFIRMED' });
    expect(await readAndDecide(CHECKS.DP_FULFILMENT_MISMATCH, fx.context())).toEqual([]);
  });
});

describe('DP_WALLET_DRIFT', () => {
  it('flags a wallet that lost 5.00 more than the orders placed between two syncs', async () => {
    fx.wallet('w1', 100_000, T0);
    fx.sync();
    fx.order({ createdAtMs: T0 + HOUR, lines: [{ priceCents: 2_000 }] });
    fx.wallet('w1', 100_000 - 2_000 - 500, T0 + 2 * HOUR);
    expect(await readAndDecide(CHECKS.DP_WALLET_DRIFT, fx.context())).toMatchObject([
      { entityType: 'dpWallet', entityId: 'w1', measure: { expected: 98_000, actual: 97_500 } },
    ]);
  });

  it('passes a wallet moved exactly by an order placed and one that failed in between', async () => {
    const failed = { status: 'FAILED', createdAtMs: T0 - HOUR, updatedAtMs: T0 + HOUR, lines: [{ priceCents: 700 }] };
    fx.wallet('w1', 100_000, T0);
    fx.sync();
    fx.order({ createdAtMs: T0 + HOUR, lines: [{ priceCents: 2_000 }] });
    fx.order(failed);
    fx.order({ createdAtMs: T0 + 3 * HOUR, lines: [{ priceCents: 9_999 }] }); // after the read: the next sync's
    fx.wallet('w1', 100_000 - 2_000 + 700, T0 + 2 * HOUR);
    expect(await readAndDecide(CHECKS.DP_WALLET_DRIFT, fx.context())).toEqual([]);
  });

  it('passes a wallet read while orders were placed: those inside a read may fall on either side of it', async () => {
    // The first read ran from T0 − 100 ms to T0, the second from T0 + 1 h to T0 + 1 h + 100 ms.
    fx.order({ createdAtMs: T0 - 50, lines: [{ priceCents: 300 }] }); // inside the first read, after its moment: counts between
    fx.wallet('w1', 100_000, T0, 'USD', T0 - 100);
    fx.sync();
    fx.order({ createdAtMs: T0 + HOUR / 2, lines: [{ priceCents: 2_000 }] });
    fx.order({ createdAtMs: T0 + HOUR + 20, lines: [{ priceCents: 400 }] }); // inside the second read, before its moment
    fx.order({ createdAtMs: T0 + HOUR + 60, lines: [{ priceCents: 800 }] }); // inside the second read, after its moment
    fx.wallet('w1', 100_000 - 300 - 2_000 - 400, T0 + HOUR + 100, 'USD', T0 + HOUR);
    expect(await readAndDecide(CHECKS.DP_WALLET_DRIFT, fx.context())).toEqual([]);
  });

  it('flags a movement no split of the orders inside the reads explains', async () => {
    fx.wallet('w1', 100_000, T0, 'USD', T0 - 100);
    fx.sync();
    fx.order({ createdAtMs: T0 + HOUR + 20, lines: [{ priceCents: 400 }] });
    fx.order({ createdAtMs: T0 + HOUR + 60, lines: [{ priceCents: 800 }] });
    // 8.00 left without 4.00 first: orders leave in the order they were placed.
    fx.wallet('w1', 100_000 - 800, T0 + HOUR + 100, 'USD', T0 + HOUR);
    expect(await readAndDecide(CHECKS.DP_WALLET_DRIFT, fx.context())).toMatchObject([
      { entityId: 'w1', measure: { expected: 98_800, actual: 99_200 } },
    ]);
  });
});

describe('DP_VOUCHER_EXPIRED_ON_DELIVERY', () => {
  it('flags a voucher that expired the day before delivery', async () => {
    const id = fx.order({ createdAtMs: T0, updatedAtMs: T0 + 60_000, lines: [{ expiresAtMs: T0 - 86_400_000 }] });
    expect(await readAndDecide(CHECKS.DP_VOUCHER_EXPIRED_ON_DELIVERY, fx.context())).toMatchObject([{ entityId: id }]);
  });

  it('passes vouchers valid for a year', async () => {
    fx.order({});
    expect(await readAndDecide(CHECKS.DP_VOUCHER_EXPIRED_ON_DELIVERY, fx.context())).toEqual([]);
  });
});

describe('DP_STUCK_ORDER', () => {
  it('flags an order confirmed three days ago and never fulfilled', async () => {
    const asOf = fx.context().asOfMs;
    const id = fx.order({ status: 'CONFIRMED', createdAtMs: asOf - 72 * HOUR });
    expect(await readAndDecide(CHECKS.DP_STUCK_ORDER, fx.context())).toMatchObject([{ entityId: id }]);
  });

  it('passes one placed ten minutes ago, and a FAILED one from last week', async () => {
    const asOf = fx.context().asOfMs;
    fx.order({ status: 'CONFIRMED', createdAtMs: asOf - 10 * 60_000 });
    fx.order({ status: 'FAILED', createdAtMs: asOf - 7 * 24 * HOUR });
    expect(await readAndDecide(CHECKS.DP_STUCK_ORDER, fx.context())).toEqual([]);
  });
});

describe('DP_FX_RATE_MISMATCH', () => {
  it('flags a USD line converted into the USD wallet at 1.05', async () => {
    const id = fx.order({ lines: [{ fxRate: 1.05 }] });
    expect(await readAndDecide(CHECKS.DP_FX_RATE_MISMATCH, fx.context())).toMatchObject([
      { entityId: id, currency: 'USD' },
    ]);
  });

  it('passes a EUR line converted at 1.08', async () => {
    fx.order({ lines: [{ currency: 'EUR', fxRate: 1.08 }] });
    expect(await readAndDecide(CHECKS.DP_FX_RATE_MISMATCH, fx.context())).toEqual([]);
  });
});

describe('SYNC_REJECTED_RECORD', () => {
  const quarantine = (resource: string, recordId: string, syncRunId: number) =>
    fx.run(
      'INSERT INTO quarantine (resource, record_id, reason, raw_json, raw_sha256, first_sync_run_id, last_sync_run_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
      resource,
      recordId,
      'redemptionCount: expected number, received string',
      '{}',
      sha256(resource + recordId),
      syncRunId,
      syncRunId,
    );

  it('flags a record quarantined by this sync, and a ledger entry still missing after an earlier one', async () => {
    quarantine('giftCardTransactions', 'entry-9', fx.syncRunId);
    fx.sync();
    quarantine('coupons', 'c-1', fx.syncRunId);
    expect(await readAndDecide(CHECKS.SYNC_REJECTED_RECORD, fx.context())).toMatchObject([
      { entityType: 'giftCardTransaction', entityId: 'entry-9' },
      { entityType: 'coupon', entityId: 'c-1', records: [{ type: 'coupon', id: 'c-1' }] },
    ]);
  });

  it('passes a coupon rejected by an earlier sync and valid since', async () => {
    quarantine('coupons', 'c-1', fx.syncRunId);
    fx.sync();
    expect(await readAndDecide(CHECKS.SYNC_REJECTED_RECORD, fx.context())).toEqual([]);
  });
});
