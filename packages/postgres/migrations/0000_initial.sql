CREATE TABLE "ai_accounts" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"friendly_name" text NOT NULL,
	"state" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "ai_accounts_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "ai_accounts_state_check" CHECK ("ai_accounts"."state" in ('active', 'frozen', 'revoked'))
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"occurred_at" timestamp (3) with time zone NOT NULL,
	"activity" text NOT NULL,
	"actor_account_id" text,
	"actor_credential_id" text,
	"subject_type" text NOT NULL,
	"subject_id" text NOT NULL,
	"message_id" text,
	"details" jsonb NOT NULL,
	"operator_significant" boolean DEFAULT false NOT NULL,
	"request_id" text,
	"seq" bigint,
	"prev_hash" text,
	"hash" text,
	"sealed_at" timestamp (3) with time zone,
	CONSTRAINT "audit_log_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "credentials" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"ai_account_id" text NOT NULL,
	"tier" text NOT NULL,
	"scopes" text[] NOT NULL,
	"name" text NOT NULL,
	"state" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone,
	"project_id" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"rotated_from_id" text,
	"rotated_to_id" text,
	CONSTRAINT "credentials_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "credentials_state_check" CHECK ("credentials"."state" in ('active', 'revoked')),
	CONSTRAINT "credentials_tier_check" CHECK ("credentials"."tier" in ('operational', 'administrative'))
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"workspace_id" text NOT NULL,
	"account_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"request_id" text NOT NULL,
	"status" smallint,
	"body_text" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY("workspace_id","account_id","key")
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"sender_id" text NOT NULL,
	"sender_name" text NOT NULL,
	"recipient_id" text NOT NULL,
	"recipient_name" text NOT NULL,
	"template" text NOT NULL,
	"priority_rank" smallint NOT NULL,
	"correlation_id" text,
	"payload" jsonb NOT NULL,
	"state" text NOT NULL,
	"accepted_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"visible_at" timestamp (3) with time zone NOT NULL,
	"delivery_count" integer DEFAULT 0 NOT NULL,
	"lease_id" text,
	"lease_claimed_at" timestamp (3) with time zone,
	"lease_extensions" integer DEFAULT 0 NOT NULL,
	"last_extended_at" timestamp (3) with time zone,
	"last_nacked_at" timestamp (3) with time zone,
	"acknowledged_at" timestamp (3) with time zone,
	"outcome_summary" text,
	"dead_lettered_at" timestamp (3) with time zone,
	CONSTRAINT "messages_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "messages_state_check" CHECK ("messages"."state" in ('pending', 'held', 'acknowledged', 'expired', 'dead_lettered')),
	CONSTRAINT "messages_priority_rank_check" CHECK ("messages"."priority_rank" between 0 and 3)
);
--> statement-breakpoint
CREATE TABLE "persons" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "persons_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "webhook_outbox" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"webhook_id" text NOT NULL,
	"message_id" text,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"state" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "webhook_outbox_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"ai_account_id" text NOT NULL,
	"url" text NOT NULL,
	"name" text NOT NULL,
	"state" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"deleted_at" timestamp (3) with time zone,
	CONSTRAINT "webhooks_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"owner_person_id" text NOT NULL,
	"state" text NOT NULL,
	"max_deliveries" integer DEFAULT 10 NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "workspaces_state_check" CHECK ("workspaces"."state" in ('active', 'frozen', 'closed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ai_accounts_friendly_name_key" ON "ai_accounts" USING btree ("workspace_id","friendly_name") WHERE state <> 'revoked';--> statement-breakpoint
CREATE INDEX "ai_accounts_id_idx" ON "ai_accounts" USING btree ("id");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_seq_key" ON "audit_log" USING btree ("workspace_id","seq");--> statement-breakpoint
CREATE INDEX "audit_log_unsealed_idx" ON "audit_log" USING btree ("workspace_id","occurred_at","id") WHERE seq is null;--> statement-breakpoint
CREATE INDEX "audit_log_message_idx" ON "audit_log" USING btree ("workspace_id","message_id","occurred_at","id") WHERE message_id is not null;--> statement-breakpoint
CREATE INDEX "audit_log_newest_idx" ON "audit_log" USING btree ("workspace_id","occurred_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "credentials_token_hash_key" ON "credentials" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "credentials_account_idx" ON "credentials" USING btree ("workspace_id","ai_account_id","id");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expiry_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "messages_claim_idx" ON "messages" USING btree ("workspace_id","recipient_id","priority_rank" DESC NULLS LAST,"accepted_at","id") WHERE state in ('pending', 'held');--> statement-breakpoint
CREATE INDEX "messages_expiry_idx" ON "messages" USING btree ("expires_at") WHERE state in ('pending', 'held');--> statement-breakpoint
CREATE INDEX "messages_recipient_idx" ON "messages" USING btree ("workspace_id","recipient_id","id");--> statement-breakpoint
CREATE INDEX "messages_sender_idx" ON "messages" USING btree ("workspace_id","sender_id","id");--> statement-breakpoint
CREATE INDEX "messages_dead_lettered_idx" ON "messages" USING btree ("workspace_id","id") WHERE state = 'dead_lettered';--> statement-breakpoint
CREATE UNIQUE INDEX "persons_email_key" ON "persons" USING btree ("email");--> statement-breakpoint
CREATE INDEX "webhook_outbox_due_idx" ON "webhook_outbox" USING btree ("next_attempt_at") WHERE state in ('pending', 'retrying');--> statement-breakpoint
CREATE INDEX "webhook_outbox_webhook_idx" ON "webhook_outbox" USING btree ("workspace_id","webhook_id","id");--> statement-breakpoint
CREATE INDEX "webhooks_live_idx" ON "webhooks" USING btree ("workspace_id","ai_account_id") WHERE deleted_at is null and state = 'active';