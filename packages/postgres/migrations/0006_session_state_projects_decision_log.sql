CREATE TABLE "decision_log_entries" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"project_id" text NOT NULL,
	"number" integer NOT NULL,
	"kind" text NOT NULL,
	"title" text NOT NULL,
	"context_md" text NOT NULL,
	"decision_md" text NOT NULL,
	"rationale_md" text NOT NULL,
	"alternatives" jsonb NOT NULL,
	"consequences" jsonb NOT NULL,
	"tags" text[] NOT NULL,
	"files" text[] NOT NULL,
	"build_session_id" text,
	"author_account_id" text NOT NULL,
	"author_name" text NOT NULL,
	"decided_at" timestamp (3) with time zone NOT NULL,
	"recorded_at" timestamp (3) with time zone NOT NULL,
	"supersedes_id" text,
	"chain_root_id" text NOT NULL,
	"source" jsonb NOT NULL,
	CONSTRAINT "decision_log_entries_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "decision_log_kind_check" CHECK (kind in ('decision', 'correction')),
	CONSTRAINT "decision_log_correction_check" CHECK ((kind = 'correction') = (supersedes_id is not null)),
	CONSTRAINT "decision_log_root_check" CHECK (supersedes_id is not null or chain_root_id = id)
);
--> statement-breakpoint
CREATE TABLE "decision_source_amendments" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"entry_id" text NOT NULL,
	"source" jsonb NOT NULL,
	"reason" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"by_account_id" text NOT NULL,
	"by_name" text NOT NULL,
	CONSTRAINT "decision_source_amendments_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text NOT NULL,
	"repository_url" text,
	"attributes" jsonb NOT NULL,
	"settings" jsonb NOT NULL,
	"state" text NOT NULL,
	"is_default" boolean NOT NULL,
	"archived_at" timestamp (3) with time zone,
	"version" integer NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"created_by_account_id" text NOT NULL,
	"created_by_name" text NOT NULL,
	"decision_seq" integer DEFAULT 0 NOT NULL,
	"backlog_seq" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "projects_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "projects_state_check" CHECK (state in ('active', 'archived')),
	CONSTRAINT "projects_default_active_check" CHECK (not is_default or state = 'active'),
	CONSTRAINT "projects_archived_at_check" CHECK ((state = 'archived') = (archived_at is not null))
);
--> statement-breakpoint
CREATE TABLE "session_state_events" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"project_id" text NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" text NOT NULL,
	"event_type" text NOT NULL,
	"actor_account_id" text NOT NULL,
	"actor_name" text NOT NULL,
	"old_value" jsonb,
	"new_value" jsonb,
	"build_session_id" text,
	"at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "session_state_events_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "decision_log_number_key" ON "decision_log_entries" USING btree ("workspace_id","project_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "decision_log_supersedes_key" ON "decision_log_entries" USING btree ("workspace_id","supersedes_id");--> statement-breakpoint
CREATE INDEX "decision_log_project_idx" ON "decision_log_entries" USING btree ("workspace_id","project_id","id");--> statement-breakpoint
CREATE INDEX "decision_log_chain_idx" ON "decision_log_entries" USING btree ("workspace_id","chain_root_id");--> statement-breakpoint
CREATE INDEX "decision_source_amendments_entry_idx" ON "decision_source_amendments" USING btree ("workspace_id","entry_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_slug_key" ON "projects" USING btree ("workspace_id","slug");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_default_key" ON "projects" USING btree ("workspace_id") WHERE is_default;--> statement-breakpoint
CREATE INDEX "session_state_events_subject_idx" ON "session_state_events" USING btree ("workspace_id","subject_type","subject_id","id");--> statement-breakpoint
CREATE INDEX "session_state_events_session_idx" ON "session_state_events" USING btree ("workspace_id","build_session_id") WHERE build_session_id is not null;