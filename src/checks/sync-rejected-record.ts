import { rowsCheck, type RecordType } from './check.js';
import type { Quarantined } from './store.js';

/** Which record type each synced resource holds. */
const RECORD_TYPE: Record<string, RecordType> = {
  giftCards: 'giftCard',
  giftCardTransactions: 'giftCardTransaction',
  coupons: 'coupon',
  dpWallets: 'dpWallet',
  dpProducts: 'dpProduct',
  dpOrders: 'dpOrder',
};

export const syncRejectedRecord = rowsCheck({
  kind: 'rows',
  code: 'SYNC_REJECTED_RECORD',
  severity: 'error',
  lifecycle: 'state',
  title: 'Record failed validation',
  description:
    'A record the service sent did not match its documented shape (a missing field, a number sent as text…). It was kept aside in the quarantine table with its raw JSON and the reason, never dropped or coerced; until it is fixed, the checks cannot vouch for it.',
  // Ledger entries are not re-read after their sync: one stays rejected until a valid copy arrives.
  read: (store, { syncRunId, asOfSync }) => store.quarantinedAt(syncRunId, asOfSync !== undefined),
  decide: (rows: readonly Quarantined[]) =>
    rows.map((row) => ({
      entityType: RECORD_TYPE[row.resource] ?? 'giftCard',
      entityId: row.recordId ?? `quarantine-${row.quarantineId}`,
      identity: [row.rawSha256],
      message: `a ${row.resource} record${row.recordId ? ` ${row.recordId}` : ''} was rejected: ${row.reason} — its raw JSON is in quarantine row ${row.quarantineId}`,
      records: row.recordId ? [{ type: RECORD_TYPE[row.resource] ?? 'giftCard', id: row.recordId }] : [],
    })),
});
