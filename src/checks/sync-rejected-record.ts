import { queryCheck, type RecordType } from './check.js';

/** Which record type each synced resource holds. */
const RECORD_TYPE: Record<string, RecordType> = {
  giftCards: 'giftCard',
  giftCardTransactions: 'giftCardTransaction',
  coupons: 'coupon',
  dpWallets: 'dpWallet',
  dpProducts: 'dpProduct',
  dpOrders: 'dpOrder',
};

interface Row {
  quarantine_id: number;
  resource: string;
  record_id: string | null;
  reason: string;
  raw_sha256: string;
}

export const syncRejectedRecord = queryCheck({
  kind: 'query',
  code: 'SYNC_REJECTED_RECORD',
  severity: 'error',
  lifecycle: 'state',
  title: 'Record failed validation',
  description:
    "A record the service sent did not match its documented shape (a missing field, a number sent as text…). It was kept aside in the quarantine table with its raw JSON and the reason, never dropped or coerced; until it is fixed, the checks cannot vouch for it.",
  run({ sqlite, syncRunId }) {
    // Ledger entries are not re-read after their sync: one stays rejected until a valid copy arrives.
    const rows = sqlite
      .prepare(
        `SELECT quarantine_id, resource, record_id, reason, raw_sha256 FROM quarantine q
         WHERE q.last_sync_run_id = ?
            OR (q.resource = 'giftCardTransactions' AND NOT EXISTS (SELECT 1 FROM gift_card_transactions t WHERE t.transaction_id = q.record_id))
         ORDER BY quarantine_id`,
      )
      .all(syncRunId) as Row[];
    return rows.map((row) => ({
      entityType: RECORD_TYPE[row.resource] ?? 'giftCard',
      entityId: row.record_id ?? `quarantine-${row.quarantine_id}`,
      identity: [row.raw_sha256],
      message: `a ${row.resource} record${row.record_id ? ` ${row.record_id}` : ''} was rejected: ${row.reason} — its raw JSON is in quarantine row ${row.quarantine_id}`,
      records: row.record_id ? [{ type: RECORD_TYPE[row.resource] ?? 'giftCard', id: row.record_id }] : [],
    }));
  },
});
