-- The kept figures' layout 2 adds each card's references with a refund (src/ledger/card-sums.ts).
-- A layout-1 record cannot be read by this version: it is let go, and that run's report walks the ledger.
DELETE FROM check_run_card_sums;
