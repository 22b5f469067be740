/**
 * The check catalogue: one check per code (DESIGN.md), one file per check. The literal is
 * typed so that a missing or misspelt code fails to compile.
 */
import type { Check, FindingDraft } from './check.js';
import { bkLedgerNotInBooks } from './bk-ledger-not-in-books.js';
import { bkBooksNotInLedger } from './bk-books-not-in-ledger.js';
import { bkAmountMismatch } from './bk-amount-mismatch.js';
import { bkDuplicate } from './bk-duplicate.js';
import { bkAmbiguous } from './bk-ambiguous.js';
import { cvUsesMismatch } from './cv-uses-mismatch.js';
import { dpOrderNotInBooks } from './dp-order-not-in-books.js';
import { bkPurchaseNotOrdered } from './bk-purchase-not-ordered.js';
import { dpBooksAmountMismatch } from './dp-books-amount-mismatch.js';
import { bkInTransit } from './bk-in-transit.js';
import { cvCounterRegressed } from './cv-counter-regressed.js';
import { cvExpiredButActive } from './cv-expired-but-active.js';
import { cvForeignMerchant } from './cv-foreign-merchant.js';
import { cvOverRedeemed } from './cv-over-redeemed.js';
import { cvStatusMismatch } from './cv-status-mismatch.js';
import { dpDuplicateExternalRef } from './dp-duplicate-external-ref.js';
import { dpDuplicateVoucher } from './dp-duplicate-voucher.js';
import { dpFulfilmentMismatch } from './dp-fulfilment-mismatch.js';
import { dpFxRateMismatch } from './dp-fx-rate-mismatch.js';
import { dpLineArithmetic } from './dp-line-arithmetic.js';
import { dpOrderTotalMismatch } from './dp-order-total-mismatch.js';
import { dpStuckOrder } from './dp-stuck-order.js';
import { dpVoucherExpiredOnDelivery } from './dp-voucher-expired-on-delivery.js';
import { dpWalletDrift } from './dp-wallet-drift.js';
import { gcActivityAfterClose } from './gc-activity-after-close.js';
import { gcActivityAfterExpiry } from './gc-activity-after-expiry.js';
import { gcBalanceMismatch } from './gc-balance-mismatch.js';
import { gcChainGap } from './gc-chain-gap.js';
import { gcDuplicateIdempotencyKey } from './gc-duplicate-idempotency-key.js';
import { gcEntryArithmetic } from './gc-entry-arithmetic.js';
import { gcExpiryOverdue } from './gc-expiry-overdue.js';
import { gcForeignMerchant } from './gc-foreign-merchant.js';
import { gcInFlight } from './gc-in-flight.js';
import { gcStuckInFlight } from './gc-stuck-in-flight.js';
import { gcInvalidAmount } from './gc-invalid-amount.js';
import { gcLedgerRewritten } from './gc-ledger-rewritten.js';
import { gcLedgerTailMismatch } from './gc-ledger-tail-mismatch.js';
import { gcNegativeBalance } from './gc-negative-balance.js';
import { gcOrphanEntry } from './gc-orphan-entry.js';
import { gcListedNotFound } from './gc-listed-not-found.js';
import { gcRefundOverDebit } from './gc-refund-over-debit.js';
import { gcRefundWithoutDebit } from './gc-refund-without-debit.js';
import { gcStatusLedgerMismatch } from './gc-status-ledger-mismatch.js';
import { gcSuspectedDoubleDebit } from './gc-suspected-double-debit.js';
import { syncRejectedRecord } from './sync-rejected-record.js';

/** The checks in catalogue order: the one list. Each code is written once, in its check's file. */
const REGISTRY = [
  gcBalanceMismatch,
  gcLedgerTailMismatch,
  gcChainGap,
  gcEntryArithmetic,
  gcRefundOverDebit,
  gcRefundWithoutDebit,
  gcNegativeBalance,
  gcDuplicateIdempotencyKey,
  gcActivityAfterClose,
  gcActivityAfterExpiry,
  gcInvalidAmount,
  gcOrphanEntry,
  gcListedNotFound,
  gcForeignMerchant,
  gcLedgerRewritten,
  gcSuspectedDoubleDebit,
  gcStatusLedgerMismatch,
  gcExpiryOverdue,
  gcInFlight,
  gcStuckInFlight,
  cvOverRedeemed,
  cvCounterRegressed,
  cvForeignMerchant,
  cvStatusMismatch,
  cvExpiredButActive,
  dpOrderTotalMismatch,
  dpLineArithmetic,
  dpDuplicateExternalRef,
  dpDuplicateVoucher,
  dpFulfilmentMismatch,
  dpWalletDrift,
  dpVoucherExpiredOnDelivery,
  dpStuckOrder,
  dpFxRateMismatch,
  bkLedgerNotInBooks,
  bkBooksNotInLedger,
  bkAmountMismatch,
  bkDuplicate,
  bkAmbiguous,
  cvUsesMismatch,
  dpOrderNotInBooks,
  bkPurchaseNotOrdered,
  dpBooksAmountMismatch,
  bkInTransit,
  syncRejectedRecord,
] as const;

/** Every code of the catalogue, from the registry. */
export type CheckCode = (typeof REGISTRY)[number]['code'];

/** The checks in catalogue order. */
export const CATALOGUE: readonly Check<CheckCode>[] = REGISTRY;

/** A check's draft with the check that drafted it: what the findings stage decides on. */
export interface Drafted {
  check: Check<CheckCode>;
  draft: FindingDraft;
}

/** The codes in catalogue order. */
export const CHECK_CODES: readonly CheckCode[] = REGISTRY.map((check) => check.code);

/** Each check by its code, typed as its own kind. */
export const CHECKS = Object.fromEntries(REGISTRY.map((check) => [check.code, check])) as {
  [C in CheckCode]: Extract<(typeof REGISTRY)[number], { code: C }>;
};

/** The checks that read the books' matching: they cannot run when it failed. */
export const BOOKS_CODES: readonly CheckCode[] = CATALOGUE.filter((check) => check.needsBooks).map(
  (check) => check.code,
);
