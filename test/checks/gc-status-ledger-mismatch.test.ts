import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { inspect, messagesSaid } from '../support/check-kit.js';

describe('GC_STATUS_LEDGER_MISMATCH', () => {
  it('flags an INACTIVE card without a VOID entry', () => {
    expect(
      inspect(
        CHECKS.GC_STATUS_LEDGER_MISMATCH,
        cardLedger(2_000, [{ type: 'DEBIT', amount: 500 }], { status: 'INACTIVE' }),
      ),
    ).toMatchObject([{ entityId: 'card-1' }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1 is INACTIVE but its ledger has no VOID entry — its status was changed outside the ledger; ask who changed it",
      ]
    `);
  });

  it('flags an ACTIVE card with an EXPIRE entry', () => {
    expect(
      inspect(CHECKS.GC_STATUS_LEDGER_MISMATCH, cardLedger(2_000, [{ type: 'EXPIRE' }], { status: 'ACTIVE' })),
    ).toMatchObject([{ entityId: 'card-1', records: [{ id: 'card-1' }, { id: 'entry-1' }] }]);
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "card card-1 has EXPIRE entry entry-1 but is still ACTIVE, not EXPIRED — its status was changed outside the ledger; ask who changed it",
      ]
    `);
  });

  it('passes a FROZEN card without closing entries, and an EXPIRED card with its EXPIRE entry', () => {
    const frozen = cardLedger(2_500, [{ type: 'DEBIT', amount: 500 }], { status: 'FROZEN' });
    const expired = cardLedger(2_500, [{ type: 'EXPIRE' }]);
    expect([
      ...inspect(CHECKS.GC_STATUS_LEDGER_MISMATCH, frozen),
      ...inspect(CHECKS.GC_STATUS_LEDGER_MISMATCH, expired),
    ]).toEqual([]);
  });
});
