/**
 * What a night's workbook is: its sheets in auditors' order, who prepared it and for which
 * merchant, and the title every printed page's footer repeats.
 */
import type { Materiality } from '../findings/finding.js';
import type { CheckRunRow } from '../findings/store.js';

/** The workbook's sheets, in auditors' order. */
export const SHEET_NAMES = [
  'Summary',
  'Findings',
  'Card reconciliation',
  'Month to date',
  'Matching',
  'Refunds by reference',
  'Coupons',
  'DP orders',
  'DP wallets',
  'Quarantine',
  'Checks',
] as const;

/** Who prepared the workpapers, and the materiality thresholds the auditor set. */
export interface ReportScope {
  preparer?: string;
  /** The merchant's name (`--merchant-name`): the title, the footer and page 1; its ID otherwise. */
  merchantName?: string;
  /** When it was prepared (epoch ms, the job's clock): the sign-off's date beside the preparer. */
  preparedAtMs?: number;
  materiality?: Materiality;
}

/** The merchant as the workbook names it: its name where one is set, else its ID. */
export function merchantOf(scope: Pick<ReportScope, 'merchantName'>, merchantId: string | null): string {
  // An ID's first eight characters name it on a footer's width; page 1 states it whole.
  return scope.merchantName ?? (merchantId === null ? 'every merchant' : `merchant ${merchantId.slice(0, 8)}`);
}

/**
 * The workbook's title, also the left of every printed page's footer: the merchant, the night's
 * date and cut-off, the verdict and the run.
 */
export function reportTitle(scope: Pick<ReportScope, 'merchantName'>, run: CheckRunRow, verdict: string): string {
  const asOf = new Date(run.asOfMs ?? run.startedAtMs).toISOString();
  return `${merchantOf(scope, run.merchantId)} — ${asOf.slice(0, 10)} ${asOf.slice(11, 16)} UTC — ${verdict}, run ${run.checkRunId}`;
}
