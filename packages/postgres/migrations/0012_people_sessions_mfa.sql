CREATE TABLE "person_recovery_codes" (
	"workspace_id" text NOT NULL,
	"person_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	CONSTRAINT "person_recovery_codes_pkey" PRIMARY KEY("workspace_id","person_id","code_hash")
);
--> statement-breakpoint
CREATE TABLE "person_sessions" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"person_id" text NOT NULL,
	"stage" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_with_mfa" boolean NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_seen_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"step_up_until" timestamp (3) with time zone,
	"ended_at" timestamp (3) with time zone,
	CONSTRAINT "person_sessions_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "person_sessions_stage_check" CHECK ("person_sessions"."stage" in ('active', 'pending_mfa'))
);
--> statement-breakpoint
CREATE TABLE "sign_in_failures" (
	"id" text PRIMARY KEY NOT NULL,
	"email_key" text NOT NULL,
	"address_key" text NOT NULL,
	"failed_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "display_name" text;--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "role" text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "mfa_enabled_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "totp_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "totp_pending_sealed" text;--> statement-breakpoint
ALTER TABLE "persons" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
CREATE UNIQUE INDEX "person_sessions_token_hash_key" ON "person_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "person_sessions_person_idx" ON "person_sessions" USING btree ("workspace_id","person_id") WHERE ended_at is null;--> statement-breakpoint
CREATE INDEX "sign_in_failures_email_idx" ON "sign_in_failures" USING btree ("email_key","failed_at");--> statement-breakpoint
CREATE INDEX "sign_in_failures_address_idx" ON "sign_in_failures" USING btree ("address_key","failed_at");--> statement-breakpoint
CREATE INDEX "sign_in_failures_failed_at_idx" ON "sign_in_failures" USING btree ("failed_at");--> statement-breakpoint
ALTER TABLE "persons" ADD CONSTRAINT "persons_role_check" CHECK ("persons"."role" in ('owner', 'admin', 'viewer'));