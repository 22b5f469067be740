import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { cardLedger } from '../support/fixtures.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

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
    // Checked as of sync 3, which recorded the disappearance.
    const findings = await readAndDecide(CHECKS.GC_LEDGER_REWRITTEN, fx.context({ syncRunId: 3 }));
    expect(findings).toMatchObject([
      { entityId: 'entry-1', giftCardId: 'card-1' },
      { entityId: 'entry-2', giftCardId: 'card-1' },
    ]);
    expect(findings[0]?.message).toContain('(amount)');
    expect(findings[1]?.message).toContain('no longer appears');
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "entry entry-1 of card card-1 came back changed in sync 2 (amount) — both versions are in gift_card_transaction_versions",
        "entry entry-2 of card card-1 was mirrored earlier but no longer appears in the ledger (full pass of sync 3) — ask the service why it was removed",
      ]
    `);
  });

  it('passes a ledger no sync saw change', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000 }]));
    expect(await readAndDecide(CHECKS.GC_LEDGER_REWRITTEN, fx.context())).toEqual([]);
  });

  it('passes a rewrite a later sync than the one checked recorded (a past night re-performed)', async () => {
    fx.ledger(cardLedger(5_000, [{ type: 'DEBIT', amount: 1_000 }]));
    fx.run(
      'INSERT INTO gift_card_transaction_versions (transaction_id, sync_run_id, change, previous_raw_json, new_raw_json) VALUES (?, ?, ?, ?, ?)',
      'entry-1',
      2,
      'changed',
      JSON.stringify({ giftCardId: 'card-1', amount: 10 }),
      JSON.stringify({ giftCardId: 'card-1', amount: 12 }),
    );
    expect(await readAndDecide(CHECKS.GC_LEDGER_REWRITTEN, fx.context({ syncRunId: 1 }))).toEqual([]);
  });
});
