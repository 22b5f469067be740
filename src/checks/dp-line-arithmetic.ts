import { rowsCheck, type FindingDraft } from './check.js';
import { cents, money, orderAmountStake, orderRef } from './refs.js';
import type { OrderLineFigures } from './store.js';

/** totalPrice × fxRate rounded to the cent. The rate is not money, so this one product is a float. */
export function convertedCents(totalPriceCents: number, fxRate: number): number {
  return Math.round(totalPriceCents * fxRate);
}

export const dpLineArithmetic = rowsCheck({
  kind: 'rows',
  code: 'DP_LINE_ARITHMETIC',
  severity: 'error',
  lifecycle: 'state',
  title: 'Order line does not add up',
  description:
    "Within an order line, the total price must be price × quantity, the total MRP must be MRP × quantity, and the converted total must be the total price × the FX rate, to the cent (one cent of rounding tolerance). A difference means the line's charge is wrong.",
  read: (store) => store.orders.orderLineFigures(),
  decide(rows: readonly OrderLineFigures[]) {
    const findings: FindingDraft[] = [];
    for (const row of rows) {
      const at = `order ${row.order_id} line ${row.line_no}`;
      const finding = (
        message: string,
        measure?: { expected: number; actual: number },
        currency = row.currency,
      ): void => {
        findings.push({
          entityType: 'dpOrder',
          entityId: row.order_id,
          currency,
          identity: [String(row.line_no)],
          ...(measure ? { measure: cents(measure.expected, measure.actual) } : {}),
          stakeKey: orderAmountStake(row.order_id),
          message,
          records: [orderRef(row.order_id)],
        });
      };
      const {
        price_cents: price,
        mrp_cents: mrp,
        total_price_cents: totalPrice,
        total_mrp_cents: totalMrp,
        total_converted_price_cents: converted,
      } = row;
      if (price === null || mrp === null || totalPrice === null || totalMrp === null || converted === null) {
        const fields = { mrp, price, totalMRP: totalMrp, totalPrice, totalConvertedPrice: converted };
        const offCent = Object.entries(fields)
          .filter(([, v]) => v === null)
          .map(([k]) => k);
        finding(`${at}: ${offCent.join(', ')} not on a whole cent — see the order's raw_json`);
        continue;
      }
      if (price * row.quantity !== totalPrice) {
        finding(
          `${at}: ${row.quantity} × ${money(price, row.currency)} is ${money(price * row.quantity, row.currency)} but the line's total price is ${money(totalPrice, row.currency)} — the line was charged a different unit price`,
          { expected: price * row.quantity, actual: totalPrice },
        );
        continue;
      }
      if (mrp * row.quantity !== totalMrp) {
        finding(
          `${at}: ${row.quantity} × MRP ${money(mrp, row.currency)} is ${money(mrp * row.quantity, row.currency)} but the line's total MRP is ${money(totalMrp, row.currency)}`,
          { expected: mrp * row.quantity, actual: totalMrp },
        );
        continue;
      }
      const expected = convertedCents(totalPrice, row.fx_rate);
      if (Math.abs(expected - converted) > 1) {
        finding(
          `${at}: ${money(totalPrice, row.currency)} × ${row.fx_rate} is ${money(expected, row.order_currency)} but the line's converted total is ${money(converted, row.order_currency)} — the wallet was charged at a different rate`,
          { expected, actual: converted },
          row.order_currency,
        );
      }
    }
    return findings;
  },
});
