import { queryCheck } from './check.js';
import { cents, money, orderAmountStake, orderRef } from './refs.js';

interface Row {
  order_id: string;
  currency: string;
  total_amount_cents: number | null;
  lines_total: number | null;
  lines: number;
  off_cent_lines: number;
}

export const dpOrderTotalMismatch = queryCheck({
  kind: 'query',
  code: 'DP_ORDER_TOTAL_MISMATCH',
  severity: 'error',
  lifecycle: 'state',
  title: 'Order total differs from its lines',
  description: "An order's total amount (what the wallet is charged) must equal the sum of its lines' converted totals. A difference means the wallet was charged more or less than the vouchers ordered.",
  run({ sqlite }) {
    const rows = sqlite
      .prepare(
        `SELECT o.order_id, o.currency, o.total_amount_cents, SUM(l.total_converted_price_cents) AS lines_total, COUNT(l.line_no) AS lines,
                SUM(l.line_no IS NOT NULL AND l.total_converted_price_cents IS NULL) AS off_cent_lines
         FROM dp_orders o LEFT JOIN dp_order_lines l ON l.order_id = o.order_id
         GROUP BY o.order_id
         HAVING o.total_amount_cents IS NULL OR off_cent_lines > 0 OR COALESCE(lines_total, 0) <> o.total_amount_cents
         ORDER BY o.order_id`,
      )
      .all() as Row[];
    return rows.map((row) => {
      const base = { entityType: 'dpOrder' as const, entityId: row.order_id, currency: row.currency, stakeKey: orderAmountStake(row.order_id), records: [orderRef(row.order_id)] };
      if (row.total_amount_cents === null || row.off_cent_lines > 0) {
        return { ...base, message: `order ${row.order_id}: ${row.total_amount_cents === null ? 'its totalAmount' : `${row.off_cent_lines} line total(s)`} not on a whole cent — see its raw_json` };
      }
      const expected = row.lines_total ?? 0;
      return {
        ...base,
        measure: cents(expected, row.total_amount_cents),
        message: `order ${row.order_id} charged ${money(row.total_amount_cents, row.currency)} but its ${row.lines} line(s) add up to ${money(expected, row.currency)} — the wallet was charged ${money(Math.abs(row.total_amount_cents - expected), row.currency)} too ${row.total_amount_cents > expected ? 'much' : 'little'}`,
      };
    });
  },
});
