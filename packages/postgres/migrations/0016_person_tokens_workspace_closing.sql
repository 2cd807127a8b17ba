CREATE TABLE "person_tokens" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"person_id" text NOT NULL,
	"purpose" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	CONSTRAINT "person_tokens_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "person_tokens_purpose_check" CHECK ("person_tokens"."purpose" in ('password_reset', 'invitation'))
);
--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "closed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "payloads_deleted_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "person_tokens_token_hash_key" ON "person_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "person_tokens_person_idx" ON "person_tokens" USING btree ("workspace_id","person_id","purpose","created_at");--> statement-breakpoint
CREATE INDEX "person_tokens_expires_at_idx" ON "person_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "workspaces_payload_deletion_idx" ON "workspaces" USING btree ("closed_at") WHERE state = 'closed' and payloads_deleted_at is null;