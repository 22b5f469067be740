import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

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
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "idempotency key K committed 2 entries (entry-1, entry-2) on card card-1 where one was due — a retried request was applied again",
      ]
    `);
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
