/**
 * The liability as finance closes it, on demand: a period's close computed over the mirror
 * (read-only, nothing written or sealed), for `ledger-recon liability --as-of` and the holder
 * report `export unclaimed`. The same walk and definitions as the sealed close.
 */
import type { Mirror } from '../db/mirror.js';
import { findingsStore } from '../findings/store.js';
import type { LiabilitySettings } from '../report/liability-sheets.js';
import { type ClosedPeriodFigures, closePeriod } from '../report/close.js';
import type { Period } from '../report/period.js';

/** The period's close with its liability at the closing cut-off, for our merchant as the newest check run pinned it. */
export async function liabilityOf(
  mirror: Mirror,
  period: Period,
  settings?: LiabilitySettings,
): Promise<ClosedPeriodFigures> {
  const findings = findingsStore(mirror);
  return closePeriod(mirror, period, undefined, {
    merchantId: await findings.pinnedMerchant(),
    inFlight: await findings.inFlightOf(),
    ...(settings ? { liability: settings } : {}),
  });
}
