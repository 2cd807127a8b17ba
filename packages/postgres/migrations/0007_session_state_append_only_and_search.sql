-- Hand-written: what drizzle-kit cannot express for the session-state tables.

-- The decision log is append-only in the database itself (SESSION-STATE §4): UPDATE and
-- TRUNCATE are always refused; DELETE only inside an erasure of a workspace or person, which
-- sets `agentq.erasure` to 'on' for its transaction (SET LOCAL agentq.erasure = 'on').
CREATE OR REPLACE FUNCTION agentq_refuse_append_only_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND coalesce(current_setting('agentq.erasure', true), '') = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
    USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'Record a correction (a new entry) instead.';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER decision_log_entries_append_only BEFORE UPDATE OR DELETE ON decision_log_entries
  FOR EACH ROW EXECUTE FUNCTION agentq_refuse_append_only_change();
--> statement-breakpoint
CREATE TRIGGER decision_log_entries_no_truncate BEFORE TRUNCATE ON decision_log_entries
  FOR EACH STATEMENT EXECUTE FUNCTION agentq_refuse_append_only_change();
--> statement-breakpoint
CREATE TRIGGER decision_source_amendments_append_only BEFORE UPDATE OR DELETE ON decision_source_amendments
  FOR EACH ROW EXECUTE FUNCTION agentq_refuse_append_only_change();
--> statement-breakpoint
CREATE TRIGGER decision_source_amendments_no_truncate BEFORE TRUNCATE ON decision_source_amendments
  FOR EACH STATEMENT EXECUTE FUNCTION agentq_refuse_append_only_change();
--> statement-breakpoint
-- Tags joined by spaces, for generated search columns (array_to_string is only STABLE in
-- general; for text[] it depends on nothing but its input).
CREATE OR REPLACE FUNCTION agentq_words(text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(array_to_string($1, ' '), '') $$;
--> statement-breakpoint
-- Full-text search of the decision log: title (weight A), decision (B), context and rationale
-- and tags (C), English stemming; GIN-indexed.
ALTER TABLE decision_log_entries ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('english', decision_md), 'B') ||
  setweight(to_tsvector('english', context_md || ' ' || rationale_md || ' ' || agentq_words(tags)), 'C')
) STORED;
--> statement-breakpoint
CREATE INDEX decision_log_search_idx ON decision_log_entries USING gin (search_vector);
