ALTER TABLE "messages" ADD COLUMN "in_reply_to" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "thread_id" text;--> statement-breakpoint
CREATE INDEX "messages_thread_idx" ON "messages" USING btree ("workspace_id","thread_id","id") WHERE thread_id is not null;