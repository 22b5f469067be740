import { queryCheck } from './check.js';
import { orderRef } from './refs.js';

export const dpFxRateMismatch = queryCheck({
  kind: 'query',
  code: 'DP_FX_RATE_MISMATCH',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Same currency converted',
  description: "A line priced in the wallet's own currency needs no conversion: its FX rate must be 1. Another rate means the line was charged more or less than its price.",
  run({ sqlite }) {
    const rows = sqlite
      .prepare(
        `SELECT l.order_id, l.line_no, l.currency, l.fx_rate FROM dp_order_lines l JOIN dp_orders o ON o.order_id = l.order_id
         WHERE l.currency = o.currency AND l.fx_rate <> 1 ORDER BY l.order_id, l.line_no`,
      )
      .all() as { order_id: string; line_no: number; currency: string; fx_rate: number }[];
    return rows.map((row) => ({
      entityType: 'dpOrder',
      entityId: row.order_id,
      currency: row.currency,
      identity: [String(row.line_no)],
      message: `order ${row.order_id} line ${row.line_no} is in ${row.currency}, the wallet's currency, yet was converted at ${row.fx_rate} — it was charged at a rate where none applies`,
      records: [orderRef(row.order_id)],
    }));
  },
});
