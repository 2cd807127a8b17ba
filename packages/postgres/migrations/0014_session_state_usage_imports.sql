CREATE TABLE "session_import_fingerprints" (
	"workspace_id" text NOT NULL,
	"project_id" text NOT NULL,
	"target" text NOT NULL,
	"fingerprint" text NOT NULL,
	"record_id" text NOT NULL,
	"import_id" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "session_import_fingerprints_pkey" PRIMARY KEY("workspace_id","project_id","target","fingerprint")
);
--> statement-breakpoint
CREATE TABLE "session_import_rows" (
	"workspace_id" text NOT NULL,
	"import_id" text NOT NULL,
	"row_number" integer NOT NULL,
	"status" text NOT NULL,
	"doc" jsonb NOT NULL,
	CONSTRAINT "session_import_rows_pkey" PRIMARY KEY("workspace_id","import_id","row_number")
);
--> statement-breakpoint
CREATE TABLE "session_imports" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"project_id" text NOT NULL,
	"parser" text NOT NULL,
	"status" text NOT NULL,
	"version" integer NOT NULL,
	"doc" jsonb NOT NULL,
	CONSTRAINT "session_imports_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "session_imports_status_check" CHECK (status in ('previewed', 'committed'))
);
--> statement-breakpoint
CREATE TABLE "usage_reports" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"project_id" text NOT NULL,
	"build_session_id" text NOT NULL,
	"ai_account_id" text NOT NULL,
	"model" text NOT NULL,
	"reported_at" timestamp (3) with time zone NOT NULL,
	"input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cache_read_tokens" bigint NOT NULL,
	"cache_write_tokens" bigint NOT NULL,
	"cost_micro_usd" bigint NOT NULL,
	"d_input_tokens" bigint NOT NULL,
	"d_output_tokens" bigint NOT NULL,
	"d_cache_read_tokens" bigint NOT NULL,
	"d_cache_write_tokens" bigint NOT NULL,
	"d_cost_micro_usd" bigint NOT NULL,
	CONSTRAINT "usage_reports_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "usage_reports_nonnegative_check" CHECK (least(d_input_tokens, d_output_tokens, d_cache_read_tokens, d_cache_write_tokens, d_cost_micro_usd) >= 0)
);
--> statement-breakpoint
CREATE INDEX "session_imports_project_idx" ON "session_imports" USING btree ("workspace_id","project_id","id");--> statement-breakpoint
CREATE INDEX "usage_reports_session_idx" ON "usage_reports" USING btree ("workspace_id","build_session_id","model","id");--> statement-breakpoint
CREATE INDEX "usage_reports_time_idx" ON "usage_reports" USING btree ("workspace_id","reported_at");