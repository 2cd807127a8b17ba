CREATE TABLE "notices" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"state" text NOT NULL,
	"category" text NOT NULL,
	"status_token_hash" text NOT NULL,
	"affected_workspace_id" text,
	"disclosed_at" timestamp (3) with time zone,
	"restoration_earliest_at" timestamp (3) with time zone,
	"court_action_at" timestamp (3) with time zone,
	"received_at" timestamp (3) with time zone NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL,
	"version" integer NOT NULL,
	"body" jsonb NOT NULL,
	CONSTRAINT "notices_kind_check" CHECK ("notices"."kind" in ('dsa', 'dmca')),
	CONSTRAINT "notices_state_check" CHECK ("notices"."state" in ('received', 'under_review', 'needs_information', 'action_taken', 'no_action', 'dismissed', 'contested', 'restored', 'upheld', 'withdrawn'))
);
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_state_check";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "withheld_from_state" text;--> statement-breakpoint
CREATE UNIQUE INDEX "notices_status_token_hash_key" ON "notices" USING btree ("status_token_hash");--> statement-breakpoint
CREATE INDEX "notices_disclosed_idx" ON "notices" USING btree ("affected_workspace_id","id") WHERE disclosed_at is not null;--> statement-breakpoint
CREATE INDEX "notices_state_idx" ON "notices" USING btree ("state","id");--> statement-breakpoint
CREATE INDEX "notices_received_idx" ON "notices" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "notices_restoration_due_idx" ON "notices" USING btree ("restoration_earliest_at") WHERE state = 'contested' and kind = 'dmca' and court_action_at is null;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_withheld_from_check" CHECK (("messages"."state" = 'withheld') = ("messages"."withheld_from_state" is not null));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_state_check" CHECK ("messages"."state" in ('pending', 'held', 'acknowledged', 'expired', 'dead_lettered', 'withheld'));