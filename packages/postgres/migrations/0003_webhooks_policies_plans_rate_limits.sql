CREATE TABLE "policies" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"current_version" integer NOT NULL,
	"current_required" boolean NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "policies_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "policy_acknowledgements" (
	"workspace_id" text NOT NULL,
	"policy_id" text NOT NULL,
	"account_id" text NOT NULL,
	"version" integer NOT NULL,
	"acknowledged_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "policy_acknowledgements_pkey" PRIMARY KEY("workspace_id","policy_id","account_id")
);
--> statement-breakpoint
CREATE TABLE "policy_versions" (
	"workspace_id" text NOT NULL,
	"policy_id" text NOT NULL,
	"version" integer NOT NULL,
	"required" boolean NOT NULL,
	"body" text NOT NULL,
	"published_at" timestamp (3) with time zone NOT NULL,
	"published_by" text,
	CONSTRAINT "policy_versions_pkey" PRIMARY KEY("workspace_id","policy_id","version")
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"workspace_id" text NOT NULL,
	"bucket" text NOT NULL,
	"subject_id" text NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY("workspace_id","bucket","subject_id","window_start")
);
--> statement-breakpoint
CREATE TABLE "workspace_plans" (
	"workspace_id" text PRIMARY KEY NOT NULL,
	"plan" text NOT NULL,
	"overrides" jsonb NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
DROP INDEX "webhook_outbox_due_idx";--> statement-breakpoint
ALTER TABLE "webhook_outbox" ALTER COLUMN "next_attempt_at" SET DATA TYPE timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhooks" ALTER COLUMN "state" SET DEFAULT 'active';--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD COLUMN "last_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD COLUMN "last_status" smallint;--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD COLUMN "last_error" text;--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD COLUMN "delivered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD COLUMN "dead_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD COLUMN "claim_token" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "filter_templates" text[];--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "filter_min_priority_rank" smallint;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "max_attempts" integer DEFAULT 6 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "signing_keys" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "policies_name_key" ON "policies" USING btree ("workspace_id","name");--> statement-breakpoint
CREATE INDEX "policies_required_idx" ON "policies" USING btree ("workspace_id","name") WHERE current_required;--> statement-breakpoint
CREATE INDEX "rate_limit_counters_window_idx" ON "rate_limit_counters" USING btree ("window_start");--> statement-breakpoint
CREATE INDEX "audit_log_sent_idx" ON "audit_log" USING btree ("workspace_id","occurred_at") WHERE activity = 'message.sent';--> statement-breakpoint
CREATE INDEX "webhook_outbox_due_idx" ON "webhook_outbox" USING btree ("next_attempt_at","id") WHERE state in ('pending', 'retrying');--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD CONSTRAINT "webhook_outbox_state_check" CHECK ("webhook_outbox"."state" in ('pending', 'retrying', 'delivered', 'dead'));