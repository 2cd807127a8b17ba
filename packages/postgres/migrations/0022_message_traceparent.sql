ALTER TABLE "messages" ADD COLUMN "traceparent" text;--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD COLUMN "traceparent" text;