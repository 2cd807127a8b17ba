-- Hand-written: what drizzle-kit cannot express for build sessions and the backlog.

-- Backlog terminal statuses are absorbing (SESSION-STATE §5): besides the guarded UPDATE of the
-- store and the CHECK constraints, the table itself refuses moving an item out of resolved or
-- dismissed, whoever writes.
CREATE OR REPLACE FUNCTION agentq_backlog_terminal_absorbing() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status IN ('resolved', 'dismissed') AND NEW.status IS DISTINCT FROM OLD.status THEN
    RAISE EXCEPTION 'backlog item % is %: terminal statuses are absorbing', OLD.id, OLD.status
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER backlog_items_terminal_absorbing BEFORE UPDATE OF status ON backlog_items
  FOR EACH ROW EXECUTE FUNCTION agentq_backlog_terminal_absorbing();
--> statement-breakpoint
-- Full-text search of the backlog: title (A), description (B), acceptance criteria and labels (C).
ALTER TABLE backlog_items ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('english', description_md), 'B') ||
  setweight(to_tsvector('english', acceptance_criteria_md || ' ' || agentq_words(labels)), 'C')
) STORED;
--> statement-breakpoint
CREATE INDEX backlog_items_search_idx ON backlog_items USING gin (search_vector);
--> statement-breakpoint
-- Full-text search of build sessions: title, goal, summary (A/B), the lead lines' text and the
-- current state's strings (C).
ALTER TABLE build_sessions ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', title), 'A') ||
  setweight(to_tsvector('english', goal || ' ' || summary_md), 'B') ||
  setweight(jsonb_to_tsvector('english', jsonb_path_query_array(lead_lines, '$[*].text'), '["string"]'), 'C') ||
  setweight(jsonb_to_tsvector('english', current_state, '["string"]'), 'C')
) STORED;
--> statement-breakpoint
CREATE INDEX build_sessions_search_idx ON build_sessions USING gin (search_vector);
