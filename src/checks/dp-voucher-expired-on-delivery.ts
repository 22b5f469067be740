import { rowsCheck } from './check.js';
import type { DeliveredVoucher } from './store.js';
import { isoUtc, orderRef } from './refs.js';

export const dpVoucherExpiredOnDelivery = rowsCheck({
  kind: 'rows',
  code: 'DP_VOUCHER_EXPIRED_ON_DELIVERY',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Voucher delivered already expired',
  description:
    'A voucher must still be valid when it is delivered. One that expired before its order was fulfilled cannot be used by the customer, although the wallet paid for it.',
  read: (store) => store.orders.vouchersExpiredByDelivery(),
  decide: (rows: readonly DeliveredVoucher[]) =>
    rows.flatMap((row) =>
      row.expirationDateMs === null
        ? []
        : [
            {
              entityType: 'dpOrder' as const,
              entityId: row.orderId,
              identity: [String(row.lineNo), String(row.voucherNo)],
              message: `order ${row.orderId} line ${row.lineNo}: voucher ${row.voucherNo} expired at ${isoUtc(row.expirationDateMs)}, before the order was delivered at ${isoUtc(row.deliveredAtMs)} — ask the partner for a replacement or a refund`,
              records: [orderRef(row.orderId)],
            },
          ],
    ),
});
