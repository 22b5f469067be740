/** The DP orders sheet: every order line as mirrored, those with a finding first. */
import type { ReportStore } from '../store.js';
import type { SheetSpec } from '../xlsx-writer.js';
import { money, date, type Keyed, NO_CELLS, exceptionsFirst, type FindingsOf } from './rows.js';
import { UNLISTED } from './summary.js';

/** The DP orders sheet, a row per line, the flagged orders first. */
export async function ordersSheet(reads: ReportStore, findingsOf: FindingsOf, flagged: string): Promise<SheetSpec> {
  return {
    name: 'DP orders',
    // What prints first (order to findings, one page wide at over 70 %); where each line came from after it, on screen.
    header: [
      'order',
      'external reference',
      'status',
      'fulfilment',
      'order total',
      'line',
      'quantity',
      'total price',
      'FX rate',
      'converted total',
      'fulfilled',
      'vouchers',
      'findings',
      'created at (UTC)',
      'product',
      'variant',
      'line currency',
      'price',
      UNLISTED,
    ],
    printColumns: 13,
    fixedWidths: { 0: 20, 1: 13, 2: 10, 3: 11, 4: 13, 5: 6, 6: 9, 7: 13, 8: 7, 9: 13, 10: 10, 11: 9, 12: 18 },
    ...(await exceptionsFirst('order', (only, keysOnly) => orderRows(reads, findingsOf, only, keysOnly), flagged)),
  };
}

async function* orderRows(
  reads: ReportStore,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  for await (const batch of reads.orderLines(only))
    yield batch.map((r): Keyed => {
      const findings = findingsOf(r.order_id);
      if (keysOnly) {
        return [`${r.order_id} ${r.line_no ?? ''}`, NO_CELLS, findings !== '', r.order_id];
      }
      return [
        `${r.order_id} ${r.line_no ?? ''}`,
        [
          r.order_id,
          r.external_ref_id,
          r.status,
          r.fulfillment_status,
          money(r.total_amount_cents, r.currency),
          r.line_no,
          r.quantity,
          money(r.total_price_cents, r.line_currency),
          r.fx_rate,
          money(r.total_converted_price_cents, r.currency),
          r.fulfilled_qty,
          r.vouchers,
          findings,
          date(r.created_at_ms),
          r.product_id,
          r.variant_id,
          r.line_currency,
          money(r.price_cents, r.line_currency),
          r.vanished_sync_run_id,
        ],
        findings !== '',
      ];
    });
}
