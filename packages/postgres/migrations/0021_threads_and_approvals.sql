ALTER TABLE "messages" DROP CONSTRAINT "messages_state_check";--> statement-breakpoint
DROP INDEX "messages_expiry_idx";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "in_reply_to" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "thread_id" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "approval_policy_id" text;--> statement-breakpoint
ALTER TABLE "policies" ADD COLUMN "current_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "kind" text DEFAULT 'acknowledgement' NOT NULL;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "hold_templates" text[];--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "hold_recipients" text[];--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "hold_senders" text[];--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "hold_priorities" text[];--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "require_step_up" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "messages_held_for_approval_idx" ON "messages" USING btree ("workspace_id","id") WHERE state = 'held_for_approval';--> statement-breakpoint
CREATE INDEX "messages_thread_idx" ON "messages" USING btree ("workspace_id","thread_id","id") WHERE thread_id is not null;--> statement-breakpoint
CREATE INDEX "policies_approval_idx" ON "policies" USING btree ("workspace_id","name") WHERE current_approval;--> statement-breakpoint
CREATE INDEX "messages_expiry_idx" ON "messages" USING btree ("expires_at") WHERE state in ('pending', 'held', 'held_for_approval');--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_state_check" CHECK ("messages"."state" in ('pending', 'held', 'acknowledged', 'expired', 'dead_lettered', 'withheld', 'held_for_approval', 'rejected'));--> statement-breakpoint
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_kind_check" CHECK ("policy_versions"."kind" in ('acknowledgement', 'approval'));