CREATE TABLE "anonymous_limit_counters" (
	"bucket" text NOT NULL,
	"key" text NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"window_ends_at" timestamp (3) with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "anonymous_limit_counters_pkey" PRIMARY KEY("bucket","key")
);
--> statement-breakpoint
CREATE INDEX "anonymous_limit_counters_ends_idx" ON "anonymous_limit_counters" USING btree ("window_ends_at");