CREATE TABLE "lesson_candidates" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"project_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"detector" text NOT NULL,
	"status" text NOT NULL,
	"score" integer NOT NULL,
	"ready" boolean NOT NULL,
	"version" integer NOT NULL,
	"doc" jsonb NOT NULL,
	CONSTRAINT "lesson_candidates_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "lesson_candidates_status_check" CHECK (status in ('pending', 'promoted', 'rejected', 'superseded'))
);
--> statement-breakpoint
CREATE TABLE "lesson_observations" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"lesson_id" text NOT NULL,
	"build_session_id" text,
	"at" timestamp (3) with time zone NOT NULL,
	"doc" jsonb NOT NULL,
	CONSTRAINT "lesson_observations_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "lessons" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"project_id" text NOT NULL,
	"slug" text NOT NULL,
	"status" text NOT NULL,
	"tags" text[] NOT NULL,
	"observation_count" integer NOT NULL,
	"last_observed_at" timestamp (3) with time zone,
	"deleted_at" timestamp (3) with time zone,
	"version" integer NOT NULL,
	"doc" jsonb NOT NULL,
	"search_vector" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', coalesce(doc->>'title', '')), 'A') || setweight(to_tsvector('english', coalesce(doc->>'bodyMd', '') || ' ' || coalesce(doc->>'whyMd', '')), 'B') || setweight(to_tsvector('english', coalesce(doc->>'tags', '')), 'C')) STORED,
	CONSTRAINT "lessons_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "lessons_status_check" CHECK (status in ('active', 'retired', 'superseded'))
);
--> statement-breakpoint
CREATE TABLE "rules" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"project_id" text NOT NULL,
	"slug" text NOT NULL,
	"status" text NOT NULL,
	"level" text NOT NULL,
	"source_lesson_id" text NOT NULL,
	"languages" text[] NOT NULL,
	"version" integer NOT NULL,
	"doc" jsonb NOT NULL,
	CONSTRAINT "rules_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "rules_status_check" CHECK (status in ('active', 'archived')),
	CONSTRAINT "rules_level_check" CHECK (level in ('must', 'should', 'may'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "lesson_candidates_fingerprint_key" ON "lesson_candidates" USING btree ("workspace_id","project_id","fingerprint") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "lesson_candidates_project_idx" ON "lesson_candidates" USING btree ("workspace_id","project_id","status","score");--> statement-breakpoint
CREATE INDEX "lesson_observations_lesson_idx" ON "lesson_observations" USING btree ("workspace_id","lesson_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "lessons_slug_key" ON "lessons" USING btree ("workspace_id","project_id","slug") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "lessons_project_idx" ON "lessons" USING btree ("workspace_id","project_id","status") WHERE deleted_at is null;--> statement-breakpoint
CREATE INDEX "lessons_search_idx" ON "lessons" USING gin ("search_vector");--> statement-breakpoint
CREATE UNIQUE INDEX "rules_slug_key" ON "rules" USING btree ("workspace_id","project_id","slug") WHERE status = 'active';--> statement-breakpoint
CREATE INDEX "rules_project_idx" ON "rules" USING btree ("workspace_id","project_id","status","slug");--> statement-breakpoint
CREATE INDEX "rules_lesson_idx" ON "rules" USING btree ("workspace_id","source_lesson_id") WHERE status = 'active';--> statement-breakpoint
CREATE INDEX "build_sessions_updated_idx" ON "build_sessions" USING btree ("workspace_id","project_id","updated_at");--> statement-breakpoint
CREATE INDEX "session_state_events_type_idx" ON "session_state_events" USING btree ("workspace_id","project_id","subject_type","event_type","at");