/** The Coupons sheet: every coupon as mirrored, those with a finding first. */
import type { ReportStore } from '../store.js';
import type { SheetSpec } from '../xlsx-writer.js';
import { date, type Keyed, NO_CELLS, exceptionsFirst, type FindingsOf } from './rows.js';
import { UNLISTED } from './summary.js';

/** The Coupons sheet, the flagged first. */
export async function couponsSheet(reads: ReportStore, findingsOf: FindingsOf, flagged: string): Promise<SheetSpec> {
  return {
    name: 'Coupons',
    header: [
      'coupon',
      'merchant',
      'status',
      'redemption count',
      'usage limit (0 = none)',
      'expires at (UTC)',
      'updated at (UTC)',
      UNLISTED,
      'findings',
    ],
    fixedWidths: { 0: 20, 1: 20, 2: 10, 3: 10, 4: 10, 5: 19, 6: 19, 7: 10, 8: 24 },
    ...(await exceptionsFirst('coupon', (only, keysOnly) => couponRows(reads, findingsOf, only, keysOnly), flagged)),
  };
}

async function* couponRows(
  reads: ReportStore,
  findingsOf: FindingsOf,
  only: string | null,
  keysOnly = false,
): AsyncGenerator<Keyed[]> {
  for await (const batch of reads.coupons(only))
    yield batch.map((c): Keyed => {
      const findings = findingsOf(c.coupon_id);
      if (keysOnly) return [c.coupon_id, NO_CELLS, findings !== ''];
      return [
        c.coupon_id,
        [
          c.coupon_id,
          c.merchant_id,
          c.status,
          c.redemption_count,
          c.usage_limit_total,
          date(c.expires_at_ms),
          date(c.updated_at_ms),
          c.vanished_sync_run_id,
          findings,
        ],
        findings !== '',
      ];
    });
}
