-- Views for investigators (documented in src/db/README.md), as the SQLite mirror has them
-- (drizzle/0005_views.sql, 0009, 0012): the same names, columns and meaning. Money in integer cents.
-- A card's entries in the service's order, with a running balance recomputed from the
-- initial balance beside the balance the service reported after each entry.
CREATE VIEW card_ledger AS
SELECT t.gift_card_id, t.transaction_id, t.created_at, t.created_at_ms, t.list_order, t.type, c.currency,
       t.amount_cents, t.balance_before_cents, t.balance_after_cents,
       c.initial_balance_cents + SUM(CASE t.type WHEN 'DEBIT' THEN -t.amount_cents WHEN 'REFUND' THEN t.amount_cents ELSE 0 END)
         OVER (PARTITION BY t.gift_card_id ORDER BY t.created_at_ms, t.list_order ROWS UNBOUNDED PRECEDING) AS running_balance_cents,
       t.balance_after_cents - (c.initial_balance_cents + SUM(CASE t.type WHEN 'DEBIT' THEN -t.amount_cents WHEN 'REFUND' THEN t.amount_cents ELSE 0 END)
         OVER (PARTITION BY t.gift_card_id ORDER BY t.created_at_ms, t.list_order ROWS UNBOUNDED PRECEDING)) AS difference_cents,
       t.reference_id, t.idempotency_key
FROM gift_card_transactions t JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
WHERE t.vanished_sync_run_id IS NULL;
--> statement-breakpoint
-- Per card: initial − debits + refunds against the remaining balance the service reports.
CREATE VIEW card_reconciliation AS
SELECT c.gift_card_id, c.currency, c.status, c.initial_balance_cents,
       COALESCE(SUM(CASE t.type WHEN 'DEBIT' THEN t.amount_cents END), 0) AS debits_cents,
       COALESCE(SUM(CASE t.type WHEN 'REFUND' THEN t.amount_cents END), 0) AS refunds_cents,
       c.initial_balance_cents - COALESCE(SUM(CASE t.type WHEN 'DEBIT' THEN t.amount_cents END), 0) + COALESCE(SUM(CASE t.type WHEN 'REFUND' THEN t.amount_cents END), 0) AS recomputed_cents,
       c.remaining_balance_cents AS reported_cents,
       c.remaining_balance_cents - (c.initial_balance_cents - COALESCE(SUM(CASE t.type WHEN 'DEBIT' THEN t.amount_cents END), 0) + COALESCE(SUM(CASE t.type WHEN 'REFUND' THEN t.amount_cents END), 0)) AS difference_cents,
       COUNT(t.transaction_id) AS entries
FROM gift_cards c LEFT JOIN gift_card_transactions t ON t.gift_card_id = c.gift_card_id AND t.vanished_sync_run_id IS NULL
GROUP BY c.gift_card_id;
--> statement-breakpoint
-- Debits and refunds per card and order reference.
CREATE VIEW refunds_by_reference AS
SELECT t.gift_card_id, t.reference_id, MAX(c.currency) AS currency,
       COUNT(*) FILTER (WHERE t.type = 'DEBIT') AS debits, COALESCE(SUM(CASE t.type WHEN 'DEBIT' THEN t.amount_cents END), 0) AS debited_cents,
       COUNT(*) FILTER (WHERE t.type = 'REFUND') AS refunds, COALESCE(SUM(CASE t.type WHEN 'REFUND' THEN t.amount_cents END), 0) AS refunded_cents,
       COALESCE(SUM(CASE t.type WHEN 'DEBIT' THEN t.amount_cents END), 0) - COALESCE(SUM(CASE t.type WHEN 'REFUND' THEN t.amount_cents END), 0) AS refundable_left_cents
FROM gift_card_transactions t LEFT JOIN gift_cards c ON c.gift_card_id = t.gift_card_id
WHERE t.type IN ('DEBIT', 'REFUND') AND t.vanished_sync_run_id IS NULL
GROUP BY t.gift_card_id, t.reference_id;
--> statement-breakpoint
-- The newest check run's findings, with their age, bucket and the acceptance as that run applied it.
CREATE VIEW open_findings AS
SELECT f.check_run_id, f.fingerprint, f.code, f.severity, f.state, f.entity_type, f.entity_id, f.gift_card_id, f.reference_id, f.currency, f.unit,
       f.expected, f.actual, f.difference, f.stake_cents, f.message, f.first_seen_at, f.age_days,
       CASE WHEN f.age_days <= 1 THEN '0-1' WHEN f.age_days <= 7 THEN '2-7' WHEN f.age_days <= 30 THEN '8-30' ELSE 'over 30' END AS age_bucket,
       f.accepted_note, f.accepted_by,
       to_char(to_timestamp(f.accepted_at_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS accepted_at,
       to_char(to_timestamp(f.accepted_until_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS accepted_until,
       f.acceptance_ended, f.records_json
FROM findings f
WHERE f.check_run_id = (SELECT MAX(check_run_id) FROM check_runs WHERE status = 'completed');
--> statement-breakpoint
-- Order lines with their FX recomputed: total price × fxRate, rounded to the cent.
CREATE VIEW order_lines_fx AS
SELECT l.order_id, l.line_no, o.external_ref_id, o.status, l.product_id, l.variant_id, l.quantity, l.currency AS line_currency, o.currency AS order_currency,
       l.price_cents, l.total_price_cents, l.fx_rate, l.total_converted_price_cents,
       CAST(ROUND(l.total_price_cents * l.fx_rate) AS BIGINT) AS recomputed_converted_cents,
       l.total_converted_price_cents - CAST(ROUND(l.total_price_cents * l.fx_rate) AS BIGINT) AS difference_cents
FROM dp_order_lines l JOIN dp_orders o ON o.order_id = l.order_id;
--> statement-breakpoint
-- Each coupon's status and redemption count as every sync saw them change.
CREATE VIEW coupon_redemption_history AS
SELECT h.coupon_id, h.sync_run_id, s.started_at AS synced_at, h.status, h.redemption_count,
       h.redemption_count - LAG(h.redemption_count) OVER (PARTITION BY h.coupon_id ORDER BY h.history_id) AS change
FROM coupon_history h JOIN sync_runs s ON s.sync_run_id = h.sync_run_id;
--> statement-breakpoint
-- Each wallet's balance at every sync, and its move since the sync before.
CREATE VIEW wallet_balance_history AS
SELECT w.wallet_id, w.sync_run_id, w.currency, w.selected, w.read_at_ms,
       to_char(to_timestamp(w.read_at_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS read_at,
       w.balance_cents, w.balance_cents - LAG(w.balance_cents) OVER (PARTITION BY w.wallet_id ORDER BY w.sync_run_id) AS change_cents
FROM dp_wallet_snapshots w;
--> statement-breakpoint
-- Every matched pair or group of the latest matching, books rows and service records side by side.
CREATE VIEW books_matches AS
SELECT m.group_id, m.kind, m.rule, m.side, m.record_id, m.reference, m.entry_type, m.currency, m.amount_cents, m.at_ms,
       b.source AS books_file, b.line_no AS books_line
FROM books_match_rows m LEFT JOIN books_rows b ON b.row_id = CASE WHEN m.side = 'books' THEN CAST(m.record_id AS BIGINT) END
WHERE m.status = 'matched';
--> statement-breakpoint
-- Every record of the latest matching that found no partner, or matched only in part: why, and where it is.
CREATE VIEW books_unmatched AS
SELECT m.group_id, m.kind, m.status, m.side, m.record_id, m.reference, m.entry_type, m.currency, m.amount_cents, m.at_ms,
       m.books_count, m.service_count, b.source AS books_file, b.line_no AS books_line
FROM books_match_rows m LEFT JOIN books_rows b ON b.row_id = CASE WHEN m.side = 'books' THEN CAST(m.record_id AS BIGINT) END
WHERE m.status <> 'matched';
