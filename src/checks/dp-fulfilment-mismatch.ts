import { rowsCheck, type FindingDraft } from './check.js';
import { count, orderRef } from './refs.js';
import type { OrderLineDelivery } from './store.js';

export const dpFulfilmentMismatch = rowsCheck({
  kind: 'rows',
  code: 'DP_FULFILMENT_MISMATCH',
  severity: 'error',
  lifecycle: 'state',
  title: 'Completed order not fully delivered',
  description:
    'A COMPLETED order must be FULFILLED, with every line fulfilled in full; and every line must carry as many vouchers as its fulfilled quantity. Otherwise the wallet paid for vouchers the customer did not receive.',
  read: (store) => store.orders.orderLineDeliveries(),
  decide(rows: readonly OrderLineDelivery[]) {
    const findings: FindingDraft[] = [];
    const flagged = new Set<string>();
    for (const row of rows) {
      const completed = row.status === 'COMPLETED';
      const finding = (what: string, measure?: [number, number], line?: number): void => {
        findings.push({
          entityType: 'dpOrder',
          entityId: row.orderId,
          identity: [line === undefined ? 'order' : String(line)],
          ...(measure ? { measure: count(...measure) } : {}),
          message: `order ${row.orderId}${line === undefined ? '' : ` line ${line}`}: ${what} — the wallet paid for vouchers that were not delivered`,
          records: [orderRef(row.orderId)],
        });
      };
      if (completed && row.orderFulfilment !== 'FULFILLED' && !flagged.has(row.orderId)) {
        flagged.add(row.orderId);
        finding(`COMPLETED but its fulfilment is ${row.orderFulfilment}`);
      }
      if (row.lineNo === null || row.quantity === null || row.fulfilledQty === null) continue;
      if (row.vouchers !== row.fulfilledQty)
        finding(
          `${row.vouchers} voucher(s) delivered for a fulfilled quantity of ${row.fulfilledQty}`,
          [row.fulfilledQty, row.vouchers],
          row.lineNo,
        );
      else if (completed && row.fulfilledQty !== row.quantity)
        finding(
          `COMPLETED with ${row.fulfilledQty} of ${row.quantity} unit(s) fulfilled`,
          [row.quantity, row.fulfilledQty],
          row.lineNo,
        );
    }
    return findings;
  },
});
