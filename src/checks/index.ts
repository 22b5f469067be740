/**
 * The check catalogue: one check per code (DESIGN.md), one file per check. The literal is
 * typed so that a missing or misspelt code fails to compile.
 */
import type { Check, CheckCode } from './check.js';
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
import { gcRefundOverDebit } from './gc-refund-over-debit.js';
import { gcRefundWithoutDebit } from './gc-refund-without-debit.js';
import { gcStatusLedgerMismatch } from './gc-status-ledger-mismatch.js';
import { gcSuspectedDoubleDebit } from './gc-suspected-double-debit.js';
import { syncRejectedRecord } from './sync-rejected-record.js';

export const CHECKS = {
  GC_BALANCE_MISMATCH: gcBalanceMismatch,
  GC_LEDGER_TAIL_MISMATCH: gcLedgerTailMismatch,
  GC_CHAIN_GAP: gcChainGap,
  GC_ENTRY_ARITHMETIC: gcEntryArithmetic,
  GC_REFUND_OVER_DEBIT: gcRefundOverDebit,
  GC_REFUND_WITHOUT_DEBIT: gcRefundWithoutDebit,
  GC_NEGATIVE_BALANCE: gcNegativeBalance,
  GC_DUPLICATE_IDEMPOTENCY_KEY: gcDuplicateIdempotencyKey,
  GC_ACTIVITY_AFTER_CLOSE: gcActivityAfterClose,
  GC_ACTIVITY_AFTER_EXPIRY: gcActivityAfterExpiry,
  GC_INVALID_AMOUNT: gcInvalidAmount,
  GC_ORPHAN_ENTRY: gcOrphanEntry,
  GC_FOREIGN_MERCHANT: gcForeignMerchant,
  GC_LEDGER_REWRITTEN: gcLedgerRewritten,
  GC_SUSPECTED_DOUBLE_DEBIT: gcSuspectedDoubleDebit,
  GC_STATUS_LEDGER_MISMATCH: gcStatusLedgerMismatch,
  GC_EXPIRY_OVERDUE: gcExpiryOverdue,
  GC_IN_FLIGHT: gcInFlight,
  GC_STUCK_IN_FLIGHT: gcStuckInFlight,
  CV_OVER_REDEEMED: cvOverRedeemed,
  CV_COUNTER_REGRESSED: cvCounterRegressed,
  CV_FOREIGN_MERCHANT: cvForeignMerchant,
  CV_STATUS_MISMATCH: cvStatusMismatch,
  CV_EXPIRED_BUT_ACTIVE: cvExpiredButActive,
  DP_ORDER_TOTAL_MISMATCH: dpOrderTotalMismatch,
  DP_LINE_ARITHMETIC: dpLineArithmetic,
  DP_DUPLICATE_EXTERNAL_REF: dpDuplicateExternalRef,
  DP_DUPLICATE_VOUCHER: dpDuplicateVoucher,
  DP_FULFILMENT_MISMATCH: dpFulfilmentMismatch,
  DP_WALLET_DRIFT: dpWalletDrift,
  DP_VOUCHER_EXPIRED_ON_DELIVERY: dpVoucherExpiredOnDelivery,
  DP_STUCK_ORDER: dpStuckOrder,
  DP_FX_RATE_MISMATCH: dpFxRateMismatch,
  BK_LEDGER_NOT_IN_BOOKS: bkLedgerNotInBooks,
  BK_BOOKS_NOT_IN_LEDGER: bkBooksNotInLedger,
  BK_AMOUNT_MISMATCH: bkAmountMismatch,
  BK_DUPLICATE: bkDuplicate,
  BK_AMBIGUOUS: bkAmbiguous,
  CV_USES_MISMATCH: cvUsesMismatch,
  DP_ORDER_NOT_IN_BOOKS: dpOrderNotInBooks,
  BK_PURCHASE_NOT_ORDERED: bkPurchaseNotOrdered,
  DP_BOOKS_AMOUNT_MISMATCH: dpBooksAmountMismatch,
  BK_IN_TRANSIT: bkInTransit,
  SYNC_REJECTED_RECORD: syncRejectedRecord,
} as const satisfies Record<CheckCode, Check>;

/** The checks in catalogue order. */
export const CATALOGUE: readonly Check[] = Object.values(CHECKS);
