import { queryCheck, type FindingDraft } from './check.js';
import { count, orderRef } from './refs.js';

interface Row {
  order_id: string;
  status: string;
  order_fulfilment: string;
  line_no: number | null;
  quantity: number | null;
  fulfilled_qty: number | null;
  line_fulfilment: string | null;
  vouchers: number;
}

export const dpFulfilmentMismatch = queryCheck({
  kind: 'query',
  code: 'DP_FULFILMENT_MISMATCH',
  severity: 'error',
  lifecycle: 'state',
  title: 'Completed order not fully delivered',
  description:
    'A COMPLETED order must be FULFILLED, with every line fulfilled in full; and every line must carry as many vouchers as its fulfilled quantity. Otherwise the wallet paid for vouchers the customer did not receive.',
  run({ sqlite }) {
    const rows = sqlite
      .prepare(
        `SELECT o.order_id, o.status, o.fulfillment_status AS order_fulfilment, l.line_no, l.quantity, l.fulfilled_qty, l.fulfillment_status AS line_fulfilment,
                (SELECT COUNT(*) FROM dp_vouchers v WHERE v.order_id = l.order_id AND v.line_no = l.line_no) AS vouchers
         FROM dp_orders o LEFT JOIN dp_order_lines l ON l.order_id = o.order_id
         ORDER BY o.order_id, l.line_no`,
      )
      .all() as Row[];
    const findings: FindingDraft[] = [];
    const flagged = new Set<string>();
    for (const row of rows) {
      const completed = row.status === 'COMPLETED';
      const finding = (what: string, measure?: [number, number], line?: number): void => {
        findings.push({
          entityType: 'dpOrder',
          entityId: row.order_id,
          identity: [line === undefined ? 'order' : String(line)],
          ...(measure ? { measure: count(...measure) } : {}),
          message: `order ${row.order_id}${line === undefined ? '' : ` line ${line}`}: ${what} — the wallet paid for vouchers that were not delivered`,
          records: [orderRef(row.order_id)],
        });
      };
      if (completed && row.order_fulfilment !== 'FULFILLED' && !flagged.has(row.order_id)) {
        flagged.add(row.order_id);
        finding(`COMPLETED but its fulfilment is ${row.order_fulfilment}`);
      }
      if (row.line_no === null || row.quantity === null || row.fulfilled_qty === null) continue;
      if (row.vouchers !== row.fulfilled_qty) finding(`${row.vouchers} voucher(s) delivered for a fulfilled quantity of ${row.fulfilled_qty}`, [row.fulfilled_qty, row.vouchers], row.line_no);
      else if (completed && row.fulfilled_qty !== row.quantity) finding(`COMPLETED with ${row.fulfilled_qty} of ${row.quantity} unit(s) fulfilled`, [row.quantity, row.fulfilled_qty], row.line_no);
    }
    return findings;
  },
});
