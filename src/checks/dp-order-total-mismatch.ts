import { rowsCheck } from './check.js';
import { cents, money, orderAmountStake, orderRef } from './refs.js';
import type { OrderTotals } from './store.js';

export const dpOrderTotalMismatch = rowsCheck({
  kind: 'rows',
  code: 'DP_ORDER_TOTAL_MISMATCH',
  severity: 'error',
  lifecycle: 'state',
  title: 'Order total differs from its lines',
  description:
    "An order's total amount (what the wallet is charged) must equal the sum of its lines' converted totals. A difference means the wallet was charged more or less than the vouchers ordered.",
  read: (store) => store.orders.ordersTotalDisagreeing(),
  decide(rows: readonly OrderTotals[]) {
    return rows.map((row) => {
      const base = {
        entityType: 'dpOrder' as const,
        entityId: row.orderId,
        currency: row.currency,
        stakeKey: orderAmountStake(row.orderId),
        records: [orderRef(row.orderId)],
      };
      if (row.totalAmountCents === null || row.offCentLines > 0) {
        return {
          ...base,
          message: `order ${row.orderId}: ${row.totalAmountCents === null ? 'its totalAmount' : `${row.offCentLines} line total(s)`} not on a whole cent — see its raw_json`,
        };
      }
      const expected = row.linesTotal ?? 0;
      return {
        ...base,
        measure: cents(expected, row.totalAmountCents),
        message: `order ${row.orderId} charged ${money(row.totalAmountCents, row.currency)} but its ${row.lines} line(s) add up to ${money(expected, row.currency)} — the wallet was charged ${money(Math.abs(row.totalAmountCents - expected), row.currency)} too ${row.totalAmountCents > expected ? 'much' : 'little'}`,
      };
    });
  },
});
