import { rowsCheck } from './check.js';
import type { ConvertedLine } from './store.js';
import { orderRef } from './refs.js';

export const dpFxRateMismatch = rowsCheck({
  kind: 'rows',
  code: 'DP_FX_RATE_MISMATCH',
  severity: 'warning',
  lifecycle: 'state',
  title: 'Same currency converted',
  description:
    "A line priced in the wallet's own currency needs no conversion: its FX rate must be 1. Another rate means the line was charged more or less than its price.",
  read: (store) => store.orders.linesConvertedInOwnCurrency(),
  decide: (rows: readonly ConvertedLine[]) =>
    rows.map((row) => ({
      entityType: 'dpOrder',
      entityId: row.orderId,
      currency: row.currency,
      identity: [String(row.lineNo)],
      message: `order ${row.orderId} line ${row.lineNo} is in ${row.currency}, the wallet's currency, yet was converted at ${row.fxRate} — it was charged at a rate where none applies`,
      records: [orderRef(row.orderId)],
    })),
});
