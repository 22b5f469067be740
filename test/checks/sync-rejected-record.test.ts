import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../src/checks/index.js';
import { sha256Hex as sha256 } from '../../src/hash.js';
import { fx, messagesSaid, readAndDecide, useFixtureMirror } from '../support/check-kit.js';

useFixtureMirror();

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
    expect(messagesSaid()).toMatchInlineSnapshot(`
      [
        "a giftCardTransactions record entry-9 was rejected: redemptionCount: expected number, received string — its raw JSON is in quarantine row 1",
        "a coupons record c-1 was rejected: redemptionCount: expected number, received string — its raw JSON is in quarantine row 2",
      ]
    `);
  });

  it('passes a coupon rejected by an earlier sync and valid since', async () => {
    quarantine('coupons', 'c-1', fx.syncRunId);
    fx.sync();
    expect(await readAndDecide(CHECKS.SYNC_REJECTED_RECORD, fx.context())).toEqual([]);
  });
});
