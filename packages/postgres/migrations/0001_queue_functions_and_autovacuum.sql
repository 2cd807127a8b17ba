-- Hand-written: what drizzle-kit cannot express.

-- A new ULID from the clock and 80 random bits (gen_random_uuid is built in since PostgreSQL 13).
-- Used for ids the database mints itself: lease ids and outbox rows of a send, whose number is
-- only known inside the statement.
CREATE OR REPLACE FUNCTION agentq_ulid() RETURNS text
LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $$
DECLARE
  alphabet constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  a bytea := uuid_send(gen_random_uuid());
  b bytea := uuid_send(gen_random_uuid());
  r1 bigint := 0;
  r2 bigint := 0;
  result text := '';
BEGIN
  -- Bytes 0..4 of a version-4 UUID are fully random.
  FOR i IN 0..4 LOOP
    r1 := (r1 << 8) | get_byte(a, i);
    r2 := (r2 << 8) | get_byte(b, i);
  END LOOP;
  FOR i IN 0..9 LOOP
    result := result || substr(alphabet, ((ms >> (5 * (9 - i))) & 31)::int + 1, 1);
  END LOOP;
  FOR i IN 0..7 LOOP
    result := result || substr(alphabet, ((r1 >> (5 * (7 - i))) & 31)::int + 1, 1);
  END LOOP;
  FOR i IN 0..7 LOOP
    result := result || substr(alphabet, ((r2 >> (5 * (7 - i))) & 31)::int + 1, 1);
  END LOOP;
  RETURN result;
END
$$;
--> statement-breakpoint
-- The hot queue tables churn: vacuum and analyze them long before the 20% default so dead
-- tuples of finished messages, spent idempotency keys and delivered outbox rows do not pile up.
ALTER TABLE "messages" SET (
  fillfactor = 90,
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_threshold = 500,
  autovacuum_vacuum_insert_scale_factor = 0.05,
  autovacuum_analyze_scale_factor = 0.02,
  autovacuum_vacuum_cost_delay = 1
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" SET (
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_threshold = 500,
  autovacuum_analyze_scale_factor = 0.05,
  autovacuum_vacuum_cost_delay = 1
);
--> statement-breakpoint
ALTER TABLE "webhook_outbox" SET (
  fillfactor = 90,
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_threshold = 200,
  autovacuum_analyze_scale_factor = 0.02,
  autovacuum_vacuum_cost_delay = 1
);
