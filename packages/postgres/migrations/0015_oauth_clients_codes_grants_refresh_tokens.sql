CREATE TABLE "oauth_authorization_codes" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"client_id" text NOT NULL,
	"code_hash" text NOT NULL,
	"person_id" text,
	"ai_account_id" text NOT NULL,
	"scopes" text[] NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" text NOT NULL,
	"resource" text,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"consumed_at" timestamp (3) with time zone,
	"grant_id" text,
	CONSTRAINT "oauth_authorization_codes_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE TABLE "oauth_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"client_name" text,
	"redirect_uris" text[] NOT NULL,
	"metadata" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_used_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "oauth_grant_credentials" (
	"workspace_id" text NOT NULL,
	"credential_id" text NOT NULL,
	"grant_id" text NOT NULL,
	CONSTRAINT "oauth_grant_credentials_pkey" PRIMARY KEY("workspace_id","credential_id")
);
--> statement-breakpoint
CREATE TABLE "oauth_grants" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"client_id" text NOT NULL,
	"client_name" text,
	"redirect_uri" text NOT NULL,
	"ai_account_id" text NOT NULL,
	"person_id" text,
	"scopes" text[] NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"last_used_at" timestamp (3) with time zone NOT NULL,
	"refresh_expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"revoked_reason" text,
	CONSTRAINT "oauth_grants_pkey" PRIMARY KEY("workspace_id","id"),
	CONSTRAINT "oauth_grants_revoked_check" CHECK (("oauth_grants"."revoked_at" is null) = ("oauth_grants"."revoked_reason" is null)),
	CONSTRAINT "oauth_grants_revoked_reason_check" CHECK ("oauth_grants"."revoked_reason" in ('disconnected', 'refresh_token_replayed', 'authorization_code_replayed', 'revoked_by_client', 'ai_account_revoked'))
);
--> statement-breakpoint
CREATE TABLE "oauth_refresh_tokens" (
	"workspace_id" text NOT NULL,
	"id" text NOT NULL,
	"grant_id" text NOT NULL,
	"client_id" text NOT NULL,
	"generation" integer NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"spent_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "oauth_refresh_tokens_pkey" PRIMARY KEY("workspace_id","id")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_authorization_codes_code_hash_key" ON "oauth_authorization_codes" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "oauth_authorization_codes_expires_idx" ON "oauth_authorization_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oauth_clients_idle_idx" ON "oauth_clients" USING btree (coalesce("last_used_at", "created_at"));--> statement-breakpoint
CREATE INDEX "oauth_grant_credentials_grant_idx" ON "oauth_grant_credentials" USING btree ("workspace_id","grant_id");--> statement-breakpoint
CREATE INDEX "oauth_grants_client_idx" ON "oauth_grants" USING btree ("workspace_id","client_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_refresh_tokens_token_hash_key" ON "oauth_refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_refresh_tokens_generation_key" ON "oauth_refresh_tokens" USING btree ("workspace_id","grant_id","generation");