CREATE TABLE "recipient_minute_stats" (
	"workspace_id" text NOT NULL,
	"ai_account_id" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"acknowledged" integer DEFAULT 0 NOT NULL,
	"dead_lettered" integer DEFAULT 0 NOT NULL,
	"pending" integer DEFAULT 0 NOT NULL,
	"oldest_pending_age_seconds" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "recipient_minute_stats_pkey" PRIMARY KEY("workspace_id","ai_account_id","minute")
);
--> statement-breakpoint
ALTER TABLE "ai_accounts" ADD COLUMN "last_active_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "credentials" ADD COLUMN "last_used_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "recipient_minute_stats_minute_idx" ON "recipient_minute_stats" USING btree ("minute");