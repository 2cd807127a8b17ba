-- Hand-written: rate-limit counters are updated on every request and dropped window by window.
ALTER TABLE "rate_limit_counters" SET (
  fillfactor = 70,
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_threshold = 200,
  autovacuum_analyze_scale_factor = 0.05,
  autovacuum_vacuum_cost_delay = 1
);
