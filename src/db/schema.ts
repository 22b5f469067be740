/**
 * The mirror's schema. Plain names for people writing SQL; money in integer cents
 * (`*_cents`, NULL when the service sent an amount that is not on a cent: the raw JSON keeps
 * what it sent); times as received (RFC 3339 text) and as epoch milliseconds (`*_ms`).
 * Every mirrored record keeps its raw JSON (`raw_json`), voucher codes hashed and PINs removed.
 * Documented for investigators in src/db/README.md.
 */

import { getTableColumns } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// ---- the sync's bookkeeping ---------------------------------------------------------------

export const syncRuns = sqliteTable('sync_runs', {
  syncRunId: integer('sync_run_id').primaryKey({ autoIncrement: true }),
  mode: text('mode', { enum: ['full', 'incremental'] }).notNull(),
  status: text('status', { enum: ['running', 'completed', 'failed'] }).notNull(),
  startedAt: text('started_at').notNull(),
  startedAtMs: integer('started_at_ms').notNull(),
  finishedAt: text('finished_at'),
  finishedAtMs: integer('finished_at_ms'),
  pid: integer('pid').notNull(),
  giftcardBaseUrl: text('giftcard_base_url').notNull(),
  dpBaseUrl: text('dp_base_url').notNull(),
  error: text('error'),
  summaryJson: text('summary_json'),
  /** The sync recorded each quarantined record it rejected in quarantine_sightings (since migration 0022, pg 0008). */
  sightingsKept: integer('sightings_kept', { mode: 'boolean' }).notNull().default(false),
  /**
   * The sync moved the mirror to other services (`--rebind`, since migration 0022, pg 0008): the
   * earlier services' cards, coupons and orders left the current tables, their versions closed by it.
   */
  rebound: integer('rebound', { mode: 'boolean' }).notNull().default(false),
});

/**
 * Whose records the mirror holds: both services' addresses and client IDs, bound by the first
 * sync. A later sync with another identity stops (`--rebind` moves the mirror on purpose), so
 * two services' data never merge into one mirror. One row.
 */
export const mirrorIdentity = sqliteTable('mirror_identity', {
  identityId: integer('identity_id').primaryKey(),
  giftcardBaseUrl: text('giftcard_base_url').notNull(),
  giftcardClientId: text('giftcard_client_id').notNull(),
  dpBaseUrl: text('dp_base_url').notNull(),
  dpClientId: text('dp_client_id').notNull(),
  /** When it was bound, or last rebound. */
  boundAt: text('bound_at').notNull(),
});

/** Where each resource's walk stands, committed with every page: a killed sync resumes here. */
export const syncCheckpoints = sqliteTable('sync_checkpoints', {
  resource: text('resource').primaryKey(),
  /** The run that started this walk (a resumed walk keeps it). */
  walkId: integer('walk_id').notNull(),
  mode: text('mode', { enum: ['full', 'incremental'] }).notNull(),
  cursor: text('cursor'),
  pages: integer('pages').notNull().default(0),
  records: integer('records').notNull().default(0),
  /** Incremental ledger walks stop below this createdAt (ms). */
  stopBeforeMs: integer('stop_before_ms'),
  done: integer('done', { mode: 'boolean' }).notNull().default(false),
  updatedAtMs: integer('updated_at_ms').notNull(),
});

export const quarantine = sqliteTable(
  'quarantine',
  {
    quarantineId: integer('quarantine_id').primaryKey({ autoIncrement: true }),
    resource: text('resource').notNull(),
    /** The record's identifier when the raw JSON has one. */
    recordId: text('record_id'),
    reason: text('reason').notNull(),
    rawJson: text('raw_json').notNull(),
    rawSha256: text('raw_sha256').notNull(),
    firstSyncRunId: integer('first_sync_run_id').notNull(),
    lastSyncRunId: integer('last_sync_run_id').notNull(),
  },
  (t) => [
    uniqueIndex('quarantine_record').on(t.resource, t.rawSha256),
    index('quarantine_last_run').on(t.lastSyncRunId),
  ],
);

/**
 * Each sync that rejected a quarantined record (its row keeps the first and the last alone): a
 * past night's SYNC_REJECTED_RECORD is re-performed with the records its sync rejected.
 */
export const quarantineSightings = sqliteTable(
  'quarantine_sightings',
  {
    quarantineId: integer('quarantine_id').notNull(),
    syncRunId: integer('sync_run_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.syncRunId, t.quarantineId] })],
);

// ---- gift card service ------------------------------------------------------------------

export const giftCards = sqliteTable(
  'gift_cards',
  {
    giftCardId: text('gift_card_id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    programId: text('program_id'),
    templateId: text('template_id'),
    status: text('status').notNull(),
    currency: text('currency').notNull(),
    initialBalanceCents: integer('initial_balance_cents'),
    remainingBalanceCents: integer('remaining_balance_cents'),
    version: integer('version').notNull(),
    issuedAt: text('issued_at').notNull(),
    issuedAtMs: integer('issued_at_ms').notNull(),
    expiresAt: text('expires_at').notNull(),
    expiresAtMs: integer('expires_at_ms').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
    updatedAtMs: integer('updated_at_ms').notNull(),
    /** When we read this snapshot (our clock), and in which sync. */
    readAtMs: integer('read_at_ms').notNull(),
    readSyncRunId: integer('read_sync_run_id').notNull(),
    firstSyncRunId: integer('first_sync_run_id').notNull(),
    rawJson: text('raw_json').notNull(),
  },
  (t) => [
    index('gift_cards_status').on(t.status),
    // Covers the one walk of every card in ID order (the checks, the roll-forward, the close) without touching the raw JSON.
    index('gift_cards_ledger_walk').on(
      t.giftCardId,
      t.merchantId,
      t.status,
      t.currency,
      t.programId,
      t.issuedAtMs,
      t.initialBalanceCents,
      t.remainingBalanceCents,
      t.expiresAtMs,
      t.readAtMs,
      t.firstSyncRunId,
    ),
  ],
);

/** A row per observed change of a card (its balance, status, version or any other field the sync read), with the fields the ledger walk reads as of then. */
export const giftCardHistory = sqliteTable(
  'gift_card_history',
  {
    historyId: integer('history_id').primaryKey({ autoIncrement: true }),
    giftCardId: text('gift_card_id').notNull(),
    syncRunId: integer('sync_run_id').notNull(),
    readAtMs: integer('read_at_ms').notNull(),
    status: text('status').notNull(),
    remainingBalanceCents: integer('remaining_balance_cents'),
    version: integer('version').notNull(),
    /**
     * 1 when this row keeps the card's other fields the ledger walk reads, as the sync read them
     * (a row from before migration 0020 / pg 0006 keeps none: its card reads them as it is now).
     */
    fieldsKept: integer('fields_kept'),
    merchantId: text('merchant_id'),
    currency: text('currency'),
    programId: text('program_id'),
    issuedAtMs: integer('issued_at_ms'),
    initialBalanceCents: integer('initial_balance_cents'),
    expiresAtMs: integer('expires_at_ms'),
  },
  (t) => [
    index('gift_card_history_card').on(t.giftCardId, t.syncRunId),
    index('gift_card_history_sync').on(t.syncRunId),
  ],
);

/**
 * A card's fields its history keeps beside its status, balance and read time (where
 * `fields_kept` is 1): those the ledger walk reads of a card as of a past sync.
 */
export const CARD_HISTORY_FIELDS = [
  'merchant_id',
  'currency',
  'program_id',
  'issued_at_ms',
  'initial_balance_cents',
  'expires_at_ms',
] as const;

/** Cards the ledger names but the service answered 404 for (orphaned entries). */
export const missingGiftCards = sqliteTable('missing_gift_cards', {
  giftCardId: text('gift_card_id').primaryKey(),
  syncRunId: integer('sync_run_id').notNull(),
  checkedAtMs: integer('checked_at_ms').notNull(),
});

/**
 * Cards the list answered with that a read by ID answered 404 for, per sync (the service
 * disagrees with itself): GC_LISTED_NOT_FOUND names them, as that night saw them.
 */
export const listedNotFound = sqliteTable(
  'listed_not_found',
  {
    syncRunId: integer('sync_run_id').notNull(),
    giftCardId: text('gift_card_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.syncRunId, t.giftCardId] })],
);

/**
 * The newest night's population leaves (the evidence's Merkle tree over every card with its
 * entries), one per card, kept so that the next night hashes again only the cards that moved:
 * a card whose own figures and number of entries are its `stamp`, none of whose entries was
 * mirrored or rewritten after `sync_run_id`, keeps its leaf (src/ledger/leaves.ts).
 */
export const populationLeaves = sqliteTable('population_leaves', {
  giftCardId: text('gift_card_id').primaryKey(),
  stamp: text('stamp').notNull(),
  syncRunId: integer('sync_run_id').notNull(),
  /** SHA-256(0x00 ‖ the card's canonical text), hex. */
  leaf: text('leaf').notNull(),
});

/** Cards that still moved after the settle pass: the checker reports GC_IN_FLIGHT. */
export const giftCardsInFlight = sqliteTable(
  'gift_cards_in_flight',
  {
    syncRunId: integer('sync_run_id').notNull(),
    giftCardId: text('gift_card_id').notNull(),
    detail: text('detail').notNull(),
  },
  (t) => [primaryKey({ columns: [t.syncRunId, t.giftCardId] })],
);

export const giftCardTransactions = sqliteTable(
  'gift_card_transactions',
  {
    /**
     * The mirror's own row number, in the order entries were first mirrored. The service's
     * random UUIDs live in a unique index instead: a first sync loads the ledger in rowid
     * order and builds that index once, sorted, at the end.
     */
    entryId: integer('entry_id').primaryKey(),
    transactionId: text('transaction_id').notNull(),
    giftCardId: text('gift_card_id').notNull(),
    type: text('type').notNull(),
    amountCents: integer('amount_cents'),
    balanceBeforeCents: integer('balance_before_cents'),
    balanceAfterCents: integer('balance_after_cents'),
    referenceId: text('reference_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    createdAt: text('created_at').notNull(),
    createdAtMs: integer('created_at_ms').notNull(),
    /** The service's list order: higher is newer. Orders equal createdAt, never the ID. */
    listOrder: integer('list_order').notNull(),
    firstSyncRunId: integer('first_sync_run_id').notNull(),
    /** Set when a full pass no longer found the entry. */
    vanishedSyncRunId: integer('vanished_sync_run_id'),
    rawJson: text('raw_json').notNull(),
  },
  (t) => [
    uniqueIndex('gift_card_transactions_id').on(t.transactionId),
    // Covers the checker's walk of every card's ledger in order: one sequential index scan,
    // no lookups into the table (whose rows carry the raw JSON).
    index('gift_card_transactions_card').on(
      t.giftCardId,
      t.createdAtMs,
      t.listOrder,
      t.vanishedSyncRunId,
      t.transactionId,
      t.type,
      t.amountCents,
      t.balanceBeforeCents,
      t.balanceAfterCents,
      t.referenceId,
      t.idempotencyKey,
      t.firstSyncRunId,
    ),
    index('gift_card_transactions_created').on(t.createdAtMs),
    index('gift_card_transactions_reference').on(t.referenceId),
    index('gift_card_transactions_idempotency').on(t.idempotencyKey),
    index('gift_card_transactions_first_sync').on(t.firstSyncRunId),
  ],
);

/**
 * The entries a --full walk has found again that the mirror held before it began, committed
 * with each page so a walk resumed after a kill still knows them. When the walk completes,
 * the mirror's other earlier entries have vanished from the service; the table is then
 * emptied. Holding these here, rather than stamping every entry, leaves the ledger unwritten
 * where nothing changed.
 */
export const ledgerWalkSeen = sqliteTable('ledger_walk_seen', {
  walkId: integer('walk_id').notNull(),
  /** The entry's row in gift_card_transactions: an integer compares faster than its UUID. */
  entryId: integer('entry_id').notNull(),
});

/** Earlier versions of ledger entries that came back changed, or vanished. */
export const giftCardTransactionVersions = sqliteTable(
  'gift_card_transaction_versions',
  {
    versionId: integer('version_id').primaryKey({ autoIncrement: true }),
    transactionId: text('transaction_id').notNull(),
    syncRunId: integer('sync_run_id').notNull(),
    change: text('change', { enum: ['changed', 'vanished'] }).notNull(),
    previousRawJson: text('previous_raw_json').notNull(),
    newRawJson: text('new_raw_json'),
    // The entry's figures as they were before this change, copied from its row (null on
    // versions recorded before they were kept): a past night re-performs with them.
    previousGiftCardId: text('previous_gift_card_id'),
    previousType: text('previous_type'),
    previousAmountCents: integer('previous_amount_cents'),
    previousBalanceBeforeCents: integer('previous_balance_before_cents'),
    previousBalanceAfterCents: integer('previous_balance_after_cents'),
    previousReferenceId: text('previous_reference_id'),
    previousIdempotencyKey: text('previous_idempotency_key'),
    previousCreatedAtMs: integer('previous_created_at_ms'),
  },
  (t) => [index('gift_card_transaction_versions_entry').on(t.transactionId)],
);

/**
 * An entry's columns its versions keep as they were before the change (`previous_<column>`):
 * the sync copies them, and a past night's ledger is rebuilt with them.
 */
export const ENTRY_VERSIONED_COLUMNS: readonly string[] = Object.values(getTableColumns(giftCardTransactionVersions))
  .map((column) => column.name)
  .filter((name) => name.startsWith('previous_') && name !== 'previous_raw_json')
  .map((name) => name.slice('previous_'.length));

export const coupons = sqliteTable('coupons', {
  couponId: text('coupon_id').primaryKey(),
  merchantId: text('merchant_id').notNull(),
  programId: text('program_id'),
  templateId: text('template_id'),
  status: text('status').notNull(),
  redemptionCount: integer('redemption_count').notNull(),
  usageLimitTotal: integer('usage_limit_total').notNull(),
  version: integer('version').notNull(),
  expiresAt: text('expires_at').notNull(),
  expiresAtMs: integer('expires_at_ms').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
  updatedAtMs: integer('updated_at_ms').notNull(),
  /** The first complete walk of the list that did not return it; NULL while the service returns it. */
  vanishedSyncRunId: integer('vanished_sync_run_id'),
  firstSyncRunId: integer('first_sync_run_id').notNull(),
  rawJson: text('raw_json').notNull(),
});

/** A row per observed change of a coupon's status, redemption count or version. */
export const couponHistory = sqliteTable(
  'coupon_history',
  {
    historyId: integer('history_id').primaryKey({ autoIncrement: true }),
    couponId: text('coupon_id').notNull(),
    syncRunId: integer('sync_run_id').notNull(),
    status: text('status').notNull(),
    redemptionCount: integer('redemption_count').notNull(),
    version: integer('version').notNull(),
  },
  (t) => [index('coupon_history_coupon').on(t.couponId, t.syncRunId)],
);

/**
 * Each coupon as every sync that changed it read it (its raw JSON), or no longer listed (null):
 * the coupons as of any sync, for a past night's population.
 */
export const couponVersions = sqliteTable(
  'coupon_versions',
  {
    versionId: integer('version_id').primaryKey({ autoIncrement: true }),
    couponId: text('coupon_id').notNull(),
    syncRunId: integer('sync_run_id').notNull(),
    rawJson: text('raw_json'),
  },
  (t) => [index('coupon_versions_coupon').on(t.couponId, t.syncRunId)],
);

// ---- delivery partner service --------------------------------------------------------------

/** One row per wallet per sync: the balance as read then. */
export const dpWalletSnapshots = sqliteTable(
  'dp_wallet_snapshots',
  {
    snapshotId: integer('snapshot_id').primaryKey({ autoIncrement: true }),
    syncRunId: integer('sync_run_id').notNull(),
    walletId: text('wallet_id').notNull(),
    currency: text('currency').notNull(),
    balanceCents: integer('balance_cents'),
    selected: integer('selected', { mode: 'boolean' }).notNull(),
    /** The read is an interval (the wallet carries no timestamp): from the request sent (null before it was kept) to the answer received. */
    requestedAtMs: integer('requested_at_ms'),
    readAtMs: integer('read_at_ms').notNull(),
    rawJson: text('raw_json').notNull(),
  },
  (t) => [uniqueIndex('dp_wallet_snapshots_run').on(t.syncRunId, t.walletId)],
);

export const dpProducts = sqliteTable('dp_products', {
  productId: text('product_id').primaryKey(),
  productName: text('product_name').notNull(),
  displayName: text('display_name'),
  currency: text('currency').notNull(),
  /** The first complete walk of the list that did not return it; NULL while the service returns it. */
  vanishedSyncRunId: integer('vanished_sync_run_id'),
  rawJson: text('raw_json').notNull(),
});

export const dpVariants = sqliteTable('dp_variants', {
  variantId: text('variant_id').primaryKey(),
  productId: text('product_id')
    .notNull()
    .references(() => dpProducts.productId, { onDelete: 'cascade' }),
  variantName: text('variant_name').notNull(),
  mrpCents: integer('mrp_cents'),
  priceCents: integer('price_cents'),
  convertedSellingPriceCents: integer('converted_selling_price_cents'),
  stock: integer('stock'),
  rawJson: text('raw_json').notNull(),
});

export const dpOrders = sqliteTable(
  'dp_orders',
  {
    orderId: text('order_id').primaryKey(),
    externalRefId: text('external_ref_id').notNull(),
    dpId: text('dp_id').notNull(),
    type: text('type'),
    status: text('status').notNull(),
    fulfillmentStatus: text('fulfillment_status').notNull(),
    currency: text('currency').notNull(),
    totalAmountCents: integer('total_amount_cents'),
    totalOrderMrpCents: integer('total_order_mrp_cents'),
    createdAt: text('created_at').notNull(),
    createdAtMs: integer('created_at_ms').notNull(),
    updatedAt: text('updated_at').notNull(),
    updatedAtMs: integer('updated_at_ms').notNull(),
    /** The first complete walk of the list that did not return it; NULL while the service returns it. */
    vanishedSyncRunId: integer('vanished_sync_run_id'),
    firstSyncRunId: integer('first_sync_run_id').notNull(),
    rawJson: text('raw_json').notNull(),
  },
  (t) => [index('dp_orders_external_ref').on(t.externalRefId)],
);

export const dpOrderLines = sqliteTable(
  'dp_order_lines',
  {
    orderId: text('order_id')
      .notNull()
      .references(() => dpOrders.orderId, { onDelete: 'cascade' }),
    lineNo: integer('line_no').notNull(),
    variantId: text('variant_id').notNull(),
    productId: text('product_id').notNull(),
    quantity: integer('quantity').notNull(),
    currency: text('currency').notNull(),
    mrpCents: integer('mrp_cents'),
    priceCents: integer('price_cents'),
    totalMrpCents: integer('total_mrp_cents'),
    totalPriceCents: integer('total_price_cents'),
    totalConvertedPriceCents: integer('total_converted_price_cents'),
    /** The rate as the service sent it (a rate, not money). */
    fxRate: real('fx_rate').notNull(),
    markUpPercentage: real('mark_up_percentage'),
    fulfillmentStatus: text('fulfillment_status').notNull(),
    allocatedQty: integer('allocated_qty'),
    fulfilledQty: integer('fulfilled_qty').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.lineNo] })],
);

/** Delivered vouchers: the code only as its SHA-256 hash; the PIN is never stored. */
export const dpVouchers = sqliteTable(
  'dp_vouchers',
  {
    orderId: text('order_id')
      .notNull()
      .references(() => dpOrders.orderId, { onDelete: 'cascade' }),
    lineNo: integer('line_no').notNull(),
    voucherNo: integer('voucher_no').notNull(),
    codeSha256: text('code_sha256').notNull(),
    expirationDate: text('expiration_date').notNull(),
    expirationDateMs: integer('expiration_date_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.lineNo, t.voucherNo] }), index('dp_vouchers_code').on(t.codeSha256)],
);

/** A row per observed change of an order's status or fulfilment. */
export const dpOrderHistory = sqliteTable(
  'dp_order_history',
  {
    historyId: integer('history_id').primaryKey({ autoIncrement: true }),
    orderId: text('order_id').notNull(),
    syncRunId: integer('sync_run_id').notNull(),
    status: text('status').notNull(),
    fulfillmentStatus: text('fulfillment_status').notNull(),
    updatedAtMs: integer('updated_at_ms').notNull(),
  },
  (t) => [index('dp_order_history_order').on(t.orderId, t.syncRunId)],
);

/**
 * Each order as every sync that changed it read it (its raw JSON, currency and total), or no
 * longer listed (null raw JSON): the orders as of any sync, for a past night's population.
 */
export const dpOrderVersions = sqliteTable(
  'dp_order_versions',
  {
    versionId: integer('version_id').primaryKey({ autoIncrement: true }),
    orderId: text('order_id').notNull(),
    syncRunId: integer('sync_run_id').notNull(),
    rawJson: text('raw_json'),
    currency: text('currency'),
    totalAmountCents: integer('total_amount_cents'),
  },
  (t) => [index('dp_order_versions_order').on(t.orderId, t.syncRunId)],
);

// ---- the checker ---------------------------------------------------------------------------

/** One row per `check` (or `run`): over which sync, as of when, with what verdict. */
export const checkRuns = sqliteTable('check_runs', {
  checkRunId: integer('check_run_id').primaryKey({ autoIncrement: true }),
  /** The sync whose mirror was checked: the newest one when the check started. */
  syncRunId: integer('sync_run_id'),
  status: text('status', { enum: ['running', 'completed', 'failed'] }).notNull(),
  verdict: text('verdict', { enum: ['RECONCILED', 'BREAKS', 'INCOMPLETE'] }),
  startedAt: text('started_at').notNull(),
  startedAtMs: integer('started_at_ms').notNull(),
  finishedAtMs: integer('finished_at_ms'),
  /** Data as of: when the checked sync started reading. */
  asOf: text('as_of'),
  asOfMs: integer('as_of_ms'),
  /** The merchant whose records are ours (GC_FOREIGN_MERCHANT, CV_FOREIGN_MERCHANT). */
  merchantId: text('merchant_id'),
  optionsJson: text('options_json').notNull(),
  /** Checks that could not run, with their errors: they make the run INCOMPLETE. */
  failedChecksJson: text('failed_checks_json'),
  /** Why a run failed (status 'failed'), as {code, message}: the night's record when it could not finish. */
  errorJson: text('error_json'),
  summaryJson: text('summary_json'),
  /**
   * How this run's fingerprints were made: NULL before the findings stage (ledger-recon 0.1,
   * whose event breaks named the sync that found them), 1 since. A run compares event breaks
   * across nights only with a run of the same version.
   */
  findingsVersion: integer('findings_version'),
  /**
   * The nightly run's workbook: 'pending' from its check's end until its files are written,
   * 'written' after (NULL for a `check`, which writes none). A night killed while writing its
   * report stays 'pending': `history` lists it as INTERRUPTED.
   */
  reportState: text('report_state', { enum: ['pending', 'written'] }),
});

/**
 * What a check run's confirmation pass re-read by ID (since migration 0023, pg 0009): a row for
 * every run recorded since, so that re-performance knows the night's answers. `rereads_json` is
 * the answers exactly as the run digested them (its summary's `confirmation.sha256` is their
 * SHA-256): each card and entry re-read, as the mirror held it and as the service answered;
 * NULL for a run without a confirmation pass (`check`).
 */
export const checkRunRereads = sqliteTable('check_run_rereads', {
  checkRunId: integer('check_run_id').primaryKey(),
  rereadsJson: text('rereads_json'),
});

/**
 * What the newest check run's walk made of every card's ledger (since migration 0025, pg 0011;
 * with each card's references with a refund since 0026, pg 0012), kept for its report's Card
 * reconciliation and Refunds by reference sheets, which then read the cards alone and not their
 * entries: a row per chunk of 16,384 cards in the walk's order, its record in base64 (see
 * src/ledger/card-sums.ts for the layout). A run keeps its own and drops the run's before; a
 * report of an earlier run walks the ledger.
 */
export const checkRunCardSums = sqliteTable(
  'check_run_card_sums',
  {
    checkRunId: integer('check_run_id').notNull(),
    chunk: integer('chunk').notNull(),
    cards: integer('cards').notNull(),
    sumsBase64: text('sums_base64').notNull(),
  },
  (t) => [primaryKey({ columns: [t.checkRunId, t.chunk] })],
);

/** A finding's columns, shared by the findings of a run and the findings it held in flight. */
function findingColumns() {
  return {
    checkRunId: integer('check_run_id').notNull(),
    fingerprint: text('fingerprint').notNull(),
    code: text('code').notNull(),
    severity: text('severity', { enum: ['error', 'warning', 'info'] }).notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id').notNull(),
    giftCardId: text('gift_card_id'),
    referenceId: text('reference_id'),
    currency: text('currency'),
    /** What expected, actual and difference count: 'cents' (money) or 'count'; NULL when none. */
    unit: text('unit', { enum: ['cents', 'count'] }),
    expected: integer('expected'),
    actual: integer('actual'),
    difference: integer('difference'),
    /** Cents of `currency` at stake; findings sharing a stake key point at the same money. */
    stakeCents: integer('stake_cents').notNull().default(0),
    stakeKey: text('stake_key').notNull().default(''),
    message: text('message').notNull(),
    state: text('state', { enum: ['new', 'open', 'accepted'] }).notNull(),
    firstSeenCheckRunId: integer('first_seen_check_run_id').notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
    firstSeenAtMs: integer('first_seen_at_ms').notNull(),
    ageDays: integer('age_days').notNull(),
    /** The records the finding is about, as a JSON array of {type, id}. */
    recordsJson: text('records_json').notNull(),
    /** Hash of the break's particulars: an acceptance lapses when they change. */
    detailSha256: text('detail_sha256').notNull(),
    /** The acceptance that held in this run (state 'accepted'): its note, who, when, until. */
    acceptedNote: text('accepted_note'),
    acceptedBy: text('accepted_by'),
    acceptedAtMs: integer('accepted_at_ms'),
    acceptedUntilMs: integer('accepted_until_ms'),
    /** Why an earlier acceptance no longer held in this run (expired, or the break changed). */
    acceptanceEnded: text('acceptance_ended'),
  };
}

/** Every finding of every check run; a fingerprint names the same break across runs. */
export const findings = sqliteTable('findings', findingColumns(), (t) => [
  primaryKey({ columns: [t.checkRunId, t.fingerprint] }),
  index('findings_fingerprint').on(t.fingerprint),
  index('findings_code').on(t.checkRunId, t.code),
]);

/**
 * Breaks seen before that a run could not judge because their card was in flight: kept with
 * their first-seen date for the run that judges them again. Neither open nor resolved.
 */
export const heldFindings = sqliteTable('held_findings', findingColumns(), (t) => [
  primaryKey({ columns: [t.checkRunId, t.fingerprint] }),
]);

/** Findings of the previous run that this run no longer sees. */
export const resolvedFindings = sqliteTable(
  'resolved_findings',
  {
    checkRunId: integer('check_run_id').notNull(),
    fingerprint: text('fingerprint').notNull(),
    code: text('code').notNull(),
    severity: text('severity').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id').notNull(),
    message: text('message').notNull(),
    firstSeenAt: text('first_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.checkRunId, t.fingerprint] })],
);

/** An acceptance's particulars: of the one in force (finding_acceptances) and of each recorded (its history). */
const acceptanceColumns = () => ({
  note: text('note').notNull(),
  acceptedAt: text('accepted_at').notNull(),
  acceptedAtMs: integer('accepted_at_ms').notNull(),
  /** Who accepted (`accept --by`, default the operating-system user); NULL before it was asked. */
  acceptedBy: text('accepted_by'),
  /** The acceptance lapses after this date (UTC). NULL: until the break changes. */
  until: text('until'),
  untilMs: integer('until_ms'),
  /** The break as it was accepted: a changed break is no longer accepted. */
  detailSha256: text('detail_sha256').notNull(),
  checkRunId: integer('check_run_id').notNull(),
});

/** Known breaks a person accepted: visible in every report, not failing runs. */
export const findingAcceptances = sqliteTable('finding_acceptances', {
  fingerprint: text('fingerprint').primaryKey(),
  ...acceptanceColumns(),
});

/**
 * Every acceptance as it was recorded, never replaced: finding_acceptances holds the one in force
 * now, this the ones in force before it, so a past night's standing is re-performed with the
 * acceptances as they stood then (`verify --run`). Migration 0021 / pg 0007 copied in those on
 * record then; one replaced before it is not known.
 */
export const findingAcceptanceHistory = sqliteTable(
  'finding_acceptance_history',
  {
    historyId: integer('history_id').primaryKey({ autoIncrement: true }),
    fingerprint: text('fingerprint').notNull(),
    ...acceptanceColumns(),
  },
  (t) => [index('finding_acceptance_history_fingerprint').on(t.fingerprint, t.acceptedAtMs)],
);

/** The gift card liability roll-forward per currency, per check run. */
/**
 * The liability workpaper of each period closed (report/liability-sheets.ts), a row per currency,
 * program and issue month: what the close stated, kept for the liability_by_vintage view. A
 * period closed again replaces its rows; program_id is '' for cards without a program.
 */
export const liabilityVintages = sqliteTable(
  'liability_vintages',
  {
    period: text('period').notNull(),
    cutOffMs: integer('cut_off_ms').notNull(),
    currency: text('currency').notNull(),
    programId: text('program_id').notNull(),
    issueMonth: text('issue_month').notNull(),
    ageMonths: integer('age_months').notNull(),
    cards: integer('cards').notNull(),
    issuedCents: integer('issued_cents').notNull(),
    redeemedCents: integer('redeemed_cents').notNull(),
    voidedCents: integer('voided_cents').notNull(),
    expiredCents: integer('expired_cents').notNull(),
    remainingCents: integer('remaining_cents').notNull(),
    unexplainedCents: integer('unexplained_cents').notNull(),
    unknownCards: integer('unknown_cards').notNull(),
    escheatCents: integer('escheat_cents').notNull(),
    escheatCards: integer('escheat_cards').notNull(),
    breakageBaseCents: integer('breakage_base_cents').notNull(),
    expectedBreakageCents: integer('expected_breakage_cents').notNull(),
    recognisedBreakageCents: integer('recognised_breakage_cents').notNull(),
  },
  (t) => [primaryKey({ columns: [t.period, t.currency, t.programId, t.issueMonth] })],
);

/** The same close's bands: the remaining liability by time since last activity and to expiry (the liability_dormancy view). */
export const liabilityBands = sqliteTable(
  'liability_bands',
  {
    period: text('period').notNull(),
    cutOffMs: integer('cut_off_ms').notNull(),
    /** 'since last activity' or 'to expiry'. */
    measure: text('measure').notNull(),
    currency: text('currency').notNull(),
    programId: text('program_id').notNull(),
    /** The band's place among its measure's bands, youngest first. */
    bandOrder: integer('band_order').notNull(),
    band: text('band').notNull(),
    cards: integer('cards').notNull(),
    valueCents: integer('value_cents').notNull(),
  },
  (t) => [primaryKey({ columns: [t.period, t.measure, t.currency, t.programId, t.bandOrder] })],
);

export const liabilityRollforward = sqliteTable(
  'liability_rollforward',
  {
    checkRunId: integer('check_run_id').notNull(),
    currency: text('currency').notNull(),
    openingCents: integer('opening_cents').notNull(),
    issuedCents: integer('issued_cents').notNull(),
    debitedCents: integer('debited_cents').notNull(),
    refundedCents: integer('refunded_cents').notNull(),
    voidedCents: integer('voided_cents').notNull(),
    expiredCents: integer('expired_cents').notNull(),
    closingCents: integer('closing_cents').notNull(),
    /** The service's figure at the cut-off: Σ remainingBalance of the open cards (cards in flight at their ledger balance). */
    cardsRemainingCents: integer('cards_remaining_cents').notNull(),
    /** cards_remaining − closing: zero when the roll-forward closes. */
    differenceCents: integer('difference_cents').notNull(),
    /** What the opening moved by when the ledger before the previous cut-off is not what the previous run saw (see rebase_reason). */
    rebaseCents: integer('rebase_cents').notNull().default(0),
    rebaseReason: text('rebase_reason'),
    /** Σ what the cards owe at the cut-off by their ledgers (null in rows written before it was kept). */
    ledgerClosingCents: integer('ledger_closing_cents'),
    /** What cards in flight hold beyond their ledgers, and how many: shown apart, never a break. */
    inFlightCents: integer('in_flight_cents').notNull().default(0),
    inFlightCards: integer('in_flight_cards').notNull().default(0),
    /** Cards whose figures an amount off the cent leaves unknown: counted apart. */
    unknownCards: integer('unknown_cards').notNull().default(0),
    /** The roll-forward's opening cut-off (null: from the beginning) and closing cut-off, epoch ms. */
    fromMs: integer('from_ms'),
    cutOffMs: integer('cut_off_ms'),
  },
  (t) => [primaryKey({ columns: [t.checkRunId, t.currency] })],
);

// ---- the evidence (written by src/evidence/ only) ----------------------------------------

/**
 * Every evidence manifest the mirror's runs and closes wrote, in one chain: each names the digest
 * of the one before it (docs/evidence.md).
 */
export const evidenceManifests = sqliteTable('evidence_manifests', {
  /** Its place in the chain, from 1. */
  sequence: integer('sequence').primaryKey(),
  /** run or close. */
  kind: text('kind').notNull(),
  /** What it seals: `check run 3`, `close 2026-10`. */
  subject: text('subject').notNull(),
  /** SHA-256 of its canonical JSON (hex). */
  digest: text('digest').notNull(),
  /** The digest of the manifest before it in the chain; NULL for the first. */
  previousDigest: text('previous_digest'),
  manifestJson: text('manifest_json').notNull(),
  writtenAtMs: integer('written_at_ms').notNull(),
});

// ---- the merchant's books (written by src/books/ only) --------------------------------------

/** A file of the merchant's books as imported: one row per version (its SHA-256) of a source. */
export const booksFiles = sqliteTable(
  'books_files',
  {
    fileId: integer('file_id').primaryKey({ autoIncrement: true }),
    /** tenders, coupon-uses or dp-purchases. */
    kind: text('kind').notNull(),
    /** The file's name (its folder aside): a file of the same name and kind is a new version of it. */
    source: text('source').notNull(),
    path: text('path').notNull(),
    sha256: text('sha256').notNull(),
    importedAtMs: integer('imported_at_ms').notNull(),
    /** Rows read, new to the mirror, withdrawn (no longer in the file), and rejected. */
    rowsRead: integer('rows_read').notNull(),
    rowsAdded: integer('rows_added').notNull(),
    rowsWithdrawn: integer('rows_withdrawn').notNull(),
    rowsRejected: integer('rows_rejected').notNull(),
  },
  // Not unique: a file whose bytes return to an earlier version's is a new version of its own.
  (t) => [index('books_files_version').on(t.kind, t.source, t.sha256)],
);

/** A row of the merchant's books; codes only as SHA-256. Withdrawn rows stay, marked. */
export const booksRows = sqliteTable(
  'books_rows',
  {
    rowId: integer('row_id').primaryKey({ autoIncrement: true }),
    kind: text('kind').notNull(),
    source: text('source').notNull(),
    /** The row's kind, file name, meaning (its mapped fields) and occurrence among equal rows of the file, hashed (128 bits, hex). */
    identity: text('identity').notNull(),
    firstFileId: integer('first_file_id').notNull(),
    lastFileId: integer('last_file_id').notNull(),
    /** The version of the file that no longer holds the row; NULL while it does. */
    withdrawnFileId: integer('withdrawn_file_id'),
    lineNo: integer('line_no').notNull(),
    reference: text('reference'),
    /** payment or refund (tenders), use (coupon-uses), purchase (dp-purchases). */
    entryType: text('entry_type').notNull(),
    amountCents: integer('amount_cents'),
    currency: text('currency'),
    atMs: integer('at_ms').notNull(),
    /** The time as the file wrote it. */
    atText: text('at_text').notNull(),
    /** SHA-256 of a gift card's or coupon's code from the books (never the code). */
    codeSha256: text('code_sha256'),
    giftCardId: text('gift_card_id'),
    externalRef: text('external_ref'),
    /** The row's fields as read, codes replaced by their SHA-256. */
    rawJson: text('raw_json').notNull(),
  },
  // Matching reads a kind's rows whole: an index by reference would only slow a million-row import.
  (t) => [uniqueIndex('books_rows_identity_key').on(t.identity)],
);

/**
 * A books row's withdrawal before a version of its file changed it (withdrew the row, or brought
 * it back): whether a past night's matching read the row, for re-performance (books/store-past.ts).
 * Written by the trigger books_rows_withdrawals (migration 0024, pg 0010) on every such change
 * to books_rows, the books stage's own writes; a row a version keeps adds nothing. (A row's line
 * is not kept: a rolling export moves every line every night, and only messages name lines.)
 */
export const booksRowChanges = sqliteTable(
  'books_row_changes',
  {
    changeId: integer('change_id').primaryKey({ autoIncrement: true }),
    rowId: integer('row_id').notNull(),
    /** The version of the file that changed it (books_files.file_id). */
    fileId: integer('file_id').notNull(),
    /** Its withdrawal before the change (NULL: it was held). */
    withdrawnFileId: integer('withdrawn_file_id'),
  },
  (t) => [index('books_row_changes_row').on(t.rowId, t.fileId)],
);

/** A row of a books file that was not imported, with why. */
export const booksRejections = sqliteTable('books_rejections', {
  rejectionId: integer('rejection_id').primaryKey({ autoIncrement: true }),
  fileId: integer('file_id').notNull(),
  lineNo: integer('line_no').notNull(),
  reason: text('reason').notNull(),
  /** The line as read (codes hashed; cut at 2,000 characters), or NULL where it could not be split into fields safely. */
  raw: text('raw'),
});

/** The latest matching of the books against the services: a row per record, grouped by match. */
export const booksMatchRows = sqliteTable(
  'books_match_rows',
  {
    /** Records matched with each other share a group; an unmatched record has a group of its own. */
    groupId: integer('group_id').notNull(),
    kind: text('kind').notNull(),
    /** matched, amount-mismatch, duplicate, ambiguous, unmatched, in-transit, uses-mismatch. */
    status: text('status', {
      enum: ['matched', 'amount-mismatch', 'duplicate', 'ambiguous', 'unmatched', 'in-transit', 'uses-mismatch'],
    }).notNull(),
    /** exact, tolerance, one-to-many, code-hash; NULL when unmatched. */
    rule: text('rule'),
    /** books, ledger, coupon or dp-order. */
    side: text('side', { enum: ['books', 'ledger', 'coupon', 'dp-order'] }).notNull(),
    /** books_rows.row_id, a ledger entry's transaction_id, a coupon_id or a DP order_id. */
    recordId: text('record_id').notNull(),
    reference: text('reference'),
    entryType: text('entry_type'),
    amountCents: integer('amount_cents'),
    currency: text('currency'),
    atMs: integer('at_ms'),
    /** For a coupon: its uses in the books and its redemptionCount. */
    booksCount: integer('books_count'),
    serviceCount: integer('service_count'),
    matchedAtMs: integer('matched_at_ms').notNull(),
  },
  (t) => [index('books_match_rows_group').on(t.groupId), index('books_match_rows_status').on(t.status, t.kind)],
);
