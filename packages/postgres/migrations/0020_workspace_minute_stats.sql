CREATE TABLE "workspace_minute_stats" (
	"workspace_id" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"acknowledged" integer DEFAULT 0 NOT NULL,
	"dead_lettered" integer DEFAULT 0 NOT NULL,
	"pending" integer DEFAULT 0 NOT NULL,
	"oldest_pending_age_seconds" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "workspace_minute_stats_pkey" PRIMARY KEY("workspace_id","minute")
);
--> statement-breakpoint
CREATE INDEX "workspace_minute_stats_minute_idx" ON "workspace_minute_stats" USING btree ("minute");--> statement-breakpoint
CREATE INDEX "audit_log_occurred_brin" ON "audit_log" USING brin ("occurred_at");